"""Compiled BM25 loops over doc-ordered postings: exact top k of all docs, and node-set scores.

Every posting carries its *impact* ``tf / (tf + k1 * (1 - b + b * dl / avgdl))`` (computed
once, :func:`posting_impacts`). A query is a list of *entries*, one per (term, field) it
matches: the entry's postings are ``docs[start:end]`` (ascending doc ids) with impacts
``impacts[start:end]``, and a document gains ``weight * impact`` from each (the weight is
``boost * (k1 + 1) * idf``). numba compiles these functions on first use and caches the machine
code beside this file.
"""

from __future__ import annotations

import numba
import numpy as np

_SEEK_COST = 16
"""Postings added term at a time that cost about as much as one binary search."""
_LIST_HEADROOM = 4
"""Listing starts only if the entries that could end it fit this many times in the list."""
_DENSE_SHARE = 2
"""A query with more postings than documents / this is scored densely from the start: it
reaches most documents anyway (long questions of common words)."""


@numba.njit(cache=True, nogil=True)
def posting_impacts(
    docs: np.ndarray, tfs: np.ndarray, length_factors: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    """Every posting's ``tf / (tf + length_factors[doc])`` (float32)."""
    out = np.empty(docs.size, np.float32)
    for p in range(docs.size):
        tf = np.float32(tfs[p])
        out[p] = tf / (tf + length_factors[docs[p]])
    return out


@numba.njit(cache=True, nogil=True)
def term_maxima(indptr: np.ndarray, impacts: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Per term, the largest impact over its postings (0 when it has none)."""
    out = np.zeros(indptr.size - 1, np.float32)
    for term in range(indptr.size - 1):
        for p in range(indptr[term], indptr[term + 1]):
            out[term] = max(out[term], impacts[p])
    return out


@numba.njit(cache=True, nogil=True)
def _seek(docs: np.ndarray, low: int, high: int, target: int) -> int:  # pragma: no cover
    """First position in ``docs[low:high]`` holding a doc >= target (``high`` if none)."""
    while low < high:
        middle = (low + high) >> 1
        if docs[middle] < target:
            low = middle + 1
        else:
            high = middle
    return low


@numba.njit(cache=True, nogil=True)
def _weakest(top_scores: np.ndarray, top_docs: np.ndarray) -> int:  # pragma: no cover
    """Slot of the lowest score; of equal scores the highest id (it loses ties)."""
    weakest = 0
    for j in range(1, top_scores.size):
        if top_scores[j] < top_scores[weakest] or (
            top_scores[j] == top_scores[weakest] and top_docs[j] > top_docs[weakest]
        ):
            weakest = j
    return weakest


@numba.njit(cache=True, nogil=True)
def _keep(
    top_scores: np.ndarray, top_docs: np.ndarray, filled: int, weakest: int, doc: int, score: float
) -> tuple[int, int]:  # pragma: no cover - compiled
    """Put ``doc`` in the list (when full, in the weakest slot); the new (filled, weakest)."""
    slot = filled if filled < top_scores.size else weakest
    top_scores[slot], top_docs[slot] = score, doc
    filled = max(filled, slot + 1)
    if filled == top_scores.size:
        weakest = _weakest(top_scores, top_docs)
    return filled, weakest


@numba.njit(cache=True, nogil=True)
def _best_of(
    candidates: np.ndarray,
    values: np.ndarray,
    k: int,
    allowed: np.ndarray,
    types: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The ``k`` best positive ``values`` of ``candidates`` (allowed types; lower id on ties)."""
    top_scores = np.zeros(k, np.float32)
    top_docs = np.zeros(k, np.int64)
    filled, weakest = 0, 0
    for j in range(candidates.size):
        doc, score = candidates[j], values[j]
        if score <= 0 or (allowed.size and not allowed[types[doc]]):
            continue
        if filled == k and (
            score < top_scores[weakest]
            or (score == top_scores[weakest] and doc > top_docs[weakest])
        ):
            continue
        filled, weakest = _keep(top_scores, top_docs, filled, weakest, doc, score)
    return top_docs[:filled], top_scores[:filled]


@numba.njit(cache=True, nogil=True)
def _suffix_bounds(uppers: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``suffix[j]``: the most entries ``j..`` add together (float64, a hair above the sum)."""
    suffix = np.zeros(uppers.size + 1, np.float64)
    for j in range(uppers.size - 1, -1, -1):
        suffix[j] = suffix[j + 1] + np.float64(uppers[j]) * (1.0 + 1e-6)
    return suffix


@numba.njit(cache=True, nogil=True)
def _complete(
    listed: np.ndarray,
    first: int,
    threshold: np.float64,
    suffix: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    docs: np.ndarray,
    impacts: np.ndarray,
    scores: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Full scores of the listed docs that can still reach ``threshold``.

    Entries ``first..`` are looked up by binary search; every listed doc's ``scores`` is zeroed.
    """
    kept = np.empty(listed.size, np.int64)
    kept_scores = np.empty(listed.size, np.float32)
    n = 0
    for doc in listed:
        if np.float64(scores[doc]) + suffix[first] >= threshold:
            kept[n], kept_scores[n] = doc, scores[doc]
            n += 1
        scores[doc] = 0
    for i in range(first, starts.size):
        for c in range(n):
            p = _seek(docs, starts[i], ends[i], kept[c])
            if p < ends[i] and docs[p] == kept[c]:
                kept_scores[c] += weights[i] * impacts[p]
    return kept[:n], kept_scores[:n]


@numba.njit(cache=True, nogil=True)
def top_k(
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    uppers: np.ndarray,
    docs: np.ndarray,
    impacts: np.ndarray,
    k: int,
    allowed: np.ndarray,
    types: np.ndarray,
    scores: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Exact top ``k`` (> 0) documents by BM25.

    ``scores`` (one float32 per doc) is all zeros on entry and is left all zeros. Entries come
    sorted by ``uppers`` (each entry's largest possible gain) descending, so the rare,
    informative terms come first. They are added term at a time, listing the documents they
    reach; once the k-th best partial score exceeds what all remaining entries together could
    give, no unlisted document can enter, and the listed ones that still can are completed by
    binary search in the remaining (long) postings. A query that reaches most documents anyway,
    or whose listed documents would pass an eighth of all documents, is added densely and the
    whole score array is scanned.
    Documents scoring 0 never come back; ``allowed`` (indexed by type code; empty: all types)
    filters by ``types[doc]``; among equal scores the lower id wins.

    Returns:
        Doc ids (int64) and scores (float32), unsorted.
    """
    suffix = _suffix_bounds(uppers)
    total = int((ends - starts).sum())
    dense_limit = max(scores.size >> 3, 4 * k)
    listed = np.empty(min(total, dense_limit), np.int64)
    count = 0
    best = np.float32(0)  # the best partial score so far
    # listing pays only if completion can start before the list outgrows its limit: not
    # before the entries added can outscore all the remaining ones together
    added, postings = 0.0, 0
    for j in range(starts.size):
        added += np.float64(uppers[j])
        postings += ends[j] - starts[j]
        if added > suffix[j + 1]:
            break
    dense = postings * _LIST_HEADROOM > dense_limit or total * _DENSE_SHARE > scores.size
    if dense:
        return _dense_top(np.zeros(scores.size, np.float32), 0, starts, ends, weights, docs,
                          impacts, k, allowed, types)  # fmt: skip
    for j in range(starts.size):
        if count + (ends[j] - starts[j]) > dense_limit:
            # too many listed: go on densely in a fresh array (faster than the shared buffer)
            fresh = scores.copy()
            scores[listed[:count]] = 0
            return _dense_top(fresh, j, starts, ends, weights, docs, impacts, k, allowed, types)
        weight = weights[j]
        for p in range(starts[j], ends[j]):
            doc = docs[p]
            if scores[doc] == 0:
                listed[count] = doc
                count += 1
            scores[doc] += weight * impacts[p]
            best = max(best, scores[doc])
        if j + 1 == starts.size or count < k or suffix[j + 1] >= best:
            continue
        candidates = listed[:count]
        _, top = _best_of(candidates, scores[candidates], k, allowed, types)
        if top.size < k or np.float64(top.min()) <= suffix[j + 1]:
            continue
        threshold = np.float64(top.min())
        # nothing unlisted can reach the k-th partial score; completing the listed that still
        # can costs a binary search per (doc, remaining entry): worth it when cheaper than
        # adding the remaining postings
        survivors = 0
        for doc in candidates:
            survivors += np.float64(scores[doc]) + suffix[j + 1] >= threshold
        remaining = int((ends[j + 1 :] - starts[j + 1 :]).sum())
        if survivors * (starts.size - j - 1) * _SEEK_COST <= remaining:
            kept, kept_scores = _complete(
                candidates, j + 1, threshold, suffix, starts, ends, weights, docs, impacts, scores
            )
            return _best_of(kept, kept_scores, k, allowed, types)
    candidates = listed[:count]
    values = scores[candidates]
    scores[candidates] = 0
    return _best_of(candidates, values, k, allowed, types)


@numba.njit(cache=True, nogil=True)
def _dense_top(
    scores: np.ndarray,
    first: int,
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    docs: np.ndarray,
    impacts: np.ndarray,
    k: int,
    allowed: np.ndarray,
    types: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Add entries ``first..`` into ``scores`` (an array of this query's own) and scan it."""
    for j in range(first, starts.size):
        weight = weights[j]
        for p in range(starts[j], ends[j]):
            scores[docs[p]] += weight * impacts[p]
    return take_top(scores, k, allowed, types)


@numba.njit(cache=True, nogil=True)
def take_top(
    scores: np.ndarray, k: int, allowed: np.ndarray, types: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The ``k`` best positive scores (lower id first on ties).

    ``allowed`` (indexed by type code; empty: all types) filters by ``types[doc]``.

    Returns:
        Doc ids (int64) and scores (float32), unsorted.
    """
    top_scores = np.zeros(k, np.float32)
    top_docs = np.zeros(k, np.int64)
    filled, weakest = 0, 0
    threshold = np.float32(0)  # a document must score above this to enter
    for doc in range(scores.size if k else 0):
        score = scores[doc]
        if score <= threshold or (allowed.size and not allowed[types[doc]]):
            continue
        filled, weakest = _keep(top_scores, top_docs, filled, weakest, doc, score)
        if filled == k:
            threshold = top_scores[weakest]
    return top_docs[:filled], top_scores[:filled]


@numba.njit(cache=True, nogil=True)
def _gallop(docs: np.ndarray, low: int, high: int, target: int) -> int:  # pragma: no cover
    """Like :func:`_seek`, probing 1, 2, 4, ... ahead first: cheap when the target is near."""
    step = 1
    while low + step < high and docs[low + step - 1] < target:
        low += step
        step <<= 1
    return _seek(docs, low, min(low + step, high), target)


@numba.njit(cache=True, nogil=True)
def _seek_from(
    docs: np.ndarray, low: int, high: int, guess: int, target: int
) -> int:  # pragma: no cover
    """Like :func:`_seek`, galloping out from ``guess`` (``low <= guess < high``) both ways."""
    if docs[guess] < target:
        return _gallop(docs, guess + 1, high, target)
    step = 1
    while guess - step >= low and docs[guess - step] >= target:
        guess -= step
        step <<= 1
    return _seek(docs, max(low, guess - step + 1), guess, target)


@numba.njit(cache=True, nogil=True)
def add_entry_scores(
    start: int,
    end: int,
    weight: float,
    docs: np.ndarray,
    impacts: np.ndarray,
    nodes: np.ndarray,
    scores: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Add one entry's ``weight * impact`` to ``scores`` of ``nodes`` (ascending, distinct).

    A posting list shorter than the node list is walked while galloping through the nodes.
    In a longer one each node's position is first guessed by interpolation (doc ids spread
    evenly enough over a long list that the guess lands a few entries away), then found by
    galloping out from the guess: a handful of nearby reads instead of a binary search over
    the whole gap.
    """
    n = nodes.size
    gain = np.float32(weight)
    if end - start <= n:  # walk the postings, gallop in the nodes
        j = 0
        for p in range(start, end):
            j = _gallop(nodes, j, n, docs[p])
            if j == n:
                break
            if nodes[j] == docs[p]:
                scores[j] += gain * impacts[p]
        return
    first, last = docs[start], docs[end - 1]
    density = (end - start) / (last - first + 1.0)
    for j in range(n):  # walk the nodes, interpolate then gallop in the postings
        target = nodes[j]
        if target < first:
            continue
        if target > last:
            break
        # each node's search is independent of the previous one's, so the CPU can overlap
        # their cache misses
        guess = min(start + int((target - first) * density), end - 1)
        p = _seek_from(docs, start, end, guess, target)
        if docs[p] == target:
            scores[j] += gain * impacts[p]


@numba.njit(cache=True, nogil=True)
def posting_bitmap(
    docs: np.ndarray, start: int, end: int, num_docs: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The docs of ``docs[start:end]`` (ascending) as a bitmap with a rank per 64-bit word.

    Returns ``(bits, ranks)``: bit ``d & 63`` of ``bits[d >> 6]`` is set when doc ``d`` holds
    a posting, and ``ranks[w]`` counts the postings of docs below ``64 * w``, so the posting
    of a set bit lies at ``start + ranks[w] + (set bits below it in its word)``.
    """
    words = (num_docs + 63) >> 6
    bits = np.zeros(words, np.uint64)
    ranks = np.empty(words, np.int32)  # a term's postings number at most num_docs
    filled = 0
    for p in range(start, end):
        doc = docs[p]
        word = doc >> 6
        while filled <= word:
            ranks[filled] = p - start
            filled += 1
        bits[word] |= np.uint64(1) << np.uint64(doc & 63)
    while filled < words:
        ranks[filled] = end - start
        filled += 1
    return bits, ranks


@numba.njit(cache=True, nogil=True, inline="always")
def _popcount(x: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True, nogil=True)
def add_bitmap_scores(
    bits: np.ndarray,
    ranks: np.ndarray,
    start: int,
    weight: float,
    impacts: np.ndarray,
    nodes: np.ndarray,
    scores: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """:func:`add_entry_scores` for an entry given as its :func:`posting_bitmap`.

    One bit test per node, and one impact read for each node that holds the term: no search
    through the postings, whose reads are what a long posting list costs.
    """
    gain = np.float32(weight)
    for j in range(nodes.size):
        doc = nodes[j]
        word = bits[doc >> 6]
        bit = np.uint64(doc & 63)
        if (word >> bit) & np.uint64(1):
            below = word & ((np.uint64(1) << bit) - np.uint64(1))
            p = start + np.int64(ranks[doc >> 6]) + np.int64(_popcount(below))
            scores[j] += gain * impacts[p]
