"""Memory-mapped CSR adjacency over both edge directions, with relation and node-type filters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.errors import SnapshotError
from graphs.invariants import (
    fail,
    load_array,
    require_ascending_rows,
    require_offsets,
    require_range,
    require_shape,
)
from graphs.layout import CSR_ARRAYS, csr_file

OUT, IN = np.int8(1), np.int8(-1)
KEY_LIMIT = 2**62
"""Graphs whose (node, relation, direction, node) key fits below this sort one int64 key."""
ARRAY_FILES = CSR_ARRAYS
_IDS = ("int32", "int64")


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
    is a binary-search slice; each entry also holds its neighbour's type code, so a type
    filter reads the row instead of gathering from the per-node type array.
    """
    directory.mkdir(parents=True, exist_ok=True)
    num_nodes, num_edges = len(node_types), len(src)
    span, kinds = max(num_nodes, 1), max(num_relations, 1)
    if span * span * kinds * 2 < KEY_LIMIT:
        neighbor, relation, direction_bit, anchor = _sorted_by_key(src, dst, relations, span, kinds)
    else:
        anchors = np.concatenate((src, dst)).astype(np.int64)
        others = np.concatenate((dst, src)).astype(np.int64)
        codes = np.concatenate((relations, relations)).astype(np.int64)
        incoming = np.repeat(np.array([0, 1], dtype=np.int64), num_edges)
        order = np.lexsort((others, incoming, codes, anchors))
        anchor, relation = anchors[order], codes[order]
        direction_bit, neighbor = incoming[order], others[order]
    indptr = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(anchor, minlength=num_nodes), out=indptr[1:])
    del anchor
    types = np.asarray(node_types, dtype=np.int16)
    np.save(csr_file(directory, "indptr"), indptr)
    np.save(csr_file(directory, "neighbors"), neighbor.astype(_id_dtype(num_nodes)))
    np.save(csr_file(directory, "neighbor_types"), types[neighbor])
    np.save(csr_file(directory, "relations"), relation.astype(np.int16))
    np.save(
        csr_file(directory, "directions"), np.where(direction_bit == 0, OUT, IN).astype(np.int8)
    )
    np.save(csr_file(directory, "node_types"), types)


def _id_dtype(num_nodes: int) -> type[np.signedinteger]:
    return np.int32 if num_nodes < 2**31 else np.int64


