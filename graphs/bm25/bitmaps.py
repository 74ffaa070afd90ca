"""Bitmaps of the longest posting lists, built on first use, for scoring node sets.

Scoring a node set (a neighbourhood) against a term held by a large share of all nodes means,
per node, a search through a long posting list: reads far apart in memory, the cost of
`neighbors` with a query. A bitmap of the term's docs with a rank per 64-bit word answers
"does this node hold the term, and where is its posting" with one bit test in a small array,
then one impact read for the nodes that hold it (`bm25_kernels.add_bitmap_scores`).

Bitmaps are derived data, not part of the index format. Building one reads the whole posting
list (0.2-0.4 ms for a term in 5% of a million nodes), more than searching it once for a
thousand nodes, so a list gets its bitmap the second time a query needs it (a term used once
is searched as before) and keeps it in a cache bounded in bytes, least recently used out
first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from graphs.bm25 import kernels as bm25_kernels

MIN_SHARE = 64
"""A posting list gets a bitmap when it holds at least 1/MIN_SHARE of all docs: shorter ones
are searched quickly enough, and the bitmap (2 bits per doc of the graph) would cost more
memory than the list itself."""
CACHE_BYTES = 64 * 2**20
"""Memory kept for bitmaps per index (about 340 terms at a million nodes)."""
SEEN_LIMIT = 1 << 16
"""Posting lists remembered as used once; the memory is cleared when it grows past this."""


class PostingBitmaps:
    """A byte-bounded cache of :func:`bm25_kernels.posting_bitmap` per posting range.

    Safe to share between threads (the agents of one run query one index).

    Args:
        docs: Every posting's doc id, postings of a term contiguous and ascending.
        num_docs: Number of documents.
        max_bytes: Cache bound; a bitmap larger than it is still built, used and dropped.
    """

    def __init__(self, docs: np.ndarray, num_docs: int, max_bytes: int = CACHE_BYTES) -> None:
        self._docs = docs
        self.num_docs = num_docs
        self.max_bytes = max_bytes
        self._cache: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._bytes = 0
        self._seen: set[int] = set()
        self._lock = threading.Lock()

    def wanted(self, start: int, end: int, set_size: int) -> bool:
        """Whether to score the entry `docs[start:end]` from its bitmap for a node set.

        Only lists longer than the set (a shorter one is walked) and holding at least
        1/MIN_SHARE of all docs qualify, and only from their second use on: the first use
        searches the list (cheaper than building the bitmap) and remembers it.
        """
        length = end - start
        if length <= set_size or length * MIN_SHARE < self.num_docs:
            return False
        with self._lock:
            if start in self._cache or start in self._seen:
                return True
            if len(self._seen) >= SEEN_LIMIT:
                self._seen.clear()
            self._seen.add(start)
            return False

    def get(self, start: int, end: int) -> tuple[np.ndarray, np.ndarray]:
        """`(bits, ranks)` of the docs in `docs[start:end]` (built now if not cached)."""
        with self._lock:
            found = self._cache.get(start)
            if found is not None:
                self._cache.move_to_end(start)
                return found
        built = bm25_kernels.posting_bitmap(self._docs, start, end, self.num_docs)
        size = built[0].nbytes + built[1].nbytes
        with self._lock:
            if start not in self._cache and size <= self.max_bytes:
                self._cache[start] = built
                self._bytes += size
                while self._bytes > self.max_bytes:
                    _, (bits, ranks) = self._cache.popitem(last=False)
                    self._bytes -= bits.nbytes + ranks.nbytes
        return built

    @property
    def cached_bytes(self) -> int:
        """Bytes held by cached bitmaps."""
        return self._bytes
