"""Vectorised validation of node and edge tables by build/row_rules.py, and their encoding."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from graphs.build.problems import RowProblems
from graphs.build.row_rules import EDGE_RULES, NODE_RULES, RowRule
from graphs.errors import GraphImportError
from graphs.snapshot.aliases import check_aliases_type

NODE_COLUMNS = ("id", "type", "name", "text")
EDGE_COLUMNS = ("src", "dst", "relation")
EDGE_ENDS = ("src", "dst")
MAX_CODES = np.iinfo(np.int16).max
_Rows = TypeVar("_Rows", pa.Table, pa.ChunkedArray)


@dataclass(frozen=True)
class ValidGraph:
    """The valid part of an imported graph, encoded for building a snapshot.

    Internal node id i is row i of `nodes`. With `allow_empty_text`, empty text is replaced
    by the node's name; `name_as_text` counts those nodes. Unless strict, `duplicate_edges`
    counts the exact repeats of an edge that were collapsed into its first row and
    `self_loops` the kept edges whose src equals dst.
    """

    nodes: pa.Table
    type_names: list[str]
    type_codes: np.ndarray
    edges: pa.Table
    relation_names: list[str]
    relation_codes: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    problems: list[RowProblems]
    name_as_text: int = 0
    duplicate_edges: int = 0
    self_loops: int = 0

    @property
    def num_nodes(self) -> int:
        """Valid nodes (rows of `nodes`)."""
        return self.nodes.num_rows


def validate_graph(
    nodes: pa.Table,
    edges: pa.Table,
    *,
    nodes_file: str = "nodes",
    edges_file: str = "edges",
    allow_empty_text: bool = False,
    strict: bool = False,
    unreadable_nodes: np.ndarray | None = None,
    unreadable_edges: np.ndarray | None = None,
) -> ValidGraph:
    """Check every row of `nodes` and `edges`, keep the valid ones and encode them.

    A row with several problems is reported once, for the first problem found. A node with
    empty text (but a name) is invalid unless `allow_empty_text`, which uses its name instead.
    An exact duplicate edge (same src, dst, relation) is collapsed into its first row and a
    self-loop is kept, both counted; with `strict` both are invalid rows instead. Dangling
    endpoints, duplicate node ids and missing types are always invalid. Rows flagged in
    `unreadable_nodes` / `unreadable_edges` (bytes that were not UTF-8, blanked by the reader)
    are invalid first, under that reason.

    Raises:
        GraphImportError: a required column is missing or has an unusable type (or the
            optional aliases column, graphs/snapshot/aliases.py), or there are more than
            32,767 node types or relations.
    """
    nodes = require_strings(nodes, NODE_COLUMNS, nodes_file)
    check_aliases_type(nodes.schema, nodes_file)
    edges = require_strings(edges, EDGE_COLUMNS, edges_file)
    problems: list[RowProblems] = []
    keep_nodes = _check_nodes(
        nodes, nodes_file, problems, allow_empty_text, _unreadable(unreadable_nodes, nodes)
    )
    nodes = _keep(nodes, keep_nodes)
    nodes = nodes.set_column(2, "name", pc.fill_null(nodes.column("name"), ""))  # no name: ""
    blank_text = is_blank(nodes.column("text"))
    name_as_text = int(blank_text.sum())
    if name_as_text:
        text = pc.if_else(pa.array(blank_text), nodes.column("name"), nodes.column("text"))
        nodes = nodes.set_column(3, "text", text)
    type_names, type_codes = _encode(nodes.column("type"), "node types", nodes_file)
    node_ids = nodes.column("id").combine_chunks()

    keep_edges, src, dst = _check_edge_endpoints(
        edges, node_ids, edges_file, problems, _unreadable(unreadable_edges, edges)
    )
    loop = (src == dst) & keep_edges
    if strict:
        _record(problems, edges_file, EDGE_RULES["self_loop"], loop, edges.column("src"))
        keep_edges &= ~loop
    relation_names, relation_codes = _encode(
        _keep(edges.column("relation"), keep_edges), "relations", edges_file
    )
    codes = np.full(edges.num_rows, -1, dtype=np.int16)
    codes[keep_edges] = relation_codes
    duplicate = _duplicate_edges(src, dst, codes, keep_edges, len(node_ids))
    if strict:
        _record(problems, edges_file, EDGE_RULES["duplicate_edge"], duplicate, edges.column("src"))
    keep_edges &= ~duplicate
    return ValidGraph(
        nodes=nodes,
        type_names=type_names,
        type_codes=type_codes,
        edges=_keep(edges.select(list(EDGE_COLUMNS)), keep_edges),
        relation_names=relation_names,
        relation_codes=codes[keep_edges],
        src=src[keep_edges],
        dst=dst[keep_edges],
        problems=problems,
        name_as_text=name_as_text,
        duplicate_edges=0 if strict else int(duplicate.sum()),
        self_loops=0 if strict else int((loop & keep_edges).sum()),
    )


def _keep(values: _Rows, keep: np.ndarray) -> _Rows:
    """`values` (a table or array) filtered by `keep`, without a copy when all rows stay."""
    return values if keep.all() else values.filter(pa.array(keep))


def require_strings(table: pa.Table, columns: Sequence[str], file: str) -> pa.Table:
    """`table` with `columns` first, cast to strings, then its other columns as they are.

    Raises:
        GraphImportError: a column is missing or cannot be read as text.
    """
    missing = [column for column in columns if column not in table.column_names]
    if missing:
        raise GraphImportError(
            f"missing column(s) {', '.join(missing)}; the table has columns "
            f"{', '.join(table.column_names) or '(none)'}; rename or map them "
            "(--id-col/--type-col/--name-col/--text-cols, --src-col/--dst-col/--relation-col)",
            file=file,
        )
    ordered = list(columns) + [name for name in table.column_names if name not in columns]
    table = table.select(ordered)
    for position, column in enumerate(columns):
        values = table.column(column)
        if values.type != pa.string():
            try:
                values = pc.cast(values, pa.string())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
                raise GraphImportError(
                    f"column {column!r} has type {values.type}, which cannot be read as text",
                    file=file,
                ) from error
        table = table.set_column(position, column, values)
    return table


def is_blank(values: pa.ChunkedArray) -> np.ndarray:
    """True for null, empty and whitespace-only strings."""
    blank = pc.or_(pc.equal(pc.binary_length(values), 0), pc.utf8_is_space(values))
    return np.asarray(pc.fill_null(blank, True).to_numpy(zero_copy_only=False), dtype=bool)


def _record(
    problems: list[RowProblems],
    file: str,
    rule: RowRule,
    bad: np.ndarray,
    values: pa.ChunkedArray,
) -> None:
    """Report the `bad` rows under `rule`, listing their `values` (the rule's shown column)."""
    rows = np.flatnonzero(bad)
    if len(rows):
        taken = values.take(pa.array(rows)).combine_chunks()
        problems.append(
            RowProblems(file=file, problem=rule.reason, rows=rows + 1, values=taken, hint=rule.hint)
        )


def _unreadable(mask: np.ndarray | None, table: pa.Table) -> np.ndarray:
    """The rows the reader could not decode (none when no mask was given)."""
    if mask is None or len(mask) == 0:
        return np.zeros(table.num_rows, dtype=bool)
    return np.asarray(mask, dtype=bool)


def _check_nodes(
    nodes: pa.Table,
    file: str,
    problems: list[RowProblems],
    allow_empty_text: bool,
    unreadable: np.ndarray,
) -> np.ndarray:
    ids = nodes.column("id")
    _record(problems, file, NODE_RULES["unreadable"], unreadable, ids)
    keep = ~unreadable
    no_text = is_blank(nodes.column("text"))
    checks = [
        ("empty_id", is_blank(ids)),
        ("empty_type", is_blank(nodes.column("type"))),
        ("no_name_or_text", is_blank(nodes.column("name")) & no_text),
    ]
    if not allow_empty_text:
        checks.append(("empty_text", no_text))
    for key, blank in checks:
        bad = blank & keep
        _record(problems, file, NODE_RULES[key], bad, ids)
        keep &= ~bad
    duplicate = _later_duplicates(_keep(ids, keep))
    bad = np.zeros_like(keep)
    bad[np.flatnonzero(keep)[duplicate]] = True
    _record(problems, file, NODE_RULES["duplicate_id"], bad, ids)
    return keep & ~bad


def _later_duplicates(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """True for every value that already occurred earlier (hash-based, O(n))."""
    distinct = pc.unique(values)
    if len(distinct) == len(values):
        return np.zeros(len(values), dtype=bool)
    codes = pc.index_in(values, value_set=distinct).to_numpy(zero_copy_only=False)
    # Codes follow first appearance, so a value is new exactly when it raises the running max.
    seen_max = np.maximum.accumulate(np.concatenate(([-1], codes[:-1])))
    return np.asarray(codes <= seen_max)


def _encode(values: pa.ChunkedArray, what: str, file: str) -> tuple[list[str], np.ndarray]:
    names = sorted(pc.unique(values).to_pylist())
    if len(names) > MAX_CODES:
        raise GraphImportError(
            f"{len(names)} distinct {what}; at most {MAX_CODES} are supported", file=file
        )
    codes = pc.index_in(values, value_set=pa.array(names, pa.string()))
    return names, np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int16)


def _internal_ids(values: pa.ChunkedArray, node_ids: pa.Array) -> np.ndarray:
    internal = pc.fill_null(pc.index_in(values, value_set=node_ids), -1)
    return np.asarray(internal.to_numpy(zero_copy_only=False), dtype=np.int64)


def _check_edge_endpoints(
    edges: pa.Table,
    node_ids: pa.Array,
    file: str,
    problems: list[RowProblems],
    unreadable: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _record(problems, file, EDGE_RULES["unreadable"], unreadable, edges.column("src"))
    keep = ~unreadable
    relation = edges.column("relation")
    bad = is_blank(relation) & keep
    _record(problems, file, EDGE_RULES["empty_relation"], bad, edges.column("src"))
    keep &= ~bad
    ends = []
    with ThreadPoolExecutor(max_workers=2) as pool:  # Arrow releases the GIL: 2 cores, ~2x
        looked_up = list(pool.map(lambda c: _internal_ids(edges.column(c), node_ids), EDGE_ENDS))
    for column, ids in zip(EDGE_ENDS, looked_up, strict=True):
        values = edges.column(column)
        blank = is_blank(values) & keep
        _record(problems, file, EDGE_RULES[f"empty_{column}"], blank, values)
        keep &= ~blank
        missing = (ids < 0) & keep
        _record(problems, file, EDGE_RULES[f"dangling_{column}"], missing, values)
        keep &= ~missing
        ends.append(ids)
    src, dst = ends
    return keep, src, dst


def _duplicate_edges(
    src: np.ndarray, dst: np.ndarray, codes: np.ndarray, keep: np.ndarray, num_nodes: int
) -> np.ndarray:
    """True for every kept edge whose (src, dst, relation) occurred in an earlier kept row."""
    rows = np.flatnonzero(keep)
    num_relations = int(codes.max(initial=0)) + 1
    duplicate = np.zeros(len(keep), dtype=bool)
    if len(rows) < 2:
        return duplicate
    if num_nodes * num_nodes * num_relations < 2**62:
        key = (src[rows] * num_relations + codes[rows]) * num_nodes + dst[rows]
        ordered = np.sort(key)  # far faster than hashing 10^7 distinct int64
        if not (ordered[1:] == ordered[:-1]).any():
            return duplicate
        order = np.argsort(key, kind="stable")
        columns: tuple[np.ndarray, ...] = (key[order],)
    else:
        order = np.lexsort((dst[rows], codes[rows], src[rows]))
        columns = (src[rows][order], codes[rows][order], dst[rows][order])
    same = np.ones(len(rows) - 1, dtype=bool)
    for column in columns:
        same &= column[1:] == column[:-1]
    # A stable order keeps equal keys in row order, so all but the first of a run are later.
    duplicate[rows[order[1:][same]]] = True
    return duplicate
