"""The simple undirected graph the graph-modified embeddings use, with vectorised walks and pools.

Relations and directions are dropped, parallel edges merged and self-loops removed, as in the
GME paper ("the unweighted, undirected graph"). Everything here is numpy over CSR arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SimpleGraph:
    """Undirected adjacency without parallel edges or self-loops.

    Attributes:
        indptr: int64[n + 1] row offsets.
        indices: int64 neighbour ids, sorted within each row.
    """

    indptr: np.ndarray
    indices: np.ndarray

    @classmethod
    def from_csr(cls, indptr: np.ndarray, neighbors: np.ndarray) -> SimpleGraph:
        """Collapse a snapshot CSR (one entry per edge and direction) to a simple graph."""
        num_nodes = len(indptr) - 1
        rows = np.repeat(np.arange(num_nodes, dtype=np.int64), np.diff(indptr))
        return cls.from_pairs(num_nodes, rows, np.asarray(neighbors, dtype=np.int64))

    @classmethod
    def from_pairs(cls, num_nodes: int, rows: np.ndarray, cols: np.ndarray) -> SimpleGraph:
        """A simple graph from (row, col) pairs; both directions are added, duplicates merged."""
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        keys = np.concatenate((rows * num_nodes + cols, cols * num_nodes + rows))
        keys = np.unique(keys[np.concatenate((rows != cols, rows != cols))])
        anchors, indices = keys // num_nodes, keys % num_nodes
        indptr = np.zeros(num_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(anchors, minlength=num_nodes), out=indptr[1:])
        return cls(indptr, indices)

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return len(self.indptr) - 1

    @property
    def degrees(self) -> np.ndarray:
        """int64[n]: distinct neighbours per node."""
        return np.diff(self.indptr)

    def rows_of(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """(anchor, neighbour) pairs of nodes start..stop-1, sorted by anchor then neighbour."""
        low, high = int(self.indptr[start]), int(self.indptr[stop])
        anchors = np.repeat(np.arange(start, stop, dtype=np.int64), self.degrees[start:stop])
        return anchors, self.indices[low:high]

    def step(self, nodes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One uniform random step from each of `nodes` (all must have a neighbour)."""
        degrees = self.degrees[nodes]
        offsets = (rng.random(len(nodes)) * degrees).astype(np.int64)
        return self.indices[self.indptr[nodes] + offsets]

    def edge_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Each undirected edge once, as (smaller id, larger id)."""
        anchors, neighbours = self.rows_of(0, self.num_nodes)
        keep = anchors < neighbours
        return anchors[keep], neighbours[keep]


def two_hop_pool(
    graph: SimpleGraph, start: int, stop: int, *, max_paths: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(anchor, node) pairs at distance exactly 2 for anchors start..stop-1, sorted, unique.

    An anchor whose two-step paths number at most `max_paths` gets its exact distance-2 set;
    above that (hubs) the set is drawn from `max_paths` uniform two-step walks, which keeps
    memory linear in the number of nodes instead of quadratic in hub degree.
    """
    anchors, middles = graph.rows_of(start, stop)
    paths = np.bincount(anchors - start, weights=graph.degrees[middles], minlength=stop - start)
    exact = paths <= max_paths
    exact_anchors, exact_middles = anchors[exact[anchors - start]], middles[exact[anchors - start]]
    counts = graph.degrees[exact_middles]
    ends_start = np.repeat(graph.indptr[exact_middles], counts)
    within = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts, counts
    )
    pair_anchor = np.repeat(exact_anchors, counts)
    pair_end = graph.indices[ends_start + within]
    sampled = np.flatnonzero(~exact) + start
    if len(sampled):
        walkers = np.repeat(sampled, max_paths)
        pair_anchor = np.concatenate((pair_anchor, walkers))
        pair_end = np.concatenate((pair_end, graph.step(graph.step(walkers, rng), rng)))
    span = graph.num_nodes
    keys = np.unique(pair_anchor * span + pair_end)
    keys = keys[keys // span != keys % span]
    direct = anchors * span + middles  # sorted: rows_of is sorted by anchor then neighbour
    keys = keys[~np.isin(keys, direct, assume_unique=True)]
    return keys // span, keys % span


def walk_endpoints(
    graph: SimpleGraph, nodes: np.ndarray, *, walks: int, steps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(start, endpoint) of `walks` uniform random walks of exactly `steps` steps per node.

    Nodes without neighbours launch no walk. Walks may return to their start.
    """
    movable = nodes[graph.degrees[nodes] > 0]
    starts = np.repeat(movable, walks)
    position = starts
    for _ in range(steps):
        position = graph.step(position, rng)
    return starts, position
