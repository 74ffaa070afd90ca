"""BM25 index of a snapshot: exact top-k over all nodes and scores of any node set, one formula."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphs.bm25.build import (
    LEGACY_BOOSTS,
    META_FILE,
    READABLE_VERSIONS,
    TYPES_FILE,
    build_index,
    index_analyzer,
)
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings, load_vocab, term_ids
from graphs.bm25.scorer import BM25Scorer
from graphs.bm25.tokenize import Tokenizer
from graphs.errors import GraphError, SnapshotError

__all__ = ["MAX_QUERY_TERMS", "BM25Index", "build_index"]

logger = logging.getLogger(__name__)

MAX_QUERY_TERMS = 256
QUERY_CACHE_SIZE = 256  # parsed queries kept per index
"""Queries keep at most this many distinct indexed terms (the rest are logged and ignored)."""


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
        params: The index's BM25 formula (tantivy's for indexes before format 3).
    """

    def __init__(self, index_dir: Path, info: dict[str, Any]) -> None:
        self.path = index_dir
        self.num_docs: int = info["num_docs"]
        self.meta: dict[str, str] = info["meta"]
        self.analyzer = index_analyzer(info)
        self.tokenizer = Tokenizer(self.analyzer)
        self.params = BM25Params.from_meta(info)
        boosts = info.get("boosts", LEGACY_BOOSTS)
        fields = {
            str(field): (
                FieldPostings.load(index_dir, field, info["total_tokens"][field]),
                float(boost),
            )
            for field, boost in boosts.items()
        }
        self._vocab = load_vocab(index_dir)
        self._scorer = BM25Scorer(index_dir, fields, self.num_docs, self.params)
        self._types = np.asarray(np.load(index_dir / TYPES_FILE, mmap_mode="r"))
        self._type_codes = len(info["type_counts"])  # codes in use are below this
        # A neighbors or search call parses its query twice (to score, then for snippets), and
        # agents repeat queries: the parse is cached per index (thread-safe, immutable result).
        self._parsed = functools.lru_cache(maxsize=QUERY_CACHE_SIZE)(self._parse_query)

    @classmethod
    def open(cls, index_dir: Path) -> BM25Index:
        """Open an index written by :func:`build_index`; never rebuilds anything.

        Raises:
            SnapshotError: If the directory is not a BM25 index of this format version.
        """
        meta_path = Path(index_dir) / META_FILE
        try:
            info = json.loads(meta_path.read_text())
        except (OSError, ValueError) as error:
            raise SnapshotError(
                f"cannot read BM25 index metadata {meta_path} ({error}); rebuild the snapshot"
            ) from error
        if info.get("format_version") not in READABLE_VERSIONS:
            raise SnapshotError(
                f"BM25 index {index_dir} has format version {info.get('format_version')}, "
                f"this ARK reads versions {READABLE_VERSIONS}; rebuild the snapshot"
            )
        try:
            return cls(Path(index_dir), info)
        except (OSError, ValueError, KeyError, GraphError) as error:
            raise SnapshotError(
                f"BM25 index {index_dir} is incomplete or corrupt ({error}); rebuild the snapshot"
            ) from error

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` exactly as the index sees them (analysed, duplicates kept)."""
        return self.tokenizer.tokenize(text)

    def matched_terms(self, query: str) -> list[str]:
        """Distinct query tokens that occur in some node's document, in query order."""
        return [token for token, _ in self._query_terms(query)]

    def doc_freqs(self, terms: Sequence[str]) -> list[int]:
        """How many nodes hold each index token in their document (0 when none).

        A cheap rarity measure (the idf order of the terms), e.g. to pick the most informative
        match for a snippet. (Indexes of format 1: the larger of its two fields' counts.)
        """
        ids = term_ids(self._vocab, list(terms))
        return [0 if term < 0 else self._scorer.doc_freq(int(term)) for term in ids.tolist()]

    def _query_terms(self, query: str) -> tuple[tuple[str, int], ...]:
        """(token, vocabulary id) of each distinct indexed query token, in query order."""
        return self._parsed(query)

    def _parse_query(self, query: str) -> tuple[tuple[str, int], ...]:
        tokens = self.tokenizer.query_tokens(query)
        ids = term_ids(self._vocab, tokens).tolist()
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
        tokens count once, and a node scores the sum over tokens of their BM25 in its document
        (indexes of format 1: ``2 × BM25(name) + BM25(text)``).

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

    def score_nodes(self, query: str, nodes: np.ndarray) -> np.ndarray:
        """BM25 of ``query`` for each given node, equal to the score :meth:`search` gives it.

        Args:
            query: Any text, tokenised as in :meth:`search`.
            nodes: Internal node ids (any order, repeats allowed).

        Returns:
            float32 scores aligned with ``nodes`` (0 for nodes matching no query token).

        Raises:
            GraphError: If ``nodes`` is not a 1-D integer array or an id is outside
                ``[0, num_docs)``.
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
