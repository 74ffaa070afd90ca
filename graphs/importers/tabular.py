"""Import a graph from a nodes file and an edges file (CSV/TSV, Parquet, JSONL) by column flags."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions, streams_files
from graphs.build.stream.stage import TableSource
from graphs.build.stream.writer import build_snapshot_streaming
from graphs.build.validate import NODE_COLUMNS
from graphs.errors import GraphImportError
from graphs.importers.table_files import read_table, read_table_skipping_bad_bytes
from graphs.importers.table_stream import TableStream, stream_table
from graphs.snapshot.aliases import ALIASES_COLUMN

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class TabularColumns:
    """Which input columns hold what; every field maps onto one `ark graph import` flag.

    Attributes:
        id_col: Node id column (--id-col).
        type_col: Node type column (--type-col).
        name_col: Node name column (--name-col).
        text_cols: Columns joined into the node text (--text-cols). One column is used as is;
            several become "column: value" lines, skipping empty values. None: the "text"
            column if the file has one, else no text (an error unless empty text is allowed).
        src_col: Edge source id column (--src-col).
        dst_col: Edge target id column (--dst-col).
        relation_col: Edge relation column (--relation-col).
        default_type: Type of every node when the nodes file has no type column.
        default_relation: Relation of every edge when the edges file has no relation column.
        delimiter: Field delimiter; forces delimited-text parsing (default: by extension).
    """

    id_col: str = "id"
    type_col: str = "type"
    name_col: str = "name"
    text_cols: tuple[str, ...] | None = None
    src_col: str = "src"
    dst_col: str = "dst"
    relation_col: str = "relation"
    default_type: str | None = None
    default_relation: str | None = None
    delimiter: str | None = None


def import_tabular(
    nodes_path: Path,
    edges_path: Path,
    out: Path,
    *,
    columns: TabularColumns = TabularColumns(),
    name: str | None = None,
    candidate_types: Sequence[str] = (),
    options: BuildOptions | None = None,
) -> Path:
    """Build a snapshot at `out` from a nodes file and an edges file.

    From an edges file of STREAMING_MIN_FILE_BYTES (or with `options.memory_limit` or
    `options.streaming`) both files are read batch by batch into the bounded-memory build;
    smaller graphs are read whole (faster). Both write the same snapshot.

    Node columns not mapped to id/type/name/text are kept in nodes.parquet (a column whose
    name clashes with id/type/name/text is kept as `attr_<name>`). Unmapped edge columns
    are not kept (logged). With `options.allow_empty_text`, a node with empty text (or every
    node, when no text column is mapped) gets its name as text; otherwise that is an error.
    `options` also says how duplicate edges, self-loops and invalid rows are treated.

    Raises:
        GraphImportError: a file cannot be read, a mapped column is missing (the message lists
            the file's columns and the flag to use), no text column is mapped and empty text
            is not allowed, or a row is invalid (see build_snapshot).
    """
    options = options or BuildOptions()
    nodes_path, edges_path = Path(nodes_path), Path(edges_path)
    text_cols = columns.text_cols
    node_strings = [
        columns.id_col,
        columns.type_col,
        columns.name_col,
        *(text_cols or ["text"]),
        ALIASES_COLUMN,  # "7157|TP53": names, not numbers (graphs/snapshot/aliases.py)
    ]
    if streams_files(options, edges_path):
        return _import_streaming(
            nodes_path, edges_path, out, columns, node_strings, name, candidate_types, options
        )
    # With --skip-invalid a row holding bytes that are not UTF-8 is one more invalid row.
    read = read_table_skipping_bad_bytes if options.skip_invalid else _read_strict
    raw_nodes, unreadable_nodes = read(
        nodes_path, delimiter=columns.delimiter, string_columns=node_strings
    )
    raw_edges, unreadable_edges = read(
        edges_path,
        delimiter=columns.delimiter,
        string_columns=[columns.src_col, columns.dst_col, columns.relation_col],
    )
    nodes = map_nodes(
        raw_nodes, columns, str(nodes_path), allow_empty_text=options.allow_empty_text
    )
    edges = map_edges(raw_edges, columns, str(edges_path))
    return build_snapshot(
        nodes,
        edges,
        out,
        name=name or Path(out).name,
        candidate_types=candidate_types,
        sources=[str(nodes_path), str(edges_path)],
        options=options,
        nodes_file=str(nodes_path),
        edges_file=str(edges_path),
        unreadable_nodes=unreadable_nodes,
        unreadable_edges=unreadable_edges,
    )


def _import_streaming(
    nodes_path: Path,
    edges_path: Path,
    out: Path,
    columns: TabularColumns,
    node_strings: Sequence[str],
    name: str | None,
    candidate_types: Sequence[str],
    options: BuildOptions,
) -> Path:
    """import_tabular in bounded memory: both files read batch by batch, never whole."""
    edge_strings = [columns.src_col, columns.dst_col, columns.relation_col]
    nodes_in = stream_table(
        nodes_path,
        delimiter=columns.delimiter,
        string_columns=node_strings,
        skip_bad_bytes=options.skip_invalid,
    )
    edges_in = stream_table(
        edges_path,
        delimiter=columns.delimiter,
        string_columns=edge_strings,
        skip_bad_bytes=options.skip_invalid,
    )
    nodes_file, edges_file = str(nodes_path), str(edges_path)

    def mapped_nodes(table: pa.Table) -> pa.Table:
        return map_nodes(table, columns, nodes_file, allow_empty_text=options.allow_empty_text)

    def mapped_edges(table: pa.Table) -> pa.Table:
        return map_edges(table, columns, edges_file, warn=False)

    map_edges(edges_in.schema.empty_table(), columns, edges_file)  # warns once of dropped columns
    return build_snapshot_streaming(
        _source(nodes_in, mapped_nodes, nodes_file),
        _source(edges_in, mapped_edges, edges_file),
        out,
        name=name or Path(out).name,
        candidate_types=candidate_types,
        sources=[nodes_file, edges_file],
        options=options,
        progress=options.progress,
    )


def _source(
    stream: TableStream, mapping: Callable[[pa.Table], pa.Table], label: str
) -> TableSource:
    """The mapped batches of `stream` (id/type/name/text or src/dst/relation columns)."""
    schema = mapping(stream.schema.empty_table()).schema

    def batches() -> Iterator[tuple[pa.RecordBatch, np.ndarray | None]]:
        for table, mask in stream.batches:
            if table.num_rows:
                yield mapping(table).combine_chunks().to_batches()[0], mask

    return TableSource(schema, batches(), label, stream.num_rows)


def map_nodes(
    table: pa.Table, columns: TabularColumns, file: str, *, allow_empty_text: bool = False
) -> pa.Table:
    """Rename and derive the id, type, name and text columns of a raw nodes table.

    Raises:
        GraphImportError: a mapped column is missing, or no text column is mapped (none
            given and no "text" column) and `allow_empty_text` is off.
    """
    required = [(columns.id_col, "--id-col"), (columns.name_col, "--name-col")]
    if columns.default_type is None:
        required.append((columns.type_col, "--type-col (or --default-type)"))
    required += [(column, "--text-cols") for column in columns.text_cols or ()]
    _require(table, required, file)
    count = table.num_rows
    if columns.default_type is None:
        types = table.column(columns.type_col)
    else:
        types = pa.chunked_array([pa.array([columns.default_type] * count, pa.string())])
    text_cols = columns.text_cols
    if text_cols is None:
        text_cols = ("text",) if "text" in table.column_names else ()
        if not text_cols and not allow_empty_text:
            raise GraphImportError(
                "no 'text' column and no --text-cols, so every node would have empty text; "
                "map the text column(s) with --text-cols a,b (Python: TabularColumns("
                "text_cols=...)), or pass --allow-empty-text (Python: BuildOptions("
                "allow_empty_text=True)) "
                "to use each node's name as its text; the file's columns are: "
                f"{', '.join(table.column_names) or '(none)'}",
                file=file,
            )
    mapped = {
        "id": table.column(columns.id_col),
        "type": types,
        "name": table.column(columns.name_col),
        "text": join_text(table, text_cols),
    }
    used = {columns.id_col, columns.type_col, columns.name_col, *text_cols}
    for column in table.column_names:
        if column not in used:
            kept = f"attr_{column}" if column in NODE_COLUMNS else column
            mapped[kept] = table.column(column)
    return pa.table(mapped)


def map_edges(
    table: pa.Table, columns: TabularColumns, file: str, *, warn: bool = True
) -> pa.Table:
    """Rename the src, dst and relation columns of a raw edges table.

    `warn` logs the edge columns that are not kept (once per file, not once per batch).
    """
    required = [(columns.src_col, "--src-col"), (columns.dst_col, "--dst-col")]
    if columns.default_relation is None:
        required.append((columns.relation_col, "--relation-col (or --default-relation)"))
    _require(table, required, file)
    if columns.default_relation is None:
        relation = table.column(columns.relation_col)
    else:
        relation = pa.chunked_array(
            [pa.array([columns.default_relation] * table.num_rows, pa.string())]
        )
    dropped = set(table.column_names) - {columns.src_col, columns.dst_col, columns.relation_col}
    if dropped and warn:
        logger.warning(
            "%s: edge columns %s are not kept in the snapshot", file, ", ".join(sorted(dropped))
        )
    return pa.table(
        {
            "src": table.column(columns.src_col),
            "dst": table.column(columns.dst_col),
            "relation": relation,
        }
    )


def join_text(table: pa.Table, text_cols: Sequence[str]) -> pa.ChunkedArray:
    """Node text from `text_cols`: one column as is, several as "column: value" lines."""
    if not text_cols:
        return pa.chunked_array([pa.array([""] * table.num_rows, pa.string())])
    values = [pc.fill_null(_as_text(table, column), "") for column in text_cols]
    if len(values) == 1:
        return values[0]
    lines = []
    for column, value in zip(text_cols, values, strict=True):
        blank = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(value)), 0)
        lines.append(
            pc.if_else(blank, "", pc.binary_join_element_wise(f"{column}: ", value, "\n", ""))
        )
    return pc.utf8_rtrim(pc.binary_join_element_wise(*lines, ""), characters="\n")


def _as_text(table: pa.Table, column: str) -> pa.ChunkedArray:
    values = table.column(column)
    if values.type == pa.string():
        return values
    try:
        return pc.cast(values, pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise GraphImportError(
            f"text column {column!r} has type {values.type}, which cannot be joined into text"
        ) from error


def _require(table: pa.Table, required: Sequence[tuple[str, str]], file: str) -> None:
    missing = [(column, flag) for column, flag in required if column not in table.column_names]
    if missing:
        wanted = "; ".join(f"no column {column!r} (set it with {flag})" for column, flag in missing)
        raise GraphImportError(
            f"{wanted}; the file's columns are: {', '.join(table.column_names) or '(none)'}",
            file=file,
        )


def _read_strict(
    path: Path, *, delimiter: str | None, string_columns: Sequence[str]
) -> tuple[pa.Table, np.ndarray]:
    """`read_table`, with no unreadable rows (any bytes that are not UTF-8 are an error)."""
    table = read_table(path, delimiter=delimiter, string_columns=string_columns)
    return table, np.zeros(0, dtype=bool)
