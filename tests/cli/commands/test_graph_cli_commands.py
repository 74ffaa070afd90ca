from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli.app import ArkGroup
from cli.commands import graph

runner = CliRunner()


def build_app() -> typer.Typer:
    """Only this module's commands, wired the way cli/app.py wires them."""
    app = typer.Typer(cls=ArkGroup, pretty_exceptions_enable=False)  # its one error handler
    graph_app, import_app = typer.Typer(), typer.Typer()
    graph_app.add_typer(import_app, name="import")
    app.add_typer(graph_app, name="graph")
    graph.register(graph_app, import_app)
    return app


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    nodes = tmp_path / "items.tsv"
    nodes.write_text(
        "key\tcategory\tlabel\tblurb\n"
        "1\tproduct\tLamp\ta desk lamp\n"
        "2\tproduct\tBulb\tled bulb\n"
        "3\tbrand\tAcme\t\n",
        encoding="utf-8",
    )
    edges = tmp_path / "links.tsv"
    edges.write_text("a\tb\tkind\n1\t3\tmade_by\n2\t3\tmade_by\n1\t2\tuses\n", encoding="utf-8")
    return nodes, edges


def import_args(nodes: Path, edges: Path, out: Path, *, allow_empty_text: bool = True) -> list[str]:
    return [
        "graph", "import", "tabular", "--nodes", str(nodes), "--edges", str(edges),
        "--out", str(out), "--id-col", "key", "--type-col", "category", "--name-col", "label",
        "--text-cols", "blurb", "--src-col", "a", "--dst-col", "b", "--relation-col", "kind",
        "--candidate-types", "product", *(["--allow-empty-text"] if allow_empty_text else []),
    ]  # fmt: skip


def test_import_then_info(tmp_path: Path, files: tuple[Path, Path]) -> None:
    out = tmp_path / "snap"
    result = runner.invoke(build_app(), import_args(*files, out))
    assert result.exit_code == 0, result.output
    assert "3 nodes, 3 edges, 2 node types, 2 relations" in result.stdout
    info = runner.invoke(build_app(), ["graph", "info", str(out), "--json", "--verify"])
    assert info.exit_code == 0, info.output
    summary = json.loads(info.stdout)
    assert summary["num_nodes"] == 3
    assert summary["node_types"] == {"brand": 1, "product": 2}
    assert summary["candidate_types"] == ["product"]
    assert {"relation": "made_by", "source_type": "product", "target_type": "brand",
            "count": 2} in summary["signatures"]  # fmt: skip
    assert summary["degree"]["max"] == 2.0
    assert summary["text_bytes"]["min"] == 4.0  # "Acme": empty text fell back to the name
    table = runner.invoke(build_app(), ["graph", "info", str(out)], env={"COLUMNS": "80"})
    assert table.exit_code == 0
    assert "made_by" in table.stdout and "Relation signatures" in table.stdout
    lines = table.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = table.stdout.split("Node types")[0]  # rich pads grid rows with spaces
    assert re.search(r"^skipped rows +0 *$", header, re.MULTILINE)
    assert re.search(r"^size +3 nodes, 3 edges, [0-9.]+ MB on disk *$", header, re.MULTILINE)
    assert re.search(r"^candidate types +product *$", header, re.MULTILINE)


def test_empty_text_is_an_error_without_allow_empty_text(
    tmp_path: Path, files: tuple[Path, Path]
) -> None:
    nodes, edges = files
    args = import_args(nodes, edges, tmp_path / "snap", allow_empty_text=False)
    result = runner.invoke(build_app(), args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"file {nodes}, row 3: empty text: '3'" in result.output
    assert "--allow-empty-text" in result.output and "--skip-invalid" in result.output
    assert not (tmp_path / "snap").exists()


def test_bad_input_exits_2_with_one_clean_message(
    tmp_path: Path, files: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    nodes, edges = files
    edges.write_text("a\tb\tkind\n1\t9\tmade_by\n", encoding="utf-8")
    result = runner.invoke(build_app(), import_args(nodes, edges, tmp_path / "snap"))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"file {edges}, row 1: dst is not the id of a valid node: '9'" in result.output
    assert not (tmp_path / "snap").exists()
    skipped = runner.invoke(
        build_app(), [*import_args(nodes, edges, tmp_path / "snap"), "--skip-invalid"]
    )
    assert skipped.exit_code == 0, skipped.output
    assert skipped.output.count("skipped 1 invalid rows") == 1
    assert "every one is listed in" in skipped.stdout
    # Not also a warning, which would reach the terminal a second time.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and "skipped" in r.msg]
    assert (tmp_path / "snap" / "skipped_rows.csv").read_text().count("\n") == 2


def test_info_on_missing_or_broken_snapshot_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(build_app(), ["graph", "info", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert "is not a snapshot directory" in result.output
    assert "Traceback" not in result.output
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{not json")
    result = runner.invoke(build_app(), ["graph", "info", str(tmp_path / "broken")])
    assert result.exit_code == 2
    assert "is not a valid manifest" in result.output
