from __future__ import annotations

import csv
import json
import logging
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError
from graphs.snapshot import Snapshot

GOOD_NODES = {
    "id": ["a", "b", "c"],
    "type": ["t", "t", "u"],
    "name": ["A", "B", "C"],
    "text": ["alpha", "beta", "gamma"],
}
GOOD_EDGES = {"src": ["a", "b"], "dst": ["b", "c"], "relation": ["r", "s"]}


def tables(
    extra_nodes: dict[str, list[str | None]] | None = None,
    extra_edges: dict[str, list[str | None]] | None = None,
) -> tuple[pa.Table, pa.Table]:
    nodes: dict[str, list[str | None]] = {key: list(v) for key, v in GOOD_NODES.items()}
    edges: dict[str, list[str | None]] = {key: list(v) for key, v in GOOD_EDGES.items()}
    for key, values in (extra_nodes or {}).items():
        nodes[key] += values
    for key, values in (extra_edges or {}).items():
        edges[key] += values
    as_table = lambda d: pa.table({k: pa.array(v, pa.string()) for k, v in d.items()})  # noqa: E731
    return as_table(nodes), as_table(edges)


STRICT_ONLY = ("self-loop (src == dst)", "duplicate edge")
"""Problems that are errors only with --strict (by default: kept / collapsed and counted)."""


def options_for(problem: str, **flags: object) -> BuildOptions:
    """Default options, strict for the problems that are errors only under --strict."""
    return BuildOptions(strict=problem.startswith(STRICT_ONLY), **flags)  # type: ignore[arg-type]


NODE_ROW = 4  # the bad row appended after three good nodes
EDGE_ROW = 3  # the bad row appended after two good edges

BAD_CASES = [
    pytest.param(
        {"id": ["a"], "type": ["t"], "name": ["A2"], "text": ["x"]},
        None,
        "nodes.csv",
        NODE_ROW,
        "duplicate node id; the first row with this id is kept: 'a'",
        id="duplicate-node-id",
    ),
    pytest.param(
        {"id": [""], "type": ["t"], "name": ["N"], "text": ["x"]},
        None,
        "nodes.csv",
        NODE_ROW,
        "empty node id",
        id="empty-node-id",
    ),
    pytest.param(
        {"id": ["d"], "type": [" "], "name": ["D"], "text": ["x"]},
        None,
        "nodes.csv",
        NODE_ROW,
        "empty node type: 'd'",
        id="empty-type",
    ),
    pytest.param(
        {"id": ["d"], "type": [None], "name": ["D"], "text": ["x"]},
        None,
        "nodes.csv",
        NODE_ROW,
        "empty node type: 'd'",
        id="null-type",
    ),
    pytest.param(
        {"id": ["d"], "type": ["t"], "name": [""], "text": [None]},
        None,
        "nodes.csv",
        NODE_ROW,
        "node has neither name nor text: 'd'",
        id="empty-name-and-text",
    ),
    pytest.param(
        {"id": ["d"], "type": ["t"], "name": ["D"], "text": [" "]},
        None,
        "nodes.csv",
        NODE_ROW,
        "empty text: 'd'",
        id="empty-text",
    ),
    pytest.param(
        None,
        {"src": ["a"], "dst": ["zz"], "relation": ["r"]},
        "edges.csv",
        EDGE_ROW,
        "dst is not the id of a valid node: 'zz'",
        id="missing-endpoint",
    ),
    pytest.param(
        None,
        {"src": ["a"], "dst": ["c"], "relation": [""]},
        "edges.csv",
        EDGE_ROW,
        "empty relation",
        id="empty-relation",
    ),
    pytest.param(
        None,
        {"src": ["a"], "dst": ["a"], "relation": ["r"]},
        "edges.csv",
        EDGE_ROW,
        "self-loop (src == dst): 'a'",
        id="self-loop",
    ),
    pytest.param(
        None,
        {"src": ["a"], "dst": ["b"], "relation": ["r"]},
        "edges.csv",
        EDGE_ROW,
        "duplicate edge (same src, dst, relation); the first is kept: 'a'",
        id="duplicate-edge",
    ),
]


