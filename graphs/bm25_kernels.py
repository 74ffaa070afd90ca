"""Compiled BM25 loops over doc-ordered postings: exact top-k by MaxScore, and node-set scores.

A query is a list of *entries*, one per (term, field) it matches: the entry's postings are
``docs[start:end]`` (ascending doc ids) with term frequencies ``tfs[start:end]``; a document
gains ``weight * tf / (tf + length_factors[field, doc])`` from it. numba compiles these
functions on first use and caches the machine code beside this file.
"""

from __future__ import annotations

import numba
import numpy as np

_NO_DOC = 1 << 62  # above every doc id


@numba.njit(cache=True, nogil=True)
def term_maxima(
    indptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray, length_factors: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    """Per term, the largest ``tf / (tf + length_factor[doc])`` over its postings (0 if none)."""
    terms = indptr.size - 1
    out = np.zeros(terms, np.float32)
    for term in range(terms):
        best = np.float32(0)
        for p in range(indptr[term], indptr[term + 1]):
            tf = np.float32(tfs[p])
            value = tf / (tf + length_factors[docs[p]])
            if value > best:
                best = value
        out[term] = best
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
def _smallest_doc(position: np.ndarray, ends: np.ndarray, docs: np.ndarray, first: int) -> int:
    """The lowest current doc over entries ``first..``, or ``_NO_DOC`` when all are done."""
    doc = _NO_DOC
    for i in range(first, position.size):
        if position[i] < ends[i] and docs[position[i]] < doc:
            doc = docs[position[i]]
    return doc


@numba.njit(cache=True, nogil=True)
def _weakest(top_scores: np.ndarray, top_docs: np.ndarray) -> int:
    """Slot of the lowest score; of equal scores the highest id (it loses ties)."""
    weakest = 0
    for j in range(1, top_scores.size):
        if top_scores[j] < top_scores[weakest] or (
            top_scores[j] == top_scores[weakest] and top_docs[j] > top_docs[weakest]
        ):
            weakest = j
    return weakest


@numba.njit(cache=True, nogil=True)
def _prefix_bounds(uppers: np.ndarray) -> np.ndarray:
    """``prefix[i]``: the most entries ``0..i`` add together (float64, a hair above)."""
    prefix = np.empty(uppers.size, np.float64)
    total = 0.0
    for i in range(uppers.size):
        total += np.float64(uppers[i]) * (1.0 + 1e-6)
        prefix[i] = total
    return prefix


@numba.njit(cache=True, nogil=True)
def top_k(
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    fields: np.ndarray,
    uppers: np.ndarray,
    docs: np.ndarray,
    tfs: np.ndarray,
    length_factors: np.ndarray,
    k: int,
    allowed: np.ndarray,
    types: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Exact top ``k`` documents by BM25 (MaxScore, document at a time).

    Entries must come sorted by ``uppers`` (each entry's largest possible gain) ascending:
    once the list is full, the leading entries whose gains together cannot pass its weakest
    score only complete the scores of documents found through the others. Documents scoring
    0 are never returned; ``allowed`` (indexed by type code; empty: all types) filters by
    ``types[doc]``. Among equal scores the lower doc id wins.

    Returns:
        Doc ids (int64) and scores (float32), unsorted.
    """
    m = starts.size
    prefix = _prefix_bounds(uppers)
    position = starts.copy()
    top_scores = np.zeros(k, np.float32)
    top_docs = np.zeros(k, np.int64)
    filled, weakest = 0, 0
    threshold = np.float64(0.0)  # a document must score above this to enter a full list
    essential = 0  # entries below this index cannot lift a document above the threshold
    while k > 0:
        while essential < m and filled == k and prefix[essential] <= threshold:
            essential += 1
        doc = _smallest_doc(position, ends, docs, essential) if essential < m else _NO_DOC
        if doc == _NO_DOC:
            break
        keep = allowed.size == 0 or allowed[types[doc]]
        score = np.float32(0)
        for i in range(essential, m):
            p = position[i]
            if p < ends[i] and docs[p] == doc:
                position[i] = p + 1
                tf = np.float32(tfs[p])
                score += weights[i] * tf / (tf + length_factors[fields[i], doc])
        if not keep:
            continue
        for i in range(essential - 1, -1, -1):
            if filled == k and score + prefix[i] <= threshold:
                score = np.float32(0)  # cannot enter the list
                break
            p = _seek(docs, position[i], ends[i], doc)
            position[i] = p
            if p < ends[i] and docs[p] == doc:
                tf = np.float32(tfs[p])
                score += weights[i] * tf / (tf + length_factors[fields[i], doc])
        if score <= 0 or (filled == k and score <= threshold):
            continue
        slot = filled if filled < k else weakest
        top_scores[slot], top_docs[slot] = score, doc
        filled = max(filled, slot + 1)
        if filled == k:
            weakest = _weakest(top_scores, top_docs)
            threshold = np.float64(top_scores[weakest])
    return top_docs[:filled], top_scores[:filled]


@numba.njit(cache=True, nogil=True)
def score_sorted(
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    fields: np.ndarray,
    docs: np.ndarray,
    tfs: np.ndarray,
    length_factors: np.ndarray,
    nodes: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    """BM25 of every node of ``nodes`` (ascending, distinct doc ids), float32."""
    scores = np.zeros(nodes.size, np.float32)
    n = nodes.size
    for i in range(starts.size):
        start, end = starts[i], ends[i]
        weight, field = weights[i], fields[i]
        if end - start <= n:  # walk the postings, seek in the nodes
            j = 0
            for p in range(start, end):
                j = _seek(nodes, j, n, docs[p])
                if j == n:
                    break
                if nodes[j] == docs[p]:
                    tf = np.float32(tfs[p])
                    scores[j] += weight * tf / (tf + length_factors[field, nodes[j]])
        else:  # walk the nodes, seek in the postings
            p = start
            for j in range(n):
                p = _seek(docs, p, end, nodes[j])
                if p == end:
                    break
                if docs[p] == nodes[j]:
                    tf = np.float32(tfs[p])
                    scores[j] += weight * tf / (tf + length_factors[field, nodes[j]])
    return scores
