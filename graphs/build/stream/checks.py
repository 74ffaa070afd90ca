"""Validation as SQL over the staged inputs: the row rules (build/row_rules.py) staging left."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from graphs.build.problems import RowProblems
from graphs.build.row_rules import EDGE_RULES, NODE_RULES, RuleList
from graphs.build.stream.engine import arrow_table
from graphs.build.stream.stage import FLAG, PROBLEM, Staged
from graphs.build.validate import MAX_CODES
from graphs.errors import GraphImportError
from graphs.snapshot.csr import KEY_LIMIT

_DUPLICATE_ID = NODE_RULES.code("duplicate_id")
_DANGLING_SRC = EDGE_RULES.code("dangling_src")
_EMPTY_DST = EDGE_RULES.code("empty_dst")
_DANGLING_DST = EDGE_RULES.code("dangling_dst")
_SELF_LOOP = EDGE_RULES.code("self_loop")
_DUPLICATE_EDGE = EDGE_RULES.code("duplicate_edge")
_DST_CODES = tuple(EDGE_RULES.code(rule.key) for rule in EDGE_RULES.rules if rule.shows == "dst")
"""Edge problems reported with the dst value (the others with src)."""


@dataclass(frozen=True)
class CheckedGraph:
    """What SQL validation leaves in the engine and what it found.

    Tables left in the engine: ``node_index(id, row, type_code, node)`` (one row per valid
    node; internal id ``node`` follows input row order) and ``edges_ok(row, s, d, rel)`` (one
    row per kept edge: internal ends and relation code).
    """

    type_names: list[str]
    relation_names: list[str]
    num_nodes: int
    num_edges: int
    problems: list[RowProblems]
    name_as_text: int
    duplicate_edges: int
    self_loops: int


def _stage_views(engine: Any, edges: Staged) -> None:
    engine.execute(
        f"""CREATE VIEW edges_in AS SELECT relation FROM read_parquet('{_quoted(edges.path)}')
            WHERE "{PROBLEM}" = 0"""
    )


def _quoted(path: object) -> str:
    return str(path).replace("'", "''")


def check_graph(
    engine: Any,
    nodes: Staged,
    edges: Staged,
    *,
    nodes_file: str,
    edges_file: str,
    strict: bool,
) -> CheckedGraph:
    """Find every invalid row of the staged inputs and encode the valid graph in the engine.

    Same reasons, same first-problem-per-row order and same kept rows as validate_graph.

    Raises:
        GraphImportError: more than 32,767 node types or relations.
    """
    problems: list[RowProblems] = []
    _check_nodes(engine, nodes)
    problems += _problems(engine, "node_rows", "id", NODE_RULES, nodes_file)
    type_names = _codes(engine, "node_first", "type", "node_types", "node types", nodes_file)
    _number_nodes(engine)
    _stage_views(engine, edges)
    _codes(engine, "edges_in", "relation", "any_relations", "relations", edges_file, limit=False)
    _check_edges(engine, edges, strict)
    relation_names = _relation_codes(engine, edges_file)
    kept_before = _count(engine, "SELECT count(*) FROM edge_rows WHERE problem = 0")
    _keep_first_edges(engine, _count(engine, "SELECT count(*) FROM node_index"), relation_names)
    num_edges = _count(engine, "SELECT count(*) FROM edges_ok")
    if strict:
        engine.execute(
            f"""UPDATE edge_rows SET problem = {_DUPLICATE_EDGE} WHERE problem = 0
               AND row NOT IN (SELECT row FROM edges_ok)"""
        )
    problems += _problems(engine, "edge_rows", "value", EDGE_RULES, edges_file)
    checked = CheckedGraph(
        type_names=type_names,
        relation_names=relation_names,
        num_nodes=_count(engine, "SELECT count(*) FROM node_index"),
        num_edges=num_edges,
        problems=problems,
        name_as_text=_count(engine, "SELECT count(*) FROM node_index WHERE flag"),
        duplicate_edges=0 if strict else kept_before - num_edges,
        self_loops=_count(engine, "SELECT count(*) FROM edges_ok WHERE s = d"),
    )
    for table in ("edge_rows", "node_rows"):  # every row's check: their memory goes back
        engine.execute(f"DROP TABLE {table}")
    return checked


def _check_nodes(engine: Any, nodes: Staged) -> None:
    engine.execute(
        f"""CREATE TABLE node_rows AS SELECT file_row_number AS row, id, type,
            "{PROBLEM}" AS problem, "{FLAG}" AS flag
            FROM read_parquet(?, file_row_number = true)""",
        [str(nodes.path)],
    )
    engine.execute(
        """CREATE TABLE node_first AS SELECT id, min(row) AS row, arg_min(type, row) AS type,
           arg_min(flag, row) AS flag FROM node_rows WHERE problem = 0 GROUP BY id"""
    )
    engine.execute(
        f"""UPDATE node_rows SET problem = {_DUPLICATE_ID} WHERE problem = 0
           AND row NOT IN (SELECT row FROM node_first)"""
    )


def _number_nodes(engine: Any) -> None:
    engine.execute(
        """CREATE TABLE node_index AS SELECT n.id, n.row, t.code AS type_code, n.flag,
           row_number() OVER (ORDER BY n.row) - 1 AS node
           FROM node_first n JOIN node_types t USING (type)"""
    )
    engine.execute("DROP TABLE node_first")


def _relation_codes(engine: Any, file: str) -> list[str]:
    """The relations of valid edges (sorted) and ``relations(any_code, code)`` mapping to them."""
    names = _codes(
        engine,
        "edge_rows e JOIN any_relations a ON e.any_code = a.code",
        "relation",
        "relations",
        "relations",
        file,
        "e.problem = 0",
    )
    engine.execute(
        """CREATE TABLE relation_codes AS SELECT a.code AS any_code, r.code
           FROM any_relations a JOIN relations r USING (relation)"""
    )
    return names


def _keep_first_edges(engine: Any, num_nodes: int, relation_names: list[str]) -> None:
    """``edges_ok``: the first row of each (src, dst, relation) among the valid edges.

    One int64 key is grouped when it fits (far cheaper to hash than three columns).
    """
    span, kinds = max(num_nodes, 1), max(len(relation_names), 1)
    valid = """SELECT e.row, e.s, e.d, c.code AS rel FROM edge_rows e
               JOIN relation_codes c USING (any_code) WHERE e.problem = 0"""
    if span * span * kinds < KEY_LIMIT:
        engine.execute(
            f"""CREATE TABLE edges_ok AS SELECT row, key // {kinds * span} AS s,
                key % {span} AS d, CAST((key // {span}) % {kinds} AS SMALLINT) AS rel
                FROM (SELECT min(row) AS row, (s * {kinds} + rel) * {span} + d AS key
                      FROM ({valid}) GROUP BY key)"""
        )
        return
    engine.execute(
        f"""CREATE TABLE edges_ok AS SELECT min(row) AS row, s, d, CAST(rel AS SMALLINT) AS rel
            FROM ({valid}) GROUP BY s, d, rel"""
    )


def _check_edges(engine: Any, edges: Staged, strict: bool) -> None:
    loop = f"WHEN s.node = d.node THEN {_SELF_LOOP}" if strict else ""
    engine.execute(
        f"""CREATE TABLE edge_rows AS SELECT row, any_code, s, d, problem,
            CASE WHEN problem IN {_DST_CODES} THEN dst WHEN problem > 0 OR {strict} THEN src
                 END AS value
            FROM (SELECT e.row, a.code AS any_code, e.src, e.dst, s.node AS s, d.node AS d,
            CASE WHEN e.problem > 0 THEN e.problem WHEN s.node IS NULL THEN {_DANGLING_SRC}
                 WHEN e.flag THEN {_EMPTY_DST} WHEN d.node IS NULL THEN {_DANGLING_DST} {loop}
                 ELSE 0 END AS problem
            FROM (SELECT file_row_number AS row, src, dst, relation, "{PROBLEM}" AS problem,
                  "{FLAG}" AS flag FROM read_parquet(?, file_row_number = true)) e
            LEFT JOIN node_index s ON e.src = s.id
            LEFT JOIN node_index d ON e.dst = d.id
            LEFT JOIN any_relations a ON e.relation = a.relation)""",
        [str(edges.path)],
    )


def _codes(
    engine: Any,
    table: str,
    column: str,
    target: str,
    what: str,
    file: str,
    where: str = "true",
    *,
    limit: bool = True,
) -> list[str]:
    """Sorted distinct values of ``table.column`` (as validate_graph sorts them), in ``target``."""
    found = engine.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {where}").fetchall()
    names = sorted(value for (value,) in found)
    if limit and len(names) > MAX_CODES:
        raise GraphImportError(
            f"{len(names)} distinct {what}; at most {MAX_CODES} are supported", file=file
        )
    engine.execute(f"CREATE TABLE {target} ({column} VARCHAR, code INTEGER)")
    if names:
        engine.execute(
            f"INSERT INTO {target} SELECT unnest(?::VARCHAR[]), unnest(?::INTEGER[])",
            [names, list(range(len(names)))],
        )
    return names


def _problems(engine: Any, table: str, value: str, rules: RuleList, file: str) -> list[RowProblems]:
    """One RowProblems per problem code present, in code order, rows ascending (1-based)."""
    found = []
    counts = dict(
        engine.execute(
            f"SELECT problem, count(*) FROM {table} WHERE problem > 0 GROUP BY problem"
        ).fetchall()
    )
    for code, rule in enumerate(rules.rules, start=1):
        if not counts.get(code):
            continue
        rows = arrow_table(
            engine,
            f"SELECT row, {value} AS value FROM {table} WHERE problem = ? ORDER BY row",
            [code],
        )
        found.append(
            RowProblems(
                file=file,
                problem=rule.reason,
                rows=np.asarray(rows.column("row").to_numpy(), dtype=np.int64) + 1,
                values=rows.column("value").combine_chunks().cast(pa.string()),
                hint=rule.hint,
            )
        )
    return found


def _count(engine: Any, sql: str) -> int:
    return int(engine.execute(sql).fetchall()[0][0])
