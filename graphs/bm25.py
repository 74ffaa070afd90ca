"""BM25 index of a snapshot: tantivy for global search, numpy postings to score any node set."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from graphs.bm25_build import (
    LEGACY_BOOSTS,
    META_FILE,
    READABLE_VERSIONS,
    TANTIVY_DIR,
    TYPES_FILE,
    build_index,
    index_analyzer,
)
from graphs.errors import GraphError, SnapshotError
from graphs.postings import PostingsScorer
from graphs.tokenize import Tokenizer

__all__ = ["MAX_QUERY_TERMS", "BM25Index", "build_index"]

logger = logging.getLogger(__name__)

MAX_QUERY_TERMS = 256
"""Queries keep at most this many distinct indexed terms (the rest are logged and ignored)."""
MIN_POST_FILTER_SHARE = 0.05
"""Type filters keeping at least this share of nodes are applied after an unfiltered search."""


class BM25Index:
    """A read-only BM25 index over each node's document (its name and text).

    ``search`` ranks all nodes with tantivy; ``score_nodes`` scores a given node set from numpy
    postings with the same statistics (document count, document frequencies, average field
    lengths, quantised field lengths), so both give the same score to a node. Queries are
    analysed with the analyzer the index was built with (:attr:`analyzer`).

    Attributes:
        path: The index directory.
        num_docs: Number of indexed nodes (internal ids ``0 .. num_docs - 1``).
        meta: The ``meta`` strings given to :func:`build_index` (e.g. a content hash).
        analyzer: The index's analyzer name (see :data:`graphs.tokenize.ANALYZERS`).
        tokenizer: That analyzer, for anything that must see text as the index does.
    """

    def __init__(self, index_dir: Path, info: dict[str, Any]) -> None:
        self.path = index_dir
        self.num_docs: int = info["num_docs"]
        self.meta: dict[str, str] = info["meta"]
        self.analyzer = index_analyzer(info)
        self.tokenizer = Tokenizer(self.analyzer)
        self._boosts: dict[str, float] = {
            str(field): float(boost) for field, boost in info.get("boosts", LEGACY_BOOSTS).items()
        }
        self._index = tantivy.Index.open(str(index_dir / TANTIVY_DIR))
        self._schema = self._index.schema
        self._searcher = self._index.searcher()
        self._postings = PostingsScorer.load(index_dir, info["total_tokens"], self.num_docs)
        self._types = np.asarray(np.load(index_dir / TYPES_FILE, mmap_mode="r"))
        self._type_counts: list[int] = info["type_counts"]

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
        freqs = []
        for token in terms:
            term = self._postings.term_id(token)
            freqs.append(
                0
                if term is None
                else max(self._postings.doc_freq(field, term) for field in self._boosts)
            )
        return freqs

    def _query_terms(self, query: str) -> list[tuple[str, int]]:
        terms = []
        for token in self.tokenizer.query_tokens(query):
            term = self._postings.term_id(token)
            if term is not None:
                terms.append((token, term))
        if len(terms) > MAX_QUERY_TERMS:
            logger.warning(
                "query has %d distinct indexed terms; only the first %d are used",
                len(terms),
                MAX_QUERY_TERMS,
            )
            terms = terms[:MAX_QUERY_TERMS]
        return terms

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
        codes = self._checked_types(node_types)
        terms = self._query_terms(query)
        share = 1.0 if codes is None else self._type_share(codes)
        if not terms or k == 0 or share == 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        query_object = self._tantivy_query(terms)
        if codes is None:
            return self._exact_top(query_object, k)
        if share >= MIN_POST_FILTER_SHARE:
            # unfiltered top-n, then the type check: keeps block-max WAND, a filter clause not
            limit = min(int((k + 16) / share * 1.5), self.num_docs)
            found = self._top(query_object, k, limit, codes, max_limit=limit * 16)
            if found is not None:
                return found
        # a bare filter clause would add 1.0 to every score; the wrapper makes it score 0
        type_filter = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(self._schema, "type", codes), 0.0
        )
        filtered = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, type_filter), (tantivy.Occur.Must, query_object)]
        )
        return self._exact_top(filtered, k)

    def _exact_top(self, query: tantivy.Query, k: int) -> tuple[np.ndarray, np.ndarray]:
        found = self._top(query, k, min(k + 16, self.num_docs), None, max_limit=self.num_docs)
        if found is None:  # cannot happen: a search for num_docs hits returns every hit
            raise RuntimeError("tantivy returned fewer hits than the index holds")
        return found

    def _top(
        self,
        query: tantivy.Query,
        k: int,
        limit: int,
        codes: list[int] | None,
        *,
        max_limit: int,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact top k of ``query`` among nodes of ``codes`` (None: all), lower id first on ties.

        Fetches ``limit`` hits, widening while the k-th kept score equals the lowest fetched
        score (an equal or better node may lie beyond the cut); None once past ``max_limit``.
        """
        while True:
            hits = self._searcher.search(query, limit, count=False).hits
            scores = np.array([score for score, _ in hits], dtype=np.float32)
            ids = np.array(
                self._searcher.fast_field_values("node_id", [address for _, address in hits]),
                dtype=np.int64,
            )
            exhausted = len(hits) < limit or limit >= self.num_docs
            lowest = scores[-1] if scores.size else np.float32(0)
            if codes is not None:
                keep = np.isin(self._types[ids], codes)
                ids, scores = ids[keep], scores[keep]
            if exhausted or (scores.size >= k and scores[k - 1] > lowest):
                order = np.lexsort((ids, -scores))[:k]
                return ids[order], scores[order]
            if limit >= max_limit:
                return None
            limit = min(limit * 4, self.num_docs)

    def _checked_types(self, node_types: Sequence[int] | None) -> list[int] | None:
        if not node_types:
            return None
        codes = sorted({int(code) for code in node_types})
        if codes[0] < 0 or codes[-1] > np.iinfo(np.int16).max:
            raise GraphError(f"node type codes must lie in [0, 32767], got {codes}")
        return codes

    def _type_share(self, codes: list[int]) -> float:
        counts = self._type_counts
        total = sum(counts[code] for code in codes if code < len(counts))
        return total / self.num_docs if self.num_docs else 0.0

    def _tantivy_query(self, terms: list[tuple[str, int]]) -> tantivy.Query:
        clauses = []
        for token, term in terms:
            for field, boost in self._boosts.items():
                if self._postings.doc_freq(field, term):
                    clause = tantivy.Query.term_query(self._schema, field, token)
                    if boost != 1.0:
                        clause = tantivy.Query.boost_query(clause, boost)
                    clauses.append((tantivy.Occur.Should, clause))
        return tantivy.Query.boolean_query(clauses)

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
            return self._postings.score(terms, nodes.astype(np.int32), self._boosts)
        # neighbour lists are runs of sorted ids: a stable sort (timsort) is fastest on them
        order = np.argsort(nodes, kind="stable")
        ordered = nodes[order]
        first = np.empty(ordered.size, dtype=bool)
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        distinct_scores = self._postings.score(terms, ordered[first].astype(np.int32), self._boosts)
        scores = np.empty(nodes.size, dtype=np.float32)
        scores[order] = distinct_scores[np.cumsum(first) - 1]
        return scores
