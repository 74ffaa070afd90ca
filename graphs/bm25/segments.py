"""Index segments: postings of consecutive docs held until a memory budget, then spilled."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.bm25.chunks import ChunkPostings
from graphs.build.stream.npyfile import NpyReader

BYTES_PER_POSTING = 36
"""Estimated peak bytes a buffered posting costs, sort and gather at spill time included."""
BYTES_PER_TERM = 200
"""Estimated peak bytes a buffered distinct token costs (dict entry, str, its sorted bytes)."""


@dataclass(frozen=True)
class SegmentFiles:
    """A spilled segment: sorted vocabulary, doc count per term, postings sorted by term.

    Attributes:
        prefix: Files are ``{prefix}.{vocab,counts,docs,tf}.npy``.
        num_terms: Distinct tokens of the segment.
        num_postings: Its (term, doc) pairs.
        max_tf: Its largest term frequency (0 without postings).
        key_bytes: Its longest token in UTF-8 bytes (0 without tokens).
    """

    prefix: Path
    num_terms: int
    num_postings: int
    max_tf: int
    key_bytes: int

    def path(self, part: str) -> Path:
        """The file of one part (``vocab``, ``counts``, ``docs`` or ``tf``)."""
        return self.prefix.with_name(f"{self.prefix.name}.{part}.npy")


class SegmentBuffer:
    """The postings of consecutive doc chunks, with a segment-local vocabulary."""

    def __init__(self) -> None:
        self._vocab: defaultdict[str, int] = defaultdict()
        self._vocab.default_factory = self._vocab.__len__  # a new token gets the next id
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.num_postings = 0
        self._max_tf = 0

    def __len__(self) -> int:
        return self.num_postings

    def estimated_bytes(self) -> int:
        """Estimated peak memory of holding and spilling this segment."""
        return self.num_postings * BYTES_PER_POSTING + len(self._vocab) * BYTES_PER_TERM

    def add(self, chunk: ChunkPostings) -> None:
        """Add one chunk's postings (chunks must come in doc order)."""
        local = np.fromiter(map(self._vocab.__getitem__, chunk.terms), np.int32, len(chunk.terms))
        self._parts.append((local[chunk.term_ids], chunk.docs, chunk.tf))
        self.num_postings += chunk.docs.size
        if chunk.tf.size:
            self._max_tf = max(self._max_tf, int(chunk.tf.max()))

    def spill(self, prefix: Path) -> SegmentFiles:
        """Write the segment (vocabulary sorted as bytes, postings by term then doc); empty it."""
        keys = list(self._vocab)
        encoded_list = [key.encode("utf-8") for key in keys]
        key_bytes = max(map(len, encoded_list), default=0)
        encoded = np.array(encoded_list or [b""], dtype=np.bytes_)[: len(keys)]
        del encoded_list
        self._vocab.clear()
        order = np.argsort(encoded, kind="stable")
        rank = np.empty(len(keys), dtype=np.int32)
        rank[order] = np.arange(len(keys), dtype=np.int32)
        del keys
        files = SegmentFiles(prefix, len(rank), self.num_postings, self._max_tf, key_bytes)
        np.save(files.path("vocab"), encoded[order])
        del encoded, order
        terms = rank[np.concatenate([t for t, _, _ in self._parts] or [np.empty(0, np.int32)])]
        del rank
        np.save(files.path("counts"), np.bincount(terms, minlength=files.num_terms))
        by_term = np.argsort(terms, kind="stable")  # docs stay ascending within a term
        del terms
        for part, position in (("docs", 1), ("tf", 2)):
            values = np.concatenate(
                [chunk[position] for chunk in self._parts] or [np.empty(0, np.uint32)]
            )
            np.save(files.path(part), values[by_term])
            del values
        self._parts.clear()
        self.num_postings = self._max_tf = 0
        return files


class SegmentReader:
    """Reads a spilled segment front to back: terms in buffered runs, postings as asked."""

    def __init__(self, files: SegmentFiles, term_buffer: int) -> None:
        self._vocab = NpyReader(files.path("vocab"))
        self._counts = NpyReader(files.path("counts"))
        self._docs = NpyReader(files.path("docs"))
        self._tf = NpyReader(files.path("tf"))
        self._term_buffer = max(term_buffer, 1)
        self.keys = np.empty(0, np.bytes_)
        self.counts = np.empty(0, np.int64)

    def refill(self) -> bool:
        """Buffer the next run of terms if the last is used up; False when none are left."""
        if not self.keys.size:
            self.keys = self._vocab.read(self._term_buffer)
            self.counts = self._counts.read(self._term_buffer)
        return bool(self.keys.size)

    def take_through(self, last_key: np.bytes_) -> tuple[np.ndarray, np.ndarray]:
        """The buffered terms up to ``last_key`` (inclusive) and their doc counts, consumed."""
        stop = int(np.searchsorted(self.keys, last_key, side="right"))
        keys, counts = self.keys[:stop], self.counts[:stop]
        self.keys, self.counts = self.keys[stop:], self.counts[stop:]
        return keys, counts

    def postings(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The next ``count`` postings: doc ids and term frequencies."""
        return self._docs.read(count), self._tf.read(count)
