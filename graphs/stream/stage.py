"""Stage input batches into Parquet with each row's first row-level problem, checked by Arrow."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graphs.stream.progress import Progress
from graphs.validate import EDGE_COLUMNS, NODE_COLUMNS, is_blank, require_strings

PROBLEM = "__ark_problem"
FLAG = "__ark_flag"
"""Nodes: the text was blank (the name stands in). Edges: the dst id is blank."""

NODE_PROBLEMS = (
    "unreadable",
    "empty node id",
    "empty node type",
    "node has neither name nor text",
    "empty text",
    "duplicate node id; the first row with this id is kept",
)
"""Row-level problem codes 1..5 are found here; 6 by SQL (:mod:`graphs.stream.checks`)."""
EDGE_PROBLEMS = (
    "unreadable",
    "empty relation",
    "empty src node id",
    "src is not the id of a valid node",
    "empty dst node id",
    "dst is not the id of a valid node",
    "self-loop (src == dst)",
    "duplicate edge (same src, dst, relation); the first is kept",
)
"""Codes 1..3 are found here, the blank dst as a flag; 4..8 by SQL, in this order."""

Batches = Iterable[tuple[pa.RecordBatch, np.ndarray | None]]
"""Input batches in row order, each with its rows the reader could not decode (or None)."""


@dataclass(frozen=True)
class TableSource:
    """One input table as a stream of batches.

    Attributes:
        schema: The schema of every batch.
        batches: The batches, in row order, each with a mask of its undecodable rows.
        label: The file name used in errors and the report.
        num_rows: Rows in all, when known (for progress).
    """

    schema: pa.Schema
    batches: Batches
    label: str
    num_rows: int | None = None


def table_source(
    table: pa.Table, unreadable: np.ndarray | None, label: str, batch_rows: int = 1 << 18
) -> TableSource:
    """A TableSource over a table already in memory (what every importer has today)."""

    def batches() -> Iterator[tuple[pa.RecordBatch, np.ndarray | None]]:
        start = 0
        for batch in table.to_batches(max_chunksize=batch_rows):
            mask = None
            if unreadable is not None and len(unreadable):
                mask = unreadable[start : start + batch.num_rows]
            start += batch.num_rows
            yield batch, mask

    return TableSource(table.schema, batches(), label, table.num_rows)


@dataclass(frozen=True)
class Staged:
    """A staged input: Parquet of the checked columns plus PROBLEM and FLAG."""

    path: Path
    schema: pa.Schema
    num_rows: int


def output_schema(source: TableSource, columns: tuple[str, ...], file: str) -> pa.Schema:
    """The schema the snapshot's Parquet gets for this input (strings first, extras kept)."""
    return require_strings(source.schema.empty_table(), columns, file).schema


def stage_nodes(
    source: TableSource, path: Path, *, allow_empty_text: bool, progress: Progress
) -> Staged:
    """Write the nodes with codes 1..5 of NODE_PROBLEMS and the blank-text flag to ``path``.

    Text that is blank is replaced by the name here, as validate_graph does for kept nodes.
    """

    def check(table: pa.Table, unreadable: np.ndarray) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        no_text = is_blank(table.column("text"))
        flags = [
            unreadable,
            is_blank(table.column("id")),
            is_blank(table.column("type")),
            is_blank(table.column("name")) & no_text,
        ]
        if not allow_empty_text:
            flags.append(no_text)
        table = table.set_column(2, "name", pc.fill_null(table.column("name"), ""))  # as validate
        if no_text.any():
            text = pc.if_else(pa.array(no_text), table.column("name"), table.column("text"))
            table = table.set_column(3, "text", text)
        return table, _first_code(flags), no_text

    return _stage(source, path, NODE_COLUMNS, check, "nodes staged", progress)


def stage_edges(source: TableSource, path: Path, *, progress: Progress) -> Staged:
    """Write src, dst, relation with codes 1..3 of EDGE_PROBLEMS and the blank-dst flag."""

    def check(table: pa.Table, unreadable: np.ndarray) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        table = table.select(list(EDGE_COLUMNS))
        flags = [unreadable, is_blank(table.column("relation")), is_blank(table.column("src"))]
        return table, _first_code(flags), is_blank(table.column("dst"))

    return _stage(source, path, EDGE_COLUMNS, check, "edges staged", progress)


def _first_code(flags: list[np.ndarray]) -> np.ndarray:
    """1 + the index of each row's first true flag, 0 where none is."""
    code = np.zeros(len(flags[0]), dtype=np.int8)
    for number, flag in enumerate(flags, start=1):
        code[(code == 0) & flag] = number
    return code


def _stage(
    source: TableSource,
    path: Path,
    columns: tuple[str, ...],
    check: Callable[[pa.Table, np.ndarray], tuple[pa.Table, np.ndarray, np.ndarray]],
    phase: str,
    progress: Progress,
) -> Staged:
    schema = output_schema(source, columns, source.label)
    if columns == EDGE_COLUMNS:
        schema = pa.schema([schema.field(name) for name in EDGE_COLUMNS], schema.metadata)
    staged_schema = schema.append(pa.field(PROBLEM, pa.int8())).append(pa.field(FLAG, pa.bool_()))
    rows = 0
    with pq.ParquetWriter(path, staged_schema, compression="lz4") as writer:
        for batch, unreadable in _nonempty(source.batches):
            table = require_strings(pa.Table.from_batches([batch]), columns, source.label)
            mask = (
                np.zeros(batch.num_rows, dtype=bool)
                if unreadable is None or len(unreadable) == 0
                else np.asarray(unreadable, dtype=bool)
            )
            table, code, flag = check(table, mask)
            table = table.append_column(PROBLEM, pa.array(code)).append_column(FLAG, pa.array(flag))
            writer.write_table(pa.Table.from_arrays(table.columns, schema=staged_schema))
            rows += batch.num_rows
            progress(phase, rows, source.num_rows, "rows")
    progress(phase, rows, rows, "rows")
    return Staged(path=path, schema=schema, num_rows=rows)


def _nonempty(batches: Batches) -> Iterator[tuple[pa.RecordBatch, np.ndarray | None]]:
    for batch, unreadable in batches:
        if batch.num_rows:
            yield batch, unreadable
