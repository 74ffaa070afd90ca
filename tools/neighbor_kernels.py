"""Compiled passes over a neighbour set (numba): first default-order keys, nodes per relation.

Each is one loop over the entries grouped by node, with no temporaries.

The default order's inputs travel as one tuple, ``ORDER_INPUTS`` (built by
``NeighborOrder.inputs``): entry positions grouped by node, where each node's group starts,
each entry's neighbour node, relation code and direction (+1 out, -1 in), each relation
code's rank by name, every node's degree, the largest degree, and the bit widths of the
packed key's degree and node fields.

At a 100,000-edge hub the numpy versions took 2-5 ms each (gathers of several full-size
arrays); these are one pass over the grouped entries.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _member_key(member: int, order: tuple[Any, ...]) -> np.int64:  # pragma: no cover
    """The packed default-order key of one member (``order``: see the module docstring)."""
    (entry_order, starts, entry_nodes, relations, directions, relation_rank, degrees,
     max_degree, degree_bits, node_bits) = order  # fmt: skip
    stop = starts[member + 1] if member + 1 < starts.size else entry_order.size
    best = np.int64(-1)
    for position in range(starts[member], stop):
        entry = entry_order[position]
        head = (np.int64(relation_rank[relations[entry]]) << 1) | np.int64(directions[entry] < 0)
        if best < 0 or head < best:
            best = head
    node = np.int64(entry_nodes[entry_order[starts[member]]])
    gap = np.int64(max_degree - degrees[node])
    return (((best << degree_bits) | gap) << node_bits) | node


@numba.njit(cache=True, nogil=True)
def first_keys(order: tuple[Any, ...]) -> np.ndarray:  # pragma: no cover
    """The smallest packed key of each member's entries (``order``: see the module docstring).

    A node's entries share its degree and id, so only (relation rank, incoming) varies:
    its minimum is taken, then packed with the node's degree gap and id.
    """
    starts = order[1]
    keys = np.empty(starts.size, np.int64)
    for member in range(starts.size):
        keys[member] = _member_key(member, order)
    return keys


@numba.njit(cache=True, nogil=True)
def nodes_per_code(
    entry_order: np.ndarray, starts: np.ndarray, codes: np.ndarray, size: int
) -> np.ndarray:  # pragma: no cover - compiled
    """How many nodes have at least one entry of each code (``size`` codes)."""
    counts = np.zeros(size, np.int64)
    last_member = np.full(size, -1, np.int64)
    count = starts.size
    for member in range(count):
        stop = starts[member + 1] if member + 1 < count else entry_order.size
        for position in range(starts[member], stop):
            code = codes[entry_order[position]]
            if last_member[code] != member:
                last_member[code] = member
                counts[code] += 1
    return counts


@numba.njit(cache=True, nogil=True)
def smallest_keys(
    keys: np.ndarray, positions: np.ndarray, count: int
) -> np.ndarray:  # pragma: no cover
    """The ``count`` positions (of ``positions``) with the smallest keys, sorted by key.

    Equal keys keep the order of ``positions``. One pass with a bounded max-heap, so a hub's
    100,000 members cost one comparison each rather than a partition of them all.
    """
    size = min(count, positions.size)
    heap_keys = np.empty(size, np.int64)
    heap_rank = np.empty(size, np.int64)  # index into positions: the tie-break
    filled = 0
    for rank in range(positions.size):
        key = np.int64(keys[positions[rank]])
        if filled < size:  # push, sift up
            slot = filled
            filled += 1
            while slot > 0:
                parent = (slot - 1) >> 1
                if heap_keys[parent] > key or (
                    heap_keys[parent] == key and heap_rank[parent] > rank
                ):
                    break
                heap_keys[slot], heap_rank[slot] = heap_keys[parent], heap_rank[parent]
                slot = parent
            heap_keys[slot], heap_rank[slot] = key, rank
        elif size and (key < heap_keys[0] or (key == heap_keys[0] and rank < heap_rank[0])):
            slot = 0  # replace the largest, sift down
            while True:
                child = 2 * slot + 1
                if child >= size:
                    break
                other = child + 1
                if other < size and (
                    heap_keys[other] > heap_keys[child]
                    or (
                        heap_keys[other] == heap_keys[child] and heap_rank[other] > heap_rank[child]
                    )
                ):
                    child = other
                if heap_keys[child] < key or (heap_keys[child] == key and heap_rank[child] < rank):
                    break
                heap_keys[slot], heap_rank[slot] = heap_keys[child], heap_rank[child]
                slot = child
            heap_keys[slot], heap_rank[slot] = key, rank
    order = np.argsort(heap_rank[:filled], kind="mergesort")  # then stable by key
    ranks = heap_rank[:filled][order]
    ranks = ranks[np.argsort(heap_keys[:filled][order], kind="mergesort")]
    return positions[ranks]


@numba.njit(cache=True, nogil=True)
def top_scored(
    scores: np.ndarray, count: int, order: tuple[Any, ...]
) -> np.ndarray:  # pragma: no cover - compiled
    """The ``count`` best positively scored members, by score then first key (see above).

    The cut (the count-th best score) comes from a bounded min-heap; only members at or above
    it get their key, so ties at the cut are broken exactly as a full sort would.
    """
    heap = np.empty(max(count, 1), np.float32)
    filled = 0
    for member in range(scores.size):
        score = scores[member]
        if score <= 0:
            continue
        if filled < count:
            slot = filled
            filled += 1
            while slot > 0 and heap[(slot - 1) >> 1] > score:
                heap[slot] = heap[(slot - 1) >> 1]
                slot = (slot - 1) >> 1
            heap[slot] = score
        elif score > heap[0]:
            slot = 0
            while True:
                child = 2 * slot + 1
                if child >= count:
                    break
                if child + 1 < count and heap[child + 1] < heap[child]:
                    child += 1
                if heap[child] >= score:
                    break
                heap[slot] = heap[child]
                slot = child
            heap[slot] = score
    if filled == 0:
        return np.zeros(0, np.int64)
    cut = heap[0] if filled == count else np.float32(0)
    chosen = np.flatnonzero((scores >= cut) & (scores > 0))
    keys = np.empty(chosen.size, np.int64)
    for index in range(chosen.size):
        keys[index] = _member_key(chosen[index], order)
    by_key = np.argsort(keys, kind="mergesort")
    by_score = np.argsort(-scores[chosen][by_key], kind="mergesort")
    return chosen[by_key[by_score]][:count]


@numba.njit(cache=True, nogil=True)
def member_links(
    shown: np.ndarray,
    entry_order: np.ndarray,
    starts: np.ndarray,
    relations: np.ndarray,
    directions: np.ndarray,
    relation_rank: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Each shown member's relations to the anchor, by relation name, with their directions.

    Returns:
        (counts, codes, flags): how many relations each shown member has; then, member after
        member, each relation code and its directions (bit 1: outgoing, bit 2: incoming).
    """
    total = 0
    for member in shown:
        stop = starts[member + 1] if member + 1 < starts.size else entry_order.size
        total += stop - starts[member]
    counts = np.zeros(shown.size, np.int64)
    codes = np.empty(total, np.int64)
    flags = np.zeros(total, np.int64)
    filled = 0
    for index in range(shown.size):
        member = shown[index]
        stop = starts[member + 1] if member + 1 < starts.size else entry_order.size
        first = filled
        for position in range(starts[member], stop):
            entry = entry_order[position]
            code = np.int64(relations[entry])
            bit = 2 if directions[entry] < 0 else 1
            slot = first
            while slot < filled and codes[slot] != code:
                slot += 1
            if slot == filled:  # a new relation: insert it in rank order
                while slot > first and relation_rank[codes[slot - 1]] > relation_rank[code]:
                    codes[slot], flags[slot] = codes[slot - 1], flags[slot - 1]
                    slot -= 1
                codes[slot], flags[slot] = code, 0
                filled += 1
            flags[slot] |= bit
        counts[index] = filled - first
    return counts, codes[:filled], flags[:filled]
