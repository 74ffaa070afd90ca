"""Memory-mapped CSR adjacency over both edge directions, with relation and node-type filters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

OUT, IN = np.int8(1), np.int8(-1)
ARRAY_FILES = ("indptr", "neighbors", "relations", "directions", "node_types")


@dataclass(frozen=True)
class Neighborhood:
    """Parallel arrays, one entry per (edge, direction) around an anchor node.

    Attributes:
        nodes: int64 internal ids of the neighbours.
        relations: int16 relation codes.
        directions: int8; +1 for an edge anchor -> neighbour, -1 for neighbour -> anchor.
    """

    nodes: np.ndarray
    relations: np.ndarray
    directions: np.ndarray

    def __len__(self) -> int:
        return len(self.nodes)


def build_csr(
    directory: Path,
    src: np.ndarray,
    dst: np.ndarray,
    relations: np.ndarray,
    node_types: np.ndarray,
    num_relations: int,
) -> None:
    """Write the CSR arrays (.npy) for edges src -> dst into `directory`.

    Every edge is stored twice: in src's row with direction +1 and in dst's row with -1.
    Rows are sorted by (relation, direction (+1 first), neighbour), so a relation filter
    is a binary-search slice.
    """
    directory.mkdir(parents=True, exist_ok=True)
    num_nodes = len(node_types)
    anchors = np.concatenate((src, dst)).astype(np.int64)
    others = np.concatenate((dst, src)).astype(np.int64)
    codes = np.concatenate((relations, relations)).astype(np.int64)
    incoming = np.repeat(np.array([0, 1], dtype=np.int64), len(src))
    span, kinds = max(num_nodes, 1), max(num_relations, 1)
    if span * span * kinds * 2 < 2**62:
        # One int64 key per entry: a plain sort, then decode, is far cheaper than an argsort.
        key = ((anchors * kinds + codes) * 2 + incoming) * span + others
        del anchors, others, codes, incoming
        key.sort()
        rest, neighbor = np.divmod(key, span)
        del key
        rest, direction_bit = np.divmod(rest, 2)
        anchor, relation = np.divmod(rest, kinds)
        del rest
    else:
        order = np.lexsort((others, incoming, codes, anchors))
        anchor, relation = anchors[order], codes[order]
        direction_bit, neighbor = incoming[order], others[order]
    indptr = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(anchor, minlength=num_nodes), out=indptr[1:])
    neighbor_type = np.int32 if num_nodes < 2**31 else np.int64
    np.save(directory / "indptr.npy", indptr)
    np.save(directory / "neighbors.npy", neighbor.astype(neighbor_type))
    np.save(directory / "relations.npy", relation.astype(np.int16))
    np.save(directory / "directions.npy", np.where(direction_bit == 0, OUT, IN).astype(np.int8))
    np.save(directory / "node_types.npy", np.asarray(node_types, dtype=np.int16))


class CSR:
    """Read-only adjacency over memory-mapped arrays; nothing is loaded until touched."""

    def __init__(self, directory: Path) -> None:
        # Plain ndarray views of the memmaps: slicing a np.memmap is ~4x slower.
        arrays = {
            name: np.asarray(np.load(directory / f"{name}.npy", mmap_mode="r"))
            for name in ARRAY_FILES
        }
        self.indptr: np.ndarray = arrays["indptr"]
        self.neighbors: np.ndarray = arrays["neighbors"]
        self.relations: np.ndarray = arrays["relations"]
        self.directions: np.ndarray = arrays["directions"]
        self.node_types: np.ndarray = arrays["node_types"]

    @property
    def num_nodes(self) -> int:
        """Number of rows (nodes)."""
        return len(self.indptr) - 1

    def degree(self, node: int) -> int:
        """Entries in `node`'s row (edges in both directions)."""
        return int(self.indptr[node + 1] - self.indptr[node])

    def neighbors_of(
        self,
        node: int,
        *,
        node_types: Sequence[int] | None = None,
        relations: Sequence[int] | None = None,
    ) -> Neighborhood:
        """Neighbours of internal node `node`, optionally restricted by type and relation codes."""
        start, stop = int(self.indptr[node]), int(self.indptr[node + 1])
        if relations is None:
            nodes = self.neighbors[start:stop]
            codes = self.relations[start:stop]
            directions = self.directions[start:stop]
        else:
            nodes, codes, directions = self._relation_slices(start, stop, relations)
        if node_types is not None and len(nodes):
            found = self.node_types[nodes]
            if len(node_types) == 1:
                keep = found == np.int16(node_types[0])
            else:
                keep = np.isin(found, np.asarray(node_types, dtype=np.int16))
            nodes, codes, directions = nodes[keep], codes[keep], directions[keep]
        return Neighborhood(
            nodes=nodes.astype(np.int64),
            relations=np.array(codes, dtype=np.int16),
            directions=np.array(directions, dtype=np.int8),
        )

    def _relation_slices(
        self, start: int, stop: int, relations: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        row = self.relations[start:stop]
        wanted = np.unique(np.asarray(relations, dtype=np.int16))
        lows = np.searchsorted(row, wanted, side="left") + start
        highs = np.searchsorted(row, wanted, side="right") + start
        if len(wanted) == 1:
            piece = slice(int(lows[0]), int(highs[0]))
            return self.neighbors[piece], self.relations[piece], self.directions[piece]
        pieces = [np.arange(low, high) for low, high in zip(lows, highs, strict=True) if high > low]
        index = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        return self.neighbors[index], self.relations[index], self.directions[index]
