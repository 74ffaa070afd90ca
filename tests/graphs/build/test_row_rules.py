"""One list of row rules: both builds break a graph under exactly those rules, in that order."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.build.row_rules import EDGE_RULES, NODE_RULES
from tests.graphs.build.stream_compare import build_both

NODES = pa.table(
    {
        "id": ["a", "b", "c", "", "e", "f", "g", "a"],
        "type": ["t", "t", "u", "t", "", "t", "t", "t"],
        "name": ["A", "B", "C", "D", "E", "", "G", "A2"],
        "text": ["x", "y", "z", "w", "v", "", "", "q"],
    }
)
"""Rows: unreadable (c), empty id, empty type, neither name nor text, empty text, duplicate id."""
EDGES = pa.table(
    {
        "src": ["a", "a", "a", "", "zz", "a", "a", "b", "a"],
        "dst": ["b", "b", "b", "b", "b", "", "zz", "b", "b"],
        "relation": ["r", "r", "", "r", "r", "r", "r", "r", "r"],
    }
)
"""Rows: unreadable (first), kept, empty relation, empty src, dangling src, empty dst,
dangling dst, self-loop, a duplicate of the second (the last two invalid under strict)."""
UNREADABLE_NODES = np.array([0, 0, 1, 0, 0, 0, 0, 0], dtype=bool)
UNREADABLE_EDGES = np.array([1, 0, 0, 0, 0, 0, 0, 0, 0], dtype=bool)


@pytest.mark.parametrize("streaming", [False, True])
def test_every_rule_is_reported_in_rule_order_by_both_builds(
    tmp_path: Path, streaming: bool
) -> None:
    report = tmp_path / "report.jsonl"
    options = BuildOptions(skip_invalid=True, strict=True, report_path=report, streaming=streaming)
    build_snapshot(
        NODES,
        EDGES,
        tmp_path / "g",
        name="g",
        options=options,
        unreadable_nodes=UNREADABLE_NODES,
        unreadable_edges=UNREADABLE_EDGES,
    )
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    nodes = [(line["row"], line["problem"]) for line in lines if line["file"] == "nodes"]
    reasons = [rule.reason for rule in NODE_RULES.rules]
    assert nodes == list(zip([3, 4, 5, 6, 7, 8], reasons, strict=True))
    edge_lines = [line for line in lines if line["file"] == "edges"]
    assert [line["problem"] for line in edge_lines] == [rule.reason for rule in EDGE_RULES.rules]
    assert [line["row"] for line in edge_lines] == [1, 3, 4, 5, 6, 7, 8, 9]
    shown = [line["value"] for line in edge_lines]
    assert shown[4:6] == ["", "zz"]  # the dst rules show the dst value, the others src


def test_the_two_builds_write_the_same_report(tmp_path: Path) -> None:
    options = BuildOptions(skip_invalid=True, strict=True, report_path=Path("report.csv"))
    build_both(
        NODES,
        EDGES,
        tmp_path,
        options=options,
        unreadable_nodes=UNREADABLE_NODES,
        unreadable_edges=UNREADABLE_EDGES,
    )
    memory = (tmp_path / "memory-report.csv").read_text()
    stream = (tmp_path / "stream-report.csv").read_text()
    assert memory == stream and memory.count("\n") == 1 + 6 + 8


def test_rule_codes_are_positions_and_first_failed_takes_the_earliest() -> None:
    assert NODE_RULES.code("unreadable") == 1 and EDGE_RULES.code("duplicate_edge") == 8
    assert EDGE_RULES.by_code(4).key == "dangling_src"
    failed = {"empty_type": np.array([1, 1, 0], bool), "empty_id": np.array([0, 1, 0], bool)}
    assert NODE_RULES.first_failed(failed, 3).tolist() == [3, 2, 0]
