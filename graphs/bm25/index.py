"""BM25 index of a snapshot: exact top-k over all nodes and scores of any node set, one formula."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphs.bm25.invariants import check_index, check_index_fully
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings, load_vocab, term_ids
from graphs.bm25.scorer import BM25Scorer
from graphs.bm25.tokenize import Tokenizer
from graphs.errors import GraphError, SnapshotError
from graphs.invariants import load_array as _load
from graphs.layout import INDEX_FIELD, INDEX_FORMAT_VERSION, META_FILE, TYPES_FILE, posting_file

__all__ = ["MAX_QUERY_TERMS", "BM25Index"]

logger = logging.getLogger(__name__)

MAX_QUERY_TERMS = 256
"""Queries keep at most this many distinct indexed terms (the rest are logged and ignored)."""
QUERY_CACHE_SIZE = 256  # parsed queries kept per index
TOKEN_CACHE_SIZE = 200_000
"""Distinct tokens whose vocabulary id an index remembers (questions repeat their words)."""
REBUILD = "rebuild the snapshot"


@dataclass(frozen=True)
class TermScores:
    """Each indexed term of a query scored for a set of nodes, to score its sub-queries.

    A question and the question without one of its phrases share their terms: their BM25
    scores for the same nodes are sums of the same per-term rows (`BM25Index.term_scores`).

    Attributes:
        nodes: Ascending distinct internal ids.
        rows: Vocabulary id -> float32 contributions aligned with `nodes` (terms with
            postings only).
        terms: The query's distinct indexed terms, in query order.
    """

    nodes: np.ndarray
    rows: dict[int, np.ndarray]
    terms: tuple[int, ...]

    def whole(self, nodes: np.ndarray) -> np.ndarray:
        """The BM25 of the whole query for `nodes` (each among `self.nodes`)."""
        return self._summed(self.terms, nodes)

    def total(self, terms: Sequence[int], nodes: np.ndarray) -> np.ndarray | None:
        """The BM25 of `terms` (a sub-query's) for `nodes` (each among `self.nodes`).

        None when a term is not among the query's (then score the text itself).

        Raises:
            GraphError: A node is not among `self.nodes`.
        """
        if any(term not in self.terms for term in terms):
            return None
        return self._summed(terms, nodes)

    def _summed(self, terms: Sequence[int], nodes: np.ndarray) -> np.ndarray:
        wanted = np.asarray(nodes, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.nodes, wanted), max(len(self.nodes) - 1, 0))
        if wanted.size and (not self.nodes.size or (self.nodes[at] != wanted).any()):
            raise GraphError("TermScores: a node was not scored; pass nodes of the table")
        scores = np.zeros(len(at), np.float32)
        for term in terms:
            row = self.rows.get(term)
            if row is not None:
                scores += row[at]
        return scores


class BM25Index:
    """A read-only BM25 index over each node's document (its name and text).

    ``search`` ranks all nodes (exact top k: rare terms first, then the few nodes that can
    still win completed, or one dense pass; graphs/bm25/kernels.py); ``score_nodes`` scores a
    given node set with the same postings and statistics, so both give a node the same score.
    Queries are analysed with the analyzer the index was built with
    (:attr:`analyzer`) and scored with its BM25 parameters (:attr:`params`).

    Attributes:
        path: The index directory.
        num_docs: Number of indexed nodes (internal ids ``0 .. num_docs - 1``).
        meta: The ``meta`` strings given to :func:`build_index` (e.g. a content hash).
        analyzer: The index's analyzer name (see :data:`graphs.bm25.tokenize.ANALYZERS`).
        tokenizer: That analyzer, for anything that must see text as the index does.
        params: The index's BM25 formula.
    """

    def __init__(self, index_dir: Path, info: dict[str, Any]) -> None:
        self.path = index_dir
        self.num_docs: int = info["num_docs"]
        self.meta: dict[str, str] = info["meta"]
        self.analyzer = str(info["analyzer"])
        self.tokenizer = Tokenizer(self.analyzer)
        self.params = BM25Params.from_meta(info)
        postings = FieldPostings.load(index_dir, INDEX_FIELD, info["total_tokens"][INDEX_FIELD])
        impacts = _load(posting_file(index_dir, INDEX_FIELD, "impacts"))
        maxima = _load(posting_file(index_dir, INDEX_FIELD, "maxima"))
        self._vocab = load_vocab(index_dir)
        self._types = _load(index_dir / TYPES_FILE)
        self._type_codes = len(info["type_counts"])  # codes in use are below this
        check_index(
            self.num_docs, postings, impacts, maxima, self._vocab, self._types, self._type_codes
        )
        self._arrays = (postings, impacts, maxima)
        self._scorer = BM25Scorer(
            postings, impacts, maxima, boost=float(info["boosts"][INDEX_FIELD]), params=self.params
        )
        # A neighbors or search call parses its query twice (to score, then for snippets), and
        # agents repeat queries: the parse is cached per index (thread-safe, immutable result).
        self._parsed = functools.lru_cache(maxsize=QUERY_CACHE_SIZE)(self._parse_query)
        self._token_ids: dict[str, int] = {}
        self._token_limit = TOKEN_CACHE_SIZE

    @classmethod
    def open(cls, index_dir: Path) -> BM25Index:
        """Open an index written by :func:`graphs.bm25.build.build_index`; never rebuilds.

        Its arrays' structure is checked first (:func:`check_index`), so a damaged file is an
        error here rather than a crash in the compiled scoring loops.

        Raises:
            SnapshotError: If the directory is not a BM25 index of the current format, or a
                file is missing, unreadable or inconsistent.
        """
        meta_path = Path(index_dir) / META_FILE
        try:
            info = json.loads(meta_path.read_text())
        except (OSError, ValueError) as error:
            raise SnapshotError(
                f"cannot read BM25 index metadata {meta_path} ({error}); {REBUILD}"
            ) from error
        version = info.get("format_version") if isinstance(info, dict) else None
        if version != INDEX_FORMAT_VERSION:
            raise SnapshotError(
                f"BM25 index {index_dir} has format version {version}, this ARK reads version "
                f"{INDEX_FORMAT_VERSION} only; {REBUILD}"
            )
        try:
            return cls(Path(index_dir), info)
        except (OSError, ValueError, KeyError, TypeError, GraphError) as error:
            raise SnapshotError(
                f"BM25 index {index_dir} is incomplete or corrupt ({error}); {REBUILD}"
            ) from error

    def check_fully(self) -> None:
        """Check the invariants open leaves out: orders, frequencies, stored impacts and maxima.

        Raises:
            SnapshotError: one does not hold (the message names the file).
        """
        postings, impacts, maxima = self._arrays
        try:
            check_index_fully(postings, impacts, maxima, self._vocab, self.params)
        except SnapshotError as error:
            raise SnapshotError(f"BM25 index {self.path}: {error}") from error

    @property
    def node_types(self) -> np.ndarray:
        """Every node's type code (int16), as the type filters read it."""
        return self._types

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` exactly as the index sees them (analysed, duplicates kept)."""
        return self.tokenizer.tokenize(text)

    def matched_terms(self, query: str) -> list[str]:
        """Distinct query tokens that occur in some node's document, in query order."""
        return [token for token, _ in self._query_terms(query)]

    def doc_freqs(self, terms: Sequence[str]) -> list[int]:
        """How many nodes hold each index token in their document (0 when none).

        A cheap rarity measure (the idf order of the terms), e.g. to pick the most informative
        match for a snippet.
        """
        return [0 if term < 0 else self._scorer.doc_freq(term) for term in self._ids(terms)]

    def holding_all(self, text: str) -> np.ndarray:
        """Ascending internal ids of the nodes whose document holds every token of `text`.

        `text` is analysed like a query; empty when it has a token no node holds, or none.

        How often a name's words occur together across the graph's text: a name whose words
        many documents hold is used there as words, not only as the name.
        """
        ids = self._ids(self.tokenizer.query_tokens(text))
        if not ids or min(ids) < 0:
            return np.empty(0, np.int64)
        return self._scorer.holding_all(ids)

    def _ids(self, tokens: Sequence[str]) -> list[int]:
        """The vocabulary id of each token (-1: no document holds it).

        Remembered per token, the unknown ones too, until `TOKEN_CACHE_SIZE` tokens are
        (then tokens not yet remembered are looked up each time). Entries are only added, so
        threads sharing the index read it safely (two may add past the limit by a few).
        """
        known = self._token_ids
        missing = [token for token in dict.fromkeys(tokens) if token not in known]
        if not missing:
            return [known[token] for token in tokens]
        found = dict(zip(missing, term_ids(self._vocab, missing).tolist(), strict=True))
        for token in missing[: max(self._token_limit - len(known), 0)]:
            known[token] = found[token]
        return [known[token] if token in known else found[token] for token in tokens]

    def _query_terms(self, query: str) -> tuple[tuple[str, int], ...]:
        """(token, vocabulary id) of each distinct indexed query token, in query order."""
        return self._parsed(query)

    def _parse_query(self, query: str) -> tuple[tuple[str, int], ...]:
        tokens = self.tokenizer.query_tokens(query)
        ids = self._ids(tokens)
        terms = [(token, term) for token, term in zip(tokens, ids, strict=True) if term >= 0]
        if len(terms) > MAX_QUERY_TERMS:
            logger.warning(
                "query has %d distinct indexed terms; only the first %d are used",
                len(terms),
                MAX_QUERY_TERMS,
            )
            terms = terms[:MAX_QUERY_TERMS]
        return tuple(terms)

    def search(
        self, query: str, k: int, *, node_types: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rank all nodes by BM25 of ``query`` and return the top ``k``.

        The query is analysed like the indexed text (never parsed as query syntax), repeated
        tokens count once, and a node scores the sum over tokens of their BM25 in its document.

        Args:
            query: Any text; empty or punctuation-only text gives an empty result.
            k: Number of results wanted (0 gives an empty result).
            node_types: Keep only nodes of these type codes; None or empty means all types.

        Returns:
            Internal ids (int64) and scores (float32), best first; equal scores are ordered by
            lower id first.

        Raises:
            GraphError: If ``k`` is negative or a type code is outside ``[0, 32767]``.
        """
        if k < 0:
            raise GraphError(f"k must be >= 0, got {k}")
        allowed = self._allowed_types(node_types)
        terms = [term for _, term in self._query_terms(query)]
        if not terms or k == 0 or (allowed.size and not allowed.any()):
            return np.empty(0, np.int64), np.empty(0, np.float32)
        return self._scorer.top_k(terms, min(k, self.num_docs), allowed, self._types)

    def _allowed_types(self, node_types: Sequence[int] | None) -> np.ndarray:
        """Booleans by type code for a filter (empty: no filter)."""
        if not node_types:
            return np.zeros(0, dtype=bool)
        codes = sorted({int(code) for code in node_types})
        if codes[0] < 0 or codes[-1] > np.iinfo(np.int16).max:
            raise GraphError(f"node type codes must lie in [0, 32767], got {codes}")
        allowed = np.zeros(max(codes[-1] + 1, self._type_codes), dtype=bool)
        allowed[codes] = True
        return allowed

    def _checked(self, nodes: np.ndarray) -> np.ndarray:
        """`nodes` as an array, checked to be a 1-D array of internal ids.

        Raises:
            GraphError: Naming what is wrong (the dtype and shape, or the id range).
        """
        nodes = np.asarray(nodes)
        if nodes.ndim != 1 or (nodes.size and not np.issubdtype(nodes.dtype, np.integer)):
            raise GraphError(
                f"nodes must be a 1-D array of integer internal ids, got {nodes.dtype} "
                f"with shape {nodes.shape}"
            )
        if nodes.size and (nodes.min() < 0 or nodes.max() >= self.num_docs):
            raise GraphError(
                f"node ids must lie in [0, {self.num_docs}); got {nodes.min()}..{nodes.max()}"
            )
        return nodes

    def query_terms(self, query: str) -> tuple[int, ...]:
        """The vocabulary ids of the query's distinct indexed tokens, in query order.

        What :meth:`search` and :meth:`score_nodes` score.
        """
        return tuple(term for _, term in self._query_terms(query))

    def term_scores(self, query: str, nodes: np.ndarray) -> TermScores:
        """Each of the query's terms scored for `nodes` once (`TermScores`).

        `TermScores.total` of the query's own terms, or of a sub-query's, equals
        :meth:`score_nodes` of that text for those nodes, to the bit.
        """
        distinct = np.unique(self._checked(nodes))
        terms = self.query_terms(query)
        rows = self._scorer.term_rows(list(terms), distinct) if distinct.size and terms else {}
        return TermScores(distinct, rows, terms)

    def score_nodes(self, query: str, nodes: np.ndarray) -> np.ndarray:
        """BM25 of ``query`` for each given node: the score :meth:`search` gives it.

        Equal up to float32 rounding (the two add the terms in different orders).

        Args:
            query: Any text, tokenised as in :meth:`search`.
            nodes: Internal node ids (any order, repeats allowed).

        Returns:
            float32 scores aligned with ``nodes`` (0 for nodes matching no query token).

        Raises:
            GraphError: If ``nodes`` is not a 1-D integer array or an id is outside
                ``[0, num_docs)``.
        """
        nodes = self._checked(nodes)
        terms = [term for _, term in self._query_terms(query)]
        if not nodes.size or not terms:
            return np.zeros(nodes.size, dtype=np.float32)
        if nodes.size == 1 or bool((nodes[1:] > nodes[:-1]).all()):
            return self._scorer.score(terms, nodes.astype(np.int64))
        # neighbour lists are runs of sorted ids: a stable sort (timsort) is fastest on them
        order = np.argsort(nodes, kind="stable")
        ordered = nodes[order]
        first = np.empty(ordered.size, dtype=bool)
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        distinct_scores = self._scorer.score(terms, ordered[first].astype(np.int64))
        scores = np.empty(nodes.size, dtype=np.float32)
        scores[order] = distinct_scores[np.cumsum(first) - 1]
        return scores
