"""The bitmap cache of long posting lists: when a bitmap is used, and the byte bound."""

from __future__ import annotations

import numpy as np

from graphs.bm25.bitmaps import MIN_SHARE, PostingBitmaps


def test_long_lists_holding_a_large_share_get_a_bitmap_from_their_second_use() -> None:
    bitmaps = PostingBitmaps(np.zeros(0, np.int64), num_docs=64_000)
    share = 64_000 // MIN_SHARE
    assert not bitmaps.wanted(0, share, set_size=100)  # first use: searched, remembered
    assert bitmaps.wanted(0, share, set_size=100)
    assert bitmaps.wanted(0, share, set_size=50)
    for _ in range(2):
        assert not bitmaps.wanted(share, 2 * share - 1, set_size=100)  # too rare: searched
        assert not bitmaps.wanted(0, share, set_size=share)  # not longer than the set: walked


def test_the_cache_keeps_recent_bitmaps_within_its_bytes() -> None:
    num_docs = 6_400  # 100 words: 800 bytes of bits and 400 of ranks per bitmap
    docs = np.concatenate([np.arange(0, num_docs, step) for step in (2, 3, 5)]).astype(np.int64)
    bounds = np.cumsum([0] + [len(range(0, num_docs, step)) for step in (2, 3, 5)]).tolist()
    bitmaps = PostingBitmaps(docs, num_docs, max_bytes=2 * 1_200)
    first = bitmaps.get(bounds[0], bounds[1])
    assert bitmaps.get(bounds[0], bounds[1])[0] is first[0]  # a hit is the cached arrays
    bitmaps.get(bounds[1], bounds[2])
    assert bitmaps.cached_bytes == 2_400
    bitmaps.get(bounds[0], bounds[1])  # touched: now the most recent
    bitmaps.get(bounds[2], bounds[3])  # evicts the least recent, the step-3 list
    assert bitmaps.cached_bytes == 2_400
    assert bitmaps.get(bounds[0], bounds[1])[0] is first[0]
    bits, _ = bitmaps.get(bounds[1], bounds[2])  # rebuilt, still right
    held = np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))
    np.testing.assert_array_equal(held, np.arange(0, num_docs, 3))
