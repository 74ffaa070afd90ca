"""`--analyzer` at import: recorded in the manifest, shown by `ark graph info`, checked early."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from graphs.errors import SnapshotError
from graphs.manifest import read_manifest
from graphs.snapshot import Snapshot

runner = CliRunner()
app = build_app()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(
        "id,type,name,text\n1,item,Lamp,The lamps were glowing\n2,item,Bulb,a bulb\n",
        encoding="utf-8",
    )
    edges = tmp_path / "edges.csv"
    edges.write_text("src,dst,relation\n1,2,uses\n", encoding="utf-8")
    return nodes, edges


def _import(files: tuple[Path, Path], out: Path, *extra: str) -> int:
    nodes, edges = files
    args = ["graph", "import", "tabular", "--nodes", str(nodes), "--edges", str(edges)]
    result = runner.invoke(app, [*args, "--out", str(out), *extra])
    return result.exit_code


def test_default_analyzer_and_info_shows_it(files: tuple[Path, Path], tmp_path: Path) -> None:
    assert _import(files, tmp_path / "snap") == 0
    assert read_manifest(tmp_path / "snap").analyzer == "english"
    info = runner.invoke(app, ["graph", "info", str(tmp_path / "snap"), "--json"])
    assert json.loads(info.stdout)["analyzer"] == "english"
    assert json.loads(info.stdout)["bm25"] == "Okapi idf, k1 0.9, b 0.4, exact lengths"


def test_stemming_analyzer_is_used_for_search(files: tuple[Path, Path], tmp_path: Path) -> None:
    assert _import(files, tmp_path / "snap", "--analyzer", "english-stem") == 0
    snapshot = Snapshot.open(tmp_path / "snap")
    assert snapshot.index.analyzer == "english-stem"
    assert snapshot.index.search("glow lamp", 5)[0].tolist() == [0]


def test_unknown_analyzer_is_a_clear_error(files: tuple[Path, Path], tmp_path: Path) -> None:
    assert _import(files, tmp_path / "snap", "--analyzer", "french") == 2
    assert not (tmp_path / "snap").exists()
    nodes, edges = files
    out = str(tmp_path / "snap")
    tabular = ["graph", "import", "tabular", "--nodes", str(nodes), "--edges", str(edges)]
    result = runner.invoke(app, [*tabular, "--out", out, "--analyzer", "french"])
    assert "unknown analyzer 'french'" in result.output and "english-stem" in result.output
    synth = ["graph", "synth", "--domain", "products", "--out", out, "--analyzer", "french"]
    result = runner.invoke(app, synth)
    assert result.exit_code == 2 and "unknown analyzer 'french'" in result.output


def test_a_manifest_disagreeing_with_its_index_is_refused(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    assert _import(files, tmp_path / "snap") == 0
    manifest = tmp_path / "snap" / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "analyzer": "plain"}))
    disagree = "built with analyzer 'english', the manifest says"
    with pytest.raises(SnapshotError, match=disagree):
        Snapshot.open(tmp_path / "snap")


def test_manifests_without_the_field_are_refused_with_the_rebuild_hint(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    assert _import(files, tmp_path / "snap", "--analyzer", "plain") == 0
    manifest = tmp_path / "snap" / "manifest.json"
    data = json.loads(manifest.read_text())
    del data["analyzer"]
    manifest.write_text(json.dumps(data))
    with pytest.raises(SnapshotError, match="rebuild the snapshot"):
        read_manifest(tmp_path / "snap")
