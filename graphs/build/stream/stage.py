"""Stage input batches into Parquet with each row's first row-level problem, checked by Arrow."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graphs.build.row_rules import EDGE_RULES, NODE_RULES
from graphs.build.stream.progress import Progress
from graphs.build.validate import EDGE_COLUMNS, NODE_COLUMNS, is_blank, require_strings
from graphs.snapshot.aliases import check_aliases_type

PROBLEM = "__ark_problem"
FLAG = "__ark_flag"
"""Nodes: the text was blank (the name stands in). Edges: the dst id is blank."""

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
    """The schema the snapshot's Parquet gets for this input (strings first, extras kept).

    Raises:
        GraphImportError: a required column is missing or unusable, or the nodes' aliases
            column holds neither strings nor lists of strings (graphs/snapshot/aliases.py).
    """
    schema = require_strings(source.schema.empty_table(), columns, file).schema
    if columns == NODE_COLUMNS:
        check_aliases_type(schema, file)
    return schema


def stage_nodes(
    source: TableSource, path: Path, *, allow_empty_text: bool, progress: Progress
) -> Staged:
    """Write the nodes with the code of their first failed row rule, and a blank-text flag.

    The rules of graphs/build/row_rules.py up to empty text are checked here, row by row; the
    duplicate-id rule is SQL's (graphs/build/stream/checks.py).

    Text that is blank is replaced by the name here, as validate_graph does for kept nodes.
    """

    def check(table: pa.Table, unreadable: np.ndarray) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        no_text = is_blank(table.column("text"))
        failed = {
            "unreadable": unreadable,
            "empty_id": is_blank(table.column("id")),
            "empty_type": is_blank(table.column("type")),
            "no_name_or_text": is_blank(table.column("name")) & no_text,
        }
        if not allow_empty_text:
            failed["empty_text"] = no_text
        table = table.set_column(2, "name", pc.fill_null(table.column("name"), ""))  # as validate
        if no_text.any():
            text = pc.if_else(pa.array(no_text), table.column("name"), table.column("text"))
            table = table.set_column(3, "text", text)
        return table, NODE_RULES.first_failed(failed, table.num_rows), no_text

    return _stage(source, path, NODE_COLUMNS, check, "nodes staged", progress)


def stage_edges(source: TableSource, path: Path, *, progress: Progress) -> Staged:
    """Write src, dst, relation with the code of their first failed row rule, and a flag.

    The edge rules up to empty src are checked here; the flag marks a blank dst, whose rule
    comes after dangling src, which SQL checks with the rest (graphs/build/stream/checks.py).
    """

    def check(table: pa.Table, unreadable: np.ndarray) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        table = table.select(list(EDGE_COLUMNS))
        failed = {
            "unreadable": unreadable,
            "empty_relation": is_blank(table.column("relation")),
            "empty_src": is_blank(table.column("src")),
        }
        return table, EDGE_RULES.first_failed(failed, table.num_rows), is_blank(table.column("dst"))

    return _stage(source, path, EDGE_COLUMNS, check, "edges staged", progress)


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
