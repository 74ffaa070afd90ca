"""`ark search` and `ark neighbors` print exactly what the model sees; bad input exits 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import typer
from typer.testing import CliRunner

from cli.app import ArkGroup
from cli.commands import tool
from graphs.snapshot import Snapshot
from tools.toolset import Toolset


def _run(*args: str) -> tuple[int, str, str]:
    app = typer.Typer(cls=ArkGroup, pretty_exceptions_enable=False)  # as `ark` registers it
    tool.register(app)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_search_prints_the_observation_text(tiny_snapshot: Snapshot) -> None:
    code, out, _ = _run("search", str(tiny_snapshot.path), "analytical engine", "-k", "2")
    expected = Toolset(tiny_snapshot).call("search", {"query": "analytical engine", "k": 2})
    assert code == 0
    assert out == expected.text + "\n"


def test_search_type_filter_and_json(tiny_snapshot: Snapshot) -> None:
    code, out, _ = _run(
        "search",
        str(tiny_snapshot.path),
        "engine",
        "--node-type",
        "author",
        "--type",
        "venue",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["node_ids"] == ["A2"]
    assert data["text"].startswith('1 result for "engine" with node_types: author, venue:')
    assert data["error"] is None
    assert set(data) == {"text", "node_ids", "scores", "error"}  # no agent state


def test_neighbors_json_and_json_errors_carry_no_agent_state(tiny_snapshot: Snapshot) -> None:
    code, out, _ = _run("neighbors", str(tiny_snapshot.path), "P1", "-k", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["node_ids"] == ["P2", "P3"]
    assert set(data) == {"text", "node_ids", "scores", "error"}
    code, out, _ = _run("neighbors", str(tiny_snapshot.path), "ZZ", "--json")
    assert code == 2
    data = json.loads(out)
    assert data["error"]["kind"] == "unknown_node"
    assert set(data) == {"text", "node_ids", "scores", "error"}


def test_neighbors_with_query_and_filters(tiny_snapshot: Snapshot) -> None:
    code, out, _ = _run(
        "neighbors",
        str(tiny_snapshot.path),
        "P1",
        "--query",
        "babbage",
        "--edge-type",
        "cites",
        "--node-type",
        "paper",
        "-k",
        "1",
    )
    assert code == 0
    assert out.splitlines()[0] == (
        "neighbours of [P1] Notes on the Analytical Engine (paper) with node_types: paper; "
        'edge_types: cites, ranked by "babbage":'
    )
    assert out.splitlines()[1].startswith("<-[cites]- [P3] ")


def test_unknown_node_is_one_line_and_exit_2(tiny_snapshot: Snapshot) -> None:
    code, out, err = _run("neighbors", str(tiny_snapshot.path), "P99")
    assert code == 2
    assert out == ""
    assert err.startswith("error: unknown node id 'P99'")
    assert len(err.strip().splitlines()) == 1


def test_unknown_type_exit_2_with_suggestion(tiny_snapshot: Snapshot) -> None:
    code, _, err = _run("search", str(tiny_snapshot.path), "engine", "--type", "papers")
    assert code == 2
    assert "did you mean 'paper'?" in err


def test_bad_snapshot_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, out, err = _run("search", str(tmp_path / "missing"), "engine")
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_damaged_snapshot_is_one_line_and_exit_2(tiny_snapshot: Snapshot, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_snapshot.path, copy)
    for part in sorted((copy / "csr").glob("*.npy"))[:1]:
        part.unlink()
    code, out, err = _run("neighbors", str(copy), "P1")
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
