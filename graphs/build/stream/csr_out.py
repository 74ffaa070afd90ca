"""The typed CSR in both directions from DuckDB's external sort, streamed into .npy files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphs.build.stream.engine import arrow_reader
from graphs.build.stream.npyfile import NpyAppender
from graphs.build.stream.progress import Progress
from graphs.layout import csr_file
from graphs.snapshot.csr import IN, KEY_LIMIT, OUT


@dataclass(frozen=True)
class EdgeCounts:
    """Counts gathered while the CSR streams by: per relation and per typed signature."""

    relations: np.ndarray
    signatures: np.ndarray
    """int64 counts indexed by (relation * types + source type) * types + target type."""


def write_node_types(engine: Any, directory: Path, num_nodes: int, batch_rows: int) -> np.ndarray:
    """Write csr/node_types.npy (type code of each internal node) and return it mapped."""
    directory.mkdir(parents=True, exist_ok=True)
    path = csr_file(directory, "node_types")
    reader = arrow_reader(engine, "SELECT type_code FROM node_index ORDER BY node", batch_rows)
    with NpyAppender(path, np.int16, num_nodes) as writer:
        for batch in reader:
            writer.append(batch.column(0).to_numpy())
    return np.load(path, mmap_mode="r")


def write_csr(
    engine: Any,
    directory: Path,
    node_types: np.ndarray,
    shape: tuple[int, int, int, int],
    batch_rows: int,
    progress: Progress,
) -> EdgeCounts:
    """Write indptr, neighbors, neighbor_types, relations and directions from ``edges_ok``.

    Same order as graphs.snapshot.csr.build_csr: each row by (relation, direction (+1 first),
    neighbour). ``shape`` is (nodes, edges, relations, node types).
    """
    num_nodes, num_edges, num_relations, num_types = shape
    span, kinds, types = max(num_nodes, 1), max(num_relations, 1), max(num_types, 1)
    entries = 2 * num_edges
    id_type = np.int32 if num_nodes < 2**31 else np.int64
    degree = np.zeros(num_nodes, dtype=np.int64)
    relation_counts = np.zeros(kinds, dtype=np.int64)
    signatures = np.zeros(kinds * types * types, dtype=np.int64)
    writers = {
        "neighbors": NpyAppender(csr_file(directory, "neighbors"), id_type, entries),
        "neighbor_types": NpyAppender(csr_file(directory, "neighbor_types"), np.int16, entries),
        "relations": NpyAppender(csr_file(directory, "relations"), np.int16, entries),
        "directions": NpyAppender(csr_file(directory, "directions"), np.int8, entries),
    }
    done = 0
    progress("csr", 0, entries, "entries")  # the clock starts before DuckDB's sort
    try:
        for anchor, relation, incoming, neighbor in _sorted_entries(
            engine, span, kinds, batch_rows
        ):
            neighbor_type = node_types[neighbor]
            writers["neighbors"].append(neighbor)
            writers["neighbor_types"].append(neighbor_type)
            writers["relations"].append(relation)
            writers["directions"].append(np.where(incoming == 0, OUT, IN))
            _add_runs(degree, anchor)
            out = incoming == 0
            relation_counts += np.bincount(relation[out], minlength=kinds)
            key = (relation[out].astype(np.int64) * types + node_types[anchor[out]]) * types
            signatures += np.bincount(key + neighbor_type[out], minlength=len(signatures))
            done += len(anchor)
            progress("csr", done, entries, "entries")
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    for writer in writers.values():
        writer.close()
    progress("csr", done, entries, "entries")
    indptr = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    np.save(csr_file(directory, "indptr"), indptr)
    return EdgeCounts(relations=relation_counts[:num_relations], signatures=signatures)


def _add_runs(degree: np.ndarray, anchor: np.ndarray) -> None:
    """Add the length of each run of equal anchors (a sorted chunk) to ``degree``."""
    if not len(anchor):
        return
    starts = np.flatnonzero(np.concatenate(([True], anchor[1:] != anchor[:-1])))
    lengths = np.diff(np.append(starts, len(anchor)))
    degree[anchor[starts]] += lengths


def _sorted_entries(engine: Any, span: int, kinds: int, batch_rows: int) -> Any:
    """Yield (anchor, relation, incoming bit, neighbour) arrays in CSR order, chunk by chunk.

    One int64 key is sorted when it fits (far cheaper than four columns), as build_csr does.
    """
    if span * span * kinds * 2 < KEY_LIMIT:
        reader = arrow_reader(
            engine,
            f"""SELECT key FROM (
                SELECT ((s * {kinds} + rel) * 2) * {span} + d AS key FROM edges_ok
                UNION ALL SELECT ((d * {kinds} + rel) * 2 + 1) * {span} + s FROM edges_ok)
                ORDER BY key""",
            batch_rows,
        )
        for batch in reader:
            key = np.array(batch.column(0).to_numpy(), dtype=np.int64)
            neighbor = key % span
            key //= span
            incoming = key % 2
            key //= 2
            yield key // kinds, (key % kinds).astype(np.int16), incoming, neighbor
        return
    reader = arrow_reader(
        engine,
        """SELECT anchor, rel, bit, other FROM (
           SELECT s AS anchor, rel, 0 AS bit, d AS other FROM edges_ok
           UNION ALL SELECT d, rel, 1, s FROM edges_ok) ORDER BY anchor, rel, bit, other""",
        batch_rows,
    )
    for batch in reader:
        columns = [np.asarray(column.to_numpy()) for column in batch.columns]
        yield (
            columns[0].astype(np.int64),
            columns[1].astype(np.int16),
            columns[2].astype(np.int64),
            columns[3].astype(np.int64),
        )