@pytest.mark.parametrize(("bad_nodes", "bad_edges", "file", "row", "problem"), BAD_CASES)
def test_bad_row_is_reported_with_file_row_and_problem(
    tmp_path: Path,
    bad_nodes: dict[str, list[str | None]] | None,
    bad_edges: dict[str, list[str | None]] | None,
    file: str,
    row: int,
    problem: str,
) -> None:
    nodes, edges = tables(bad_nodes, bad_edges)
    with pytest.raises(GraphImportError) as raised:
        build_snapshot(
            nodes,
            edges,
            tmp_path / "s",
            name="x",
            options=options_for(problem),
            nodes_file="nodes.csv",
            edges_file="edges.csv",
        )
    error = raised.value
    assert (error.file, error.row) == (file, row)
    assert str(error).startswith(f"file {file}, row {row}: {problem}")
    assert "pass --skip-invalid (Python: BuildOptions(skip_invalid=True)) to skip" in str(error)
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(("bad_nodes", "bad_edges", "file", "row", "problem"), BAD_CASES)
def test_skip_invalid_reports_every_skipped_row(
    tmp_path: Path,
    bad_nodes: dict[str, list[str | None]] | None,
    bad_edges: dict[str, list[str | None]] | None,
    file: str,
    row: int,
    problem: str,
) -> None:
    nodes, edges = tables(bad_nodes, bad_edges)
    out = build_snapshot(
        nodes,
        edges,
        tmp_path / "s",
        name="x",
        options=options_for(problem, skip_invalid=True),
        nodes_file="nodes.csv",
        edges_file="edges.csv",
    )
    with (out / "skipped_rows.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1
    assert (rows[0]["file"], int(rows[0]["row"])) == (file, row)
    assert problem.startswith(rows[0]["problem"])
    snap = Snapshot.open(out)
    assert snap.manifest.skipped_rows == 1
    assert (snap.num_nodes, snap.num_edges) == (3, 2)


def test_many_problems_show_first_few_and_count_the_rest(tmp_path: Path) -> None:
    bad: dict[str, list[str | None]] = {
        "src": ["a"] * 8,
        "dst": [f"x{i}" for i in range(8)],
        "relation": ["r"] * 8,
    }
    nodes, edges = tables(None, bad)
    with pytest.raises(GraphImportError) as raised:
        build_snapshot(nodes, edges, tmp_path / "s", name="x", edges_file="edges.csv")
    message = str(raised.value)
    assert "file edges.csv, row 3: dst is not the id of a valid node: 'x0'" in message
    assert "file edges.csv, row 7: dst is not the id of a valid node: 'x4'" in message
    assert "'x5'" not in message
    assert "... and 3 more invalid rows" in message
    assert "8 invalid rows in all" in message


def test_edges_of_a_skipped_node_are_reported_too(tmp_path: Path) -> None:
    nodes, edges = tables(
        {"id": ["d"], "type": [""], "name": ["D"], "text": ["x"]},
        {"src": ["d"], "dst": ["a"], "relation": ["r"]},
    )
    report = tmp_path / "report.jsonl"
    options = BuildOptions(skip_invalid=True, report_path=report)
    out = build_snapshot(nodes, edges, tmp_path / "s", name="x", options=options)
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert [(line["file"], line["row"], line["problem"]) for line in lines] == [
        ("nodes", 4, "empty node type"),
        ("edges", 3, "src is not the id of a valid node"),
    ]
    assert Snapshot.open(out).manifest.skipped_rows == 2


@pytest.mark.parametrize(
    ("table", "missing"),
    [("nodes", "type"), ("edges", "relation")],
)
def test_missing_column_lists_the_columns_present(tmp_path: Path, table: str, missing: str) -> None:
    nodes, edges = tables()
    if table == "nodes":
        nodes = nodes.drop_columns([missing])
    else:
        edges = edges.drop_columns([missing])
    with pytest.raises(GraphImportError, match=f"missing column\\(s\\) {missing}; the table has"):
        build_snapshot(nodes, edges, tmp_path / "s", name="x")


def test_unknown_candidate_type_is_refused(tmp_path: Path) -> None:
    nodes, edges = tables()
    with pytest.raises(GraphImportError, match="unknown candidate type\\(s\\) paper; the node"):
        build_snapshot(nodes, edges, tmp_path / "s", name="x", candidate_types=["paper"])


@pytest.mark.parametrize("num_nodes", [10, 2**40], ids=["int64-key", "lexsort"])
def test_duplicate_edges_flag_later_rows_on_both_paths(num_nodes: int) -> None:
    from graphs.build.validate import _duplicate_edges

    src = np.array([1, 2, 1, 1, 2, 1])
    dst = np.array([2, 3, 2, 2, 3, 3])
    codes = np.array([0, 0, 1, 0, 0, 0], dtype=np.int16)
    keep = np.array([True, True, True, True, True, False])
    found = _duplicate_edges(src, dst, codes, keep, num_nodes)
    assert found.tolist() == [False, False, False, True, True, False]


def test_empty_text_error_says_how_to_fix_it(tmp_path: Path) -> None:
    nodes, edges = tables(
        {"id": ["d", "e"], "type": ["t", "t"], "name": ["D", "E"], "text": [None, ""]}
    )
    with pytest.raises(GraphImportError) as raised:
        build_snapshot(nodes, edges, tmp_path / "s", name="x", nodes_file="nodes.csv")
    lines = str(raised.value).splitlines()
    assert lines[0] == "file nodes.csv, row 4: empty text: 'd'"
    assert lines[1] == "  file nodes.csv, row 5: empty text: 'e'"
    assert lines[2] == (
        "  empty text: give these nodes text (e.g. map text columns with --text-cols), or pass "
        "--allow-empty-text (Python: BuildOptions(allow_empty_text=True)) to use each node's "
        "name as its text"
    )
    assert lines[3].startswith("  2 invalid rows in all; fix these rows, or pass --skip-invalid")


def test_allow_empty_text_uses_the_name_and_logs_the_count(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nodes, edges = tables(
        {"id": ["d", "e", "f"], "type": ["t"] * 3, "name": ["D", "E", ""], "text": ["", None, ""]}
    )
    with caplog.at_level(logging.WARNING, logger="graphs.build.checks"):
        out = build_snapshot(
            nodes,
            edges,
            tmp_path / "s",
            name="x",
            options=BuildOptions(allow_empty_text=True, skip_invalid=True),
            nodes_file="nodes.csv",
        )
    snap = Snapshot.open(out)
    assert [snap.text(snap.internal_id(node)) for node in ("a", "d", "e")] == ["alpha", "D", "E"]
    assert snap.manifest.skipped_rows == 1  # f has neither name nor text: still invalid
    messages = [record.getMessage() for record in caplog.records]
    assert "nodes.csv: 2 of 5 nodes have empty text; their name is used as their text" in messages


def test_duplicate_edges_collapse_and_self_loops_stay_counted_by_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nodes, edges = tables(
        None,
        {
            "src": ["a", "a", "c", "b", "c"],
            "dst": ["b", "b", "c", "c", "c"],
            "relation": ["r", "r", "loop", "s", "loop"],
        },
    )
    with caplog.at_level(logging.INFO, logger="graphs.build.checks"):
        out = build_snapshot(nodes, edges, tmp_path / "s", name="x", edges_file="edges.csv")
    snap = Snapshot.open(out)
    # a-r->b three times and b-s->c twice collapse into one each; c-loop->c twice into one loop
    assert snap.num_edges == 3
    assert (snap.manifest.duplicate_edges, snap.manifest.self_loops) == (4, 1)
    assert snap.manifest.skipped_rows == 0
    around = snap.neighbors(snap.internal_id("c"))
    loops = [
        (snap.relation_names[r], int(d))
        for n, r, d in zip(around.nodes, around.relations, around.directions, strict=True)
        if n == snap.internal_id("c")
    ]
    assert sorted(loops) == [("loop", -1), ("loop", 1)]  # the self-loop is data: kept
    messages = [record.getMessage() for record in caplog.records]
    assert any("collapsed 4 duplicate edges, kept 1 self-loops" in m for m in messages)


def test_strict_makes_both_errors_that_name_every_row(tmp_path: Path) -> None:
    nodes, edges = tables(None, {"src": ["a", "c"], "dst": ["b", "c"], "relation": ["r", "r"]})
    with pytest.raises(GraphImportError) as raised:
        build_snapshot(nodes, edges, tmp_path / "s", name="x", options=BuildOptions(strict=True))
    message = str(raised.value)
    assert "file edges, row 3: duplicate edge (same src, dst, relation)" in message
    assert "file edges, row 4: self-loop (src == dst): 'c'" in message
    assert "--strict (Python: strict=True) makes duplicate edges and self-loops errors" in message
    assert "2 invalid rows in all" in message
