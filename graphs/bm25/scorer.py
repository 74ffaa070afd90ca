"""BM25 over an index's postings: the exact top k of all nodes, and the scores of any node set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from queue import Empty, SimpleQueue

import numpy as np

from graphs.bm25 import kernels as bm25_kernels
from graphs.bm25.bitmaps import PostingBitmaps
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings


@dataclass(frozen=True)
class QueryEntries:
    """The terms a query matches, ready for the compiled loops.

    Attributes:
        starts: Postings start of each entry (int64).
        ends: Postings end of each entry (int64).
        weights: ``boost * (k1 + 1) * idf`` of each entry (float32).
        uppers: Largest gain each entry can give a document (float32).
    """

    starts: np.ndarray
    ends: np.ndarray
    weights: np.ndarray
    uppers: np.ndarray

    def by_upper_descending(self) -> QueryEntries:
        """The same entries, largest possible gain first (contiguous arrays)."""
        order = np.argsort(-self.uppers, kind="stable")
        return QueryEntries(
            self.starts[order], self.ends[order], self.weights[order], self.uppers[order]
        )


class BM25Scorer:
    """Scores queries of term ids against the postings of the index's field.

    The index's structure (postings ids below ``num_docs``, offsets within the postings) is
    checked before this is built (graphs/bm25/index.py): the compiled loops trust it.

    Args:
        postings: The field's postings.
        impacts: Every posting's ``tf / (tf + k1 * (1 - b + b * dl / avgdl))`` (float32),
            written at build.
        maxima: Every term's largest impact (float32), written at build.
        boost: The field's weight.
        params: The BM25 formula (see :class:`BM25Params`).
    """

    def __init__(
        self,
        postings: FieldPostings,
        impacts: np.ndarray,
        maxima: np.ndarray,
        *,
        boost: float,
        params: BM25Params,
    ) -> None:
        self.num_docs = len(postings.lengths)
        self.params = params
        self._postings = postings
        self._docs = postings.docs
        self._impacts = impacts
        self._maxima = maxima
        self._weights = params.term_weights(np.diff(postings.indptr), self.num_docs) * np.float32(
            boost
        )
        # score accumulators, all zeros between queries; one per concurrent query
        self._buffers: SimpleQueue[np.ndarray] = SimpleQueue()

    def doc_freq(self, term: int) -> int:
        """Nodes holding the term."""
        return self._postings.doc_freq(term)

    def holding_all(self, terms: Sequence[int]) -> np.ndarray:
        """Ascending ids (int64) of the nodes whose document holds every term (none: empty)."""
        if not terms:
            return np.empty(0, np.int64)
        indptr = self._postings.indptr
        ids = sorted({int(t) for t in terms}, key=lambda t: int(indptr[t + 1] - indptr[t]))
        held = self._docs[indptr[ids[0]] : indptr[ids[0] + 1]]
        for term in ids[1:]:  # the rarest term's documents looked up in each longer list
            docs = self._docs[indptr[term] : indptr[term + 1]]
            if not held.size or not docs.size:
                return np.empty(0, np.int64)
            at = np.minimum(np.searchsorted(docs, held), docs.size - 1)
            held = held[docs[at] == held]
        return held.astype(np.int64)

    def entries(self, terms: Sequence[int]) -> QueryEntries:
        """The entries with postings, for distinct vocabulary ids ``terms``."""
        ids = np.asarray(terms, dtype=np.int64)
        starts, ends = self._postings.indptr[ids], self._postings.indptr[ids + 1]
        held = ends > starts
        weights = self._weights[ids[held]]
        return QueryEntries(starts[held], ends[held], weights, weights * self._maxima[ids[held]])

    def top_k(
        self, terms: Sequence[int], k: int, allowed: np.ndarray, types: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact top ``k`` (> 0) nodes for the terms, best first, lower id first on ties.

        Args:
            terms: Distinct vocabulary ids.
            k: Results wanted.
            allowed: Booleans indexed by type code (empty: every type).
            types: Every node's type code.
        """
        entries = self.entries(terms).by_upper_descending()
        try:
            scores = self._buffers.get_nowait()
        except Empty:
            scores = np.zeros(self.num_docs, np.float32)
        try:
            ids, top = bm25_kernels.top_k(
                entries.starts,
                entries.ends,
                entries.weights,
                entries.uppers,
                self._docs,
                self._impacts,
                k,
                allowed,
                types,
                scores,
            )
        except BaseException:
            scores[:] = 0
            raise
        finally:
            self._buffers.put(scores)  # all zeros again: ready for the next query
        order = np.lexsort((ids, -top))
        return ids[order], top[order]

    def score(self, terms: Sequence[int], nodes: np.ndarray) -> np.ndarray:
        """BM25 of the terms for each of ``nodes`` (ascending, distinct int64 ids).

        Entries are added in query order; a posting list holding a large share of all nodes is
        read through its bitmap (:class:`PostingBitmaps`), any other one searched directly.
        """
        entries = self.entries(terms)
        scores = np.zeros(nodes.size, np.float32)
        for start, end, weight in zip(
            entries.starts.tolist(), entries.ends.tolist(), entries.weights, strict=True
        ):
            self._add_entry(start, end, weight, nodes, scores)
        return scores

    def _add_entry(
        self, start: int, end: int, weight: float, nodes: np.ndarray, scores: np.ndarray
    ) -> None:
        """Add one entry's BM25 to `scores` of `nodes`, from its bitmap or its postings."""
        if self._bitmaps.wanted(start, end, nodes.size):
            bits, ranks = self._bitmaps.get(start, end)
            bm25_kernels.add_bitmap_scores(bits, ranks, start, weight, self._impacts, nodes, scores)
        else:
            bm25_kernels.add_entry_scores(
                start, end, weight, self._docs, self._impacts, nodes, scores
            )

    def term_rows(self, terms: Sequence[int], nodes: np.ndarray) -> dict[int, np.ndarray]:
        """Each term's BM25 contribution for ``nodes`` (ascending, distinct int64 ids).

        Summing the rows of a query's terms in its order gives exactly what :meth:`score`
        gives (float32, the same additions in the same order); terms with no postings have
        no row.
        """
        entries = self.entries(terms)
        held = [int(t) for t in terms if self._postings.indptr[t + 1] > self._postings.indptr[t]]
        rows: dict[int, np.ndarray] = {}
        for term, start, end, weight in zip(
            held, entries.starts.tolist(), entries.ends.tolist(), entries.weights, strict=True
        ):
            row = np.zeros(nodes.size, np.float32)
            self._add_entry(start, end, weight, nodes, row)
            rows[term] = row
        return rows

    @cached_property
    def _bitmaps(self) -> PostingBitmaps:
        return PostingBitmaps(self._docs, self.num_docs)