def _sorted_by_key(
    src: np.ndarray, dst: np.ndarray, relations: np.ndarray, span: int, kinds: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sort both directions by one int64 key, built and decoded in place to save memory.

    A plain sort of the key is far cheaper than an argsort or a lexsort.
    """
    num_edges = len(src)
    key = np.empty(2 * num_edges, dtype=np.int64)
    for half, (anchor, other, bit) in enumerate(((src, dst, 0), (dst, src, 1))):
        part = key[half * num_edges : (half + 1) * num_edges]
        part[:] = anchor
        part *= kinds
        part += relations
        part *= 2
        part += bit
        part *= span
        part += other
    key.sort()
    neighbor = (key % span).astype(_id_dtype(span))
    key //= span
    direction_bit = (key % 2).astype(np.int8)
    key //= 2
    relation = (key % kinds).astype(np.int16)
    key //= kinds
    return neighbor, relation, direction_bit, key


class CSR:
    """Read-only adjacency over memory-mapped arrays; nothing is loaded until touched."""

    def __init__(self, directory: Path, num_types: int) -> None:
        arrays = {name: load_array(csr_file(directory, name)) for name in CSR_ARRAYS}
        self.indptr: np.ndarray = arrays["indptr"]
        self.neighbors: np.ndarray = arrays["neighbors"]
        self.neighbor_types: np.ndarray = arrays["neighbor_types"]
        self.relations: np.ndarray = arrays["relations"]
        self.directions: np.ndarray = arrays["directions"]
        self.node_types: np.ndarray = arrays["node_types"]
        self.num_types = num_types

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
        """Neighbours of internal node `node`, optionally restricted by type and relation codes.

        Codes must be valid (0 <= code < number of types / relations); the caller checks.
        """
        start, stop = int(self.indptr[node]), int(self.indptr[node + 1])
        if relations is not None and len(relations) == 1:
            row = self.relations[start:stop]
            code = np.int16(relations[0])  # a Python int would upcast the whole row
            start, stop = (
                start + int(row.searchsorted(code, "left")),
                start + int(row.searchsorted(code, "right")),
            )
        if relations is None or len(relations) == 1:
            index: slice | np.ndarray = slice(start, stop)
        else:
            index = self._relation_index(start, stop, relations)
        nodes, codes, directions = (
            self.neighbors[index],
            self.relations[index],
            self.directions[index],
        )
        if node_types is not None and len(nodes):
            # Row-aligned neighbour types: a contiguous read instead of a random gather.
            found = self.neighbor_types[index]
            if len(node_types) == 1:
                keep = np.flatnonzero(found == np.int16(node_types[0]))
            else:
                wanted = np.zeros(self.num_types, dtype=bool)  # np.isin is ~10x slower
                wanted[list(node_types)] = True
                keep = np.flatnonzero(wanted[found])
            nodes, codes, directions = nodes[keep], codes[keep], directions[keep]
        return Neighborhood(
            nodes=nodes.astype(np.int64),
            relations=codes.astype(np.int16, copy=True),
            directions=directions.astype(np.int8, copy=True),
        )

    def _relation_index(self, start: int, stop: int, relations: Sequence[int]) -> np.ndarray:
        row = self.relations[start:stop]
        wanted = np.unique(np.asarray(relations, dtype=np.int16))
        lows = row.searchsorted(wanted, "left") + start
        highs = row.searchsorted(wanted, "right") + start
        pieces = [np.arange(low, high) for low, high in zip(lows, highs, strict=True) if high > low]
        return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)


def check_csr(csr: CSR, num_nodes: int, num_relations: int, *, full: bool = False) -> None:
    """Check what the neighbour code indexes with: offsets, ids and codes all in range.

    One vectorised pass over each array (O(nodes + edges)); `full` also checks each row's
    order, that every neighbour type is its node's type and that each edge is stored in both
    directions.

    Raises:
        SnapshotError: an invariant does not hold (the message names the file).
    """
    indptr = csr.indptr
    require_shape("csr/node_types.npy", csr.node_types, num_nodes, ("int16",))
    require_range("csr/node_types.npy", csr.node_types, 0, max(csr.num_types, 1))
    require_shape("csr/indptr.npy", indptr, num_nodes + 1, ("int64",))
    entries = len(csr.neighbors)
    require_offsets("csr/indptr.npy", indptr, entries)
    require_shape("csr/neighbors.npy", csr.neighbors, entries, _IDS)
    require_range("csr/neighbors.npy", csr.neighbors, 0, num_nodes)
    require_shape("csr/neighbor_types.npy", csr.neighbor_types, entries, ("int16",))
    require_range("csr/neighbor_types.npy", csr.neighbor_types, 0, max(csr.num_types, 1))
    require_shape("csr/relations.npy", csr.relations, entries, ("int16",))
    require_range("csr/relations.npy", csr.relations, 0, max(num_relations, 1))
    require_shape("csr/directions.npy", csr.directions, entries, ("int8",))
    require_range("csr/directions.npy", csr.directions, -1, 2)
    if entries and not bool(csr.directions.all()):  # np.isin is ~30x slower
        raise fail("csr/directions.npy", "holds a direction of 0 (only +1 and -1 are valid)")
    if full:
        _check_csr_fully(csr, num_nodes, num_relations)


def _check_csr_fully(csr: CSR, num_nodes: int, num_relations: int) -> None:
    span = max(num_nodes, 1)
    incoming = (csr.directions == IN).astype(np.int64)
    keys = (csr.relations.astype(np.int64) * 2 + incoming) * span + csr.neighbors
    require_ascending_rows("csr/relations.npy", keys, csr.indptr, strict=True)
    if not np.array_equal(csr.neighbor_types, csr.node_types[csr.neighbors]):
        raise fail("csr/neighbor_types.npy", "differs from the neighbours' node types")
    out = np.bincount(csr.relations[incoming == 0], minlength=num_relations)
    back = np.bincount(csr.relations[incoming == 1], minlength=num_relations)
    if not np.array_equal(out, back):
        raise fail("csr/directions.npy", "holds a different number of edges in each direction")


def csr_edges(csr: CSR) -> np.ndarray:
    """Every edge once as (source, relation, target) rows (int64), from the outgoing entries.

    Raises:
        SnapshotError: the CSR is not consistent (check it first).
    """
    if csr.indptr.size == 0:
        raise SnapshotError("csr/indptr.npy is empty")
    anchors = np.repeat(np.arange(csr.num_nodes, dtype=np.int64), np.diff(csr.indptr))
    outgoing = csr.directions == OUT
    return np.stack(
        (anchors[outgoing], csr.relations[outgoing].astype(np.int64), csr.neighbors[outgoing]),
        axis=1,
    ).astype(np.int64)
