"""A neighbourhood as a set of nodes: its default order, per-node grouping and the top-k cut.

`Snapshot.neighbors` returns one entry per (edge, direction); the paper's neighbours tool ranks
the neighbour *set*, and that set is the open neighbourhood: a node is never its own neighbour,
even when a self-loop is kept in the graph (:func:`open_neighborhood`). A node linked by
several edges (PrimeKG stores every edge both ways) is one member here and keeps all its
(relation, direction) entries. The default order of a node is
that of its first entry: relation name, then outgoing before incoming, then neighbour degree
(most connected first), then internal node id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphs.snapshot.csr import Neighborhood
from tools import neighbor_kernels

_KEY_BITS = 63


def open_neighborhood(hood: Neighborhood, anchor: int) -> Neighborhood:
    """`hood` without the entries that lead back to `anchor` itself (its self-loops).

    The paper's N(v) is the open neighbourhood of v; a product kept in its own `also_buy`
    would otherwise rank first among its own neighbours. Returns `hood` itself when it has
    no self-loop (no copy at hubs).
    """
    loops = np.asarray(hood.nodes) == anchor
    if not loops.any():
        return hood
    keep = ~loops
    return Neighborhood(
        nodes=np.asarray(hood.nodes)[keep],
        relations=np.asarray(hood.relations)[keep],
        directions=np.asarray(hood.directions)[keep],
    )


class NeighborOrder:
    """The default order of a neighbourhood as one int64 key per entry (smaller = earlier)."""

    def __init__(self, relation_names: Sequence[str], degrees: np.ndarray) -> None:
        by_name = sorted(range(len(relation_names)), key=lambda code: relation_names[code])
        self._relation_rank = np.empty(max(len(relation_names), 1), dtype=np.int64)
        self._relation_rank[by_name] = np.arange(len(by_name), dtype=np.int64)
        self._degrees = degrees
        self._max_degree = int(degrees.max()) if len(degrees) else 0
        self._node_bits = max(len(degrees) - 1, 1).bit_length()
        self._degree_bits = max(self._max_degree, 1).bit_length()
        relation_bits = max(len(relation_names) - 1, 1).bit_length()
        self._packed = relation_bits + 1 + self._degree_bits + self._node_bits < _KEY_BITS

    def keys(self, hood: Neighborhood) -> np.ndarray:
        """Sort keys of every entry of `hood` (unique except for repeated identical edges).

        The definition of the default order: listings compute only what they need of it,
        in compiled passes (:meth:`first_keys`, :meth:`top_scored`).
        """
        if not self._packed:
            return self._lexsort_keys(hood)
        nodes = np.asarray(hood.nodes, dtype=np.int64)
        rank = self._relation_rank[hood.relations]
        incoming = (hood.directions < 0).astype(np.int64)
        missing_degree = self._max_degree - self._degrees[nodes]
        key = (rank << 1) | incoming
        key = (key << self._degree_bits) | missing_degree
        return (key << self._node_bits) | nodes

    def first_keys(self, hood: Neighborhood, members: NeighborSet) -> np.ndarray:
        """Each member's smallest entry key: its place in the default order."""
        if not len(members):
            return np.zeros(0, dtype=np.int64)
        if not self._packed:
            every = self._lexsort_keys(hood)
            return np.minimum.reduceat(every[members.entry_order], members.starts)
        return neighbor_kernels.first_keys(self.inputs(hood, members))

    def top_ranked(
        self, hood: Neighborhood, members: NeighborSet, scores: np.ndarray, k: int
    ) -> np.ndarray:
        """Positions of the top k members under rel >= 0, as the paper ranks a neighbourhood.

        The positively scored members come first (by score, then default order); members that
        share no word with the query (score 0) fill the remaining slots in the default order.
        """
        scored = self.top_scored(hood, members, scores, k)
        if len(scored) >= k or len(scored) == len(members):
            return scored
        unmatched = np.flatnonzero(np.asarray(scores) <= 0)
        fill = _smallest_keys(self.first_keys(hood, members), unmatched, k - len(scored))
        return np.concatenate((scored, fill))

    def top_scored(
        self, hood: Neighborhood, members: NeighborSet, scores: np.ndarray, k: int
    ) -> np.ndarray:
        """Positions of the k best positively scored members: by score, then default order."""
        if not self._packed:
            chosen = np.flatnonzero(scores > 0)
            keys = self.first_keys(hood, members)[chosen]
            return chosen[top_entries(keys, scores[chosen], k)]
        return neighbor_kernels.top_scored(
            np.asarray(scores, dtype=np.float32), k, self.inputs(hood, members)
        )

    def inputs(self, hood: Neighborhood, members: NeighborSet) -> tuple[Any, ...]:
        """The kernels' ``ORDER_INPUTS`` tuple for `members` of `hood` (packed keys only)."""
        return (
            members.entry_order,
            members.starts,
            np.asarray(hood.nodes),
            np.asarray(hood.relations),
            np.asarray(hood.directions),
            self._relation_rank,
            self._degrees,
            self._max_degree,
            self._degree_bits,
            self._node_bits,
        )

    def member_links(
        self, hood: Neighborhood, members: NeighborSet, shown: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(counts, relation codes, direction flags) of the shown members' relations.

        See :func:`tools.neighbor_kernels.member_links`: relations by name, bit 1 outgoing,
        bit 2 incoming.
        """
        return neighbor_kernels.member_links(
            np.asarray(shown, dtype=np.int64),
            members.entry_order,
            members.starts,
            np.asarray(hood.relations),
            np.asarray(hood.directions),
            self._relation_rank,
        )

    def _lexsort_keys(self, hood: Neighborhood) -> np.ndarray:
        """Keys as ranks, for graphs too large to pack the order into one int64."""
        nodes = np.asarray(hood.nodes, dtype=np.int64)
        rank = self._relation_rank[hood.relations]
        incoming = (hood.directions < 0).astype(np.int64)
        missing_degree = self._max_degree - self._degrees[nodes]
        order = np.lexsort((nodes, missing_degree, incoming, rank))
        keys = np.empty(len(order), dtype=np.int64)
        keys[order] = np.arange(len(order), dtype=np.int64)
        return keys


@dataclass(frozen=True)
class NeighborSet:
    """The distinct neighbours of a :class:`Neighborhood`, each with the positions of its entries.

    Attributes:
        nodes: Distinct internal ids, ascending.
        entry_order: Positions into the neighbourhood's arrays, grouped by node (same order as
            `nodes`).
        starts: Where each node's group begins in `entry_order`.
    """

    nodes: np.ndarray
    entry_order: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, hood: Neighborhood) -> NeighborSet:
        """Group the entries of `hood` by neighbour node.

        The neighbour array is a concatenation of sorted runs (one per relation and direction);
        a stable argsort (timsort) exploits them and is several times faster at hub sizes.
        """
        nodes = np.asarray(hood.nodes, dtype=np.int64)
        order = np.argsort(nodes, kind="stable")
        ordered = nodes[order]
        first = np.empty(len(ordered), dtype=bool)
        first[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        return cls(nodes=ordered[starts], entry_order=order, starts=starts)

    def __len__(self) -> int:
        return len(self.nodes)

    def nodes_per_code(self, entry_codes: np.ndarray, size: int) -> np.ndarray:
        """How many distinct nodes have at least one entry of each code (length `size`)."""
        return neighbor_kernels.nodes_per_code(
            self.entry_order, self.starts, np.asarray(entry_codes), max(size, 1)
        )[:size]


def top_entries(keys: np.ndarray, scores: np.ndarray | None, k: int) -> np.ndarray:
    """Positions of the best `k` entries, in order: by score (highest first) then key.

    Runs in O(n + k log k): only the top k are sorted (ties at the cut are broken by key).
    """
    if scores is None:
        return _smallest_keys(keys, np.arange(len(keys)), k)
    # Partition the negated scores: np.partition near the end of an array full of equal
    # values (most neighbours score 0) is pathologically slow, near the start it is not.
    negated = -scores
    if len(keys) > k:
        cut = np.partition(negated, k - 1)[k - 1]
        above = np.flatnonzero(negated < cut)
        tied = _smallest_keys(keys, np.flatnonzero(negated == cut), k - len(above))
        chosen = np.concatenate((above, tied))
    else:
        chosen = np.arange(len(keys))
    return chosen[np.lexsort((keys[chosen], negated[chosen]))]


def _smallest_keys(keys: np.ndarray, positions: np.ndarray, count: int) -> np.ndarray:
    """The `count` positions (of `positions`) with the smallest keys, sorted by key."""
    if count <= 0 or not len(positions):
        return positions[:0]
    return neighbor_kernels.smallest_keys(
        np.asarray(keys, dtype=np.int64), np.asarray(positions, dtype=np.int64), count
    )
