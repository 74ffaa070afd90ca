"""BM25 over an index's postings: the exact top k of all nodes, and the scores of any node set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from queue import Empty, SimpleQueue

import numpy as np

from graphs.bm25 import kernels as bm25_kernels
from graphs.bm25.bitmaps import PostingBitmaps
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings

IMPACTS_SUFFIX = ".impacts.npy"
"""Every posting's ``tf / (tf + k1 * (1 - b + b * dl / avgdl))`` of a field, written at build
(computed once per open for indexes before format 3)."""
MAXIMA_SUFFIX = ".maxima.npy"
"""Per-term largest impact of a field, written at build (else computed once per open)."""


@dataclass(frozen=True)
class QueryEntries:
    """The (term, field) pairs a query matches, ready for the compiled loops.

    Attributes:
        starts: Postings start of each entry in the concatenated postings (int64).
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
    """Scores queries of term ids against the postings of one or more boosted fields.

    Args:
        index_dir: The index directory (impact and maxima files are read from it when present).
        fields: Each field's postings, with its boost (indexes of format 1 have two fields).
        num_docs: Number of documents.
        params: The BM25 formula (see :class:`BM25Params`).
    """

    def __init__(
        self,
        index_dir: Path,
        fields: Mapping[str, tuple[FieldPostings, float]],
        num_docs: int,
        params: BM25Params,
    ) -> None:
        self.num_docs = num_docs
        self.params = params
        self._fields = dict(fields)
        self._names = list(self._fields)
        self._weights = {
            name: params.term_weights(np.diff(postings.indptr), num_docs) * np.float32(boost)
            for name, (postings, boost) in self._fields.items()
        }
        # postings of every field back to back, so one entry is a (start, end) range
        offsets = np.cumsum([0] + [postings.docs.size for postings, _ in self._fields.values()])
        self._offsets = dict(zip(self._names, offsets[:-1].tolist(), strict=True))
        if len(self._fields) == 1:
            self._docs = next(iter(self._fields.values()))[0].docs
        else:  # format 1 only: a copy at open
            self._docs = np.concatenate([p.docs for p, _ in self._fields.values()])
        # score accumulators, all zeros between queries; one per concurrent query
        self._buffers: SimpleQueue[np.ndarray] = SimpleQueue()
        # written at build since format 3: mapped now, so a damaged file fails at open
        self._stored = {
            suffix: {name: _mapped(index_dir / f"{name}{suffix}") for name in self._names}
            for suffix in (IMPACTS_SUFFIX, MAXIMA_SUFFIX)
        }

    def _field_impacts(self, name: str) -> np.ndarray:
        stored = self._stored[IMPACTS_SUFFIX][name]
        if stored is not None:
            return stored
        postings = self._fields[name][0]
        factors = self.params.length_factors(postings.lengths, postings.total_tokens, self.num_docs)
        return bm25_kernels.posting_impacts(postings.docs, postings.tf, factors)

    @cached_property
    def _impacts(self) -> np.ndarray:
        """Every posting's impact, fields back to back like :attr:`_docs`."""
        parts = [self._field_impacts(name) for name in self._names]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    @cached_property
    def _maxima(self) -> dict[str, np.ndarray]:
        maxima = {}
        for name, (postings, _) in self._fields.items():
            stored = self._stored[MAXIMA_SUFFIX][name]
            if stored is not None:
                maxima[name] = stored
            else:
                offset = self._offsets[name]
                impacts = self._impacts[offset : offset + postings.docs.size]
                maxima[name] = bm25_kernels.term_maxima(postings.indptr, impacts)
        return maxima

    def doc_freq(self, term: int) -> int:
        """Nodes holding the term in some field (the largest count over fields)."""
        return max(postings.doc_freq(term) for postings, _ in self._fields.values())

    def entries(self, terms: Sequence[int]) -> QueryEntries:
        """The (term, field) entries with postings, for distinct vocabulary ids ``terms``."""
        ids = np.asarray(terms, dtype=np.int64)
        parts = []
        for name, (postings, _) in self._fields.items():
            starts, ends = postings.indptr[ids], postings.indptr[ids + 1]
            held = ends > starts
            weights = self._weights[name][ids[held]]
            parts.append(
                (
                    starts[held] + self._offsets[name],
                    ends[held] + self._offsets[name],
                    weights,
                    weights * self._maxima[name][ids[held]],
                )
            )
        if len(parts) == 1:
            return QueryEntries(*parts[0])
        return QueryEntries(*(np.concatenate(column) for column in zip(*parts, strict=True)))

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
            if self._bitmaps.wanted(start, end, nodes.size):
                bits, ranks = self._bitmaps.get(start, end)
                bm25_kernels.add_bitmap_scores(
                    bits, ranks, start, weight, self._impacts, nodes, scores
                )
            else:
                bm25_kernels.add_entry_scores(
                    start, end, weight, self._docs, self._impacts, nodes, scores
                )
        return scores

    @cached_property
    def _bitmaps(self) -> PostingBitmaps:
        return PostingBitmaps(self._docs, self.num_docs)


def _mapped(path: Path) -> np.ndarray | None:
    """The memory-mapped array at ``path``, or None when the index has no such file."""
    return np.asarray(np.load(path, mmap_mode="r")) if path.is_file() else None
