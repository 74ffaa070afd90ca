"""The k-way merge of spilled segments into one index's vocabulary, postings and impacts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.bm25 import kernels as bm25_kernels
from graphs.bm25.segments import SegmentFiles, SegmentReader
from graphs.build.stream.npyfile import NpyAppender, RawAppender
from graphs.layout import IMPACTS_SUFFIX, MAXIMA_SUFFIX, VOCAB_FILE, posting_file
from graphs.layout import INDEX_FIELD as FIELD

BYTES_PER_MERGED_POSTING = 48
"""Estimated peak bytes of a posting in a merge block (read, sorted, cast, its impact)."""

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class MergeTargets:
    """Where the merge writes: arrays of a length known up front, and the others."""

    vocab: RawAppender
    indptr: RawAppender
    maxima: RawAppender
    docs: NpyAppender
    tf: NpyAppender
    impacts: NpyAppender


@dataclass
class _Part:
    """One segment's share of a block: its terms' block-local ids and doc counts."""

    reader: SegmentReader
    ids: np.ndarray
    counts: np.ndarray


class SegmentMerger:
    """Merges segments (of consecutive doc ranges, in doc order) block of terms by block.

    A block holds the terms up to the smallest last buffered term of any segment, so every
    segment's share of it is buffered; its postings are written in runs of at most
    ``posting_budget``, a term with more postings than that in pieces.
    """

    def __init__(
        self,
        targets: MergeTargets,
        factors: np.ndarray,
        *,
        posting_budget: int,
        progress: Progress | None,
    ) -> None:
        self._out = targets
        self._factors = factors
        self._budget = max(posting_budget, 1)
        self._progress = progress
        self._written = 0

    def merge(self, segments: list[SegmentFiles], term_buffer: int) -> None:
        """Merge ``segments`` into the targets (which receive every value)."""
        readers = [SegmentReader(segment, term_buffer) for segment in segments]
        self._out.indptr.append(np.zeros(1, np.int64))
        while active := [reader for reader in readers if reader.refill()]:
            last = min(reader.keys[-1] for reader in active)
            self._merge_block([(reader, *reader.take_through(last)) for reader in active])

    def _merge_block(self, shares: list[tuple[SegmentReader, np.ndarray, np.ndarray]]) -> None:
        keys = np.concatenate([keys for _, keys, _ in shares])
        unique, inverse = np.unique(keys, return_inverse=True)
        counts = np.concatenate([counts for _, _, counts in shares])
        term_counts = np.bincount(inverse, weights=counts, minlength=unique.size).astype(np.int64)
        del keys, counts
        parts, start = [], 0
        for reader, keys, counts in shares:
            parts.append(_Part(reader, inverse[start : start + keys.size], counts))
            start += keys.size
        self._out.vocab.append(unique)
        self._out.indptr.append(self._written + np.cumsum(term_counts))
        ends = np.cumsum(term_counts)
        first = 0
        while first < unique.size:
            before = int(ends[first - 1]) if first else 0
            stop = int(np.searchsorted(ends, before + self._budget, side="right"))
            if stop <= first:
                self._write_large_term(parts, first)
                stop = first + 1
            else:
                self._write_terms(parts, first, stop, term_counts[first:stop])
            first = stop

    def _write_terms(self, parts: list[_Part], first: int, stop: int, counts: np.ndarray) -> None:
        docs, tfs, terms = [], [], []
        for part in parts:
            low, high = np.searchsorted(part.ids, (first, stop))
            size = int(part.counts[low:high].sum())
            if size:
                doc, tf = part.reader.postings(size)
                docs.append(doc)
                tfs.append(tf)
                local = (part.ids[low:high] - first).astype(np.int32)
                terms.append(np.repeat(local, part.counts[low:high]))
        doc_ids, tf_values = np.concatenate(docs), np.concatenate(tfs)
        if len(docs) > 1:  # segments hold ascending doc ranges: a stable sort by term suffices
            order = np.argsort(np.concatenate(terms), kind="stable")
            doc_ids, tf_values = doc_ids[order], tf_values[order]
        del docs, tfs, terms
        indptr = np.zeros(counts.size + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        impacts = self._write_postings(doc_ids, tf_values)
        self._out.maxima.append(bm25_kernels.term_maxima(indptr, impacts))

    def _write_large_term(self, parts: list[_Part], term: int) -> None:
        largest = np.float32(0)
        for part in parts:
            position = int(np.searchsorted(part.ids, term))
            if position == part.ids.size or part.ids[position] != term:
                continue
            remaining = int(part.counts[position])
            while remaining:
                size = min(remaining, self._budget)
                impacts = self._write_postings(*part.reader.postings(size))
                largest = max(largest, impacts.max())
                remaining -= size
        self._out.maxima.append(np.array([largest], np.float32))

    def _write_postings(self, docs: np.ndarray, tf: np.ndarray) -> np.ndarray:
        tf = tf.astype(self._out.tf.dtype)
        impacts = bm25_kernels.posting_impacts(docs, tf, self._factors)
        self._out.docs.append(docs)
        self._out.tf.append(tf)
        self._out.impacts.append(impacts)
        self._written += docs.size
        if self._progress is not None:
            self._progress("merge", self._written, self._out.docs.length)
        return impacts


def write_merged(
    index_dir: Path,
    scratch: Path,
    segments: list[SegmentFiles],
    factors: np.ndarray,
    memory_limit_bytes: int,
    progress: Progress | None,
) -> None:
    """Merge ``segments`` into ``index_dir``'s vocabulary, postings, impacts and maxima.

    Merge buffers take about a third of ``memory_limit_bytes`` for postings and a sixth for
    terms (the rest is left to what the tokenising pass freed but the allocator kept); files
    of a length known only at the end are staged in ``scratch``.
    """
    key_bytes = max((segment.key_bytes for segment in segments), default=0)
    max_tf = max((segment.max_tf for segment in segments), default=0)
    num_postings = sum(segment.num_postings for segment in segments)
    tf_dtype = np.uint16 if max_tf <= np.iinfo(np.uint16).max else np.uint32
    raw = {
        "vocab": RawAppender(scratch / "vocab.raw", np.dtype(f"S{max(key_bytes, 1)}")),
        "indptr": RawAppender(scratch / "indptr.raw", np.int64),
        "maxima": RawAppender(scratch / "maxima.raw", np.float32),
    }
    with (
        NpyAppender(posting_file(index_dir, FIELD, "docs"), np.int32, num_postings) as docs,
        NpyAppender(posting_file(index_dir, FIELD, "tf"), tf_dtype, num_postings) as tf,
        NpyAppender(index_dir / f"{FIELD}{IMPACTS_SUFFIX}", np.float32, num_postings) as impacts,
    ):
        targets = MergeTargets(raw["vocab"], raw["indptr"], raw["maxima"], docs, tf, impacts)
        merger = SegmentMerger(
            targets,
            factors,
            posting_budget=memory_limit_bytes // 3 // BYTES_PER_MERGED_POSTING,
            progress=progress,
        )
        per_term = 3 * max(key_bytes, 1) + 40  # a buffered key, its sort and inverse
        merger.merge(segments, memory_limit_bytes // 6 // (max(len(segments), 1) * per_term))
    raw["vocab"].finish(index_dir / VOCAB_FILE)
    raw["indptr"].finish(posting_file(index_dir, FIELD, "indptr"))
    raw["maxima"].finish(index_dir / f"{FIELD}{MAXIMA_SUFFIX}")
