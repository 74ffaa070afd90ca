"""`ark graph synth` end to end through the Typer app."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cli.app import build_app


def test_synth_writes_snapshot_and_questions(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    args = ["graph", "synth", "--domain", "academic", "--seed", "2", "--out", str(out)]
    result = CliRunner().invoke(build_app(), [*args, "--nodes", "600", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["domain"] == "academic" and summary["nodes"] == 600
    first = json.loads((out / "qa" / "test.jsonl").read_text().splitlines()[0])
    assert set(first) == {"id", "query", "answer_ids", "family"}
    assert (out / "manifest.json").exists()


def test_synth_rejects_an_unknown_domain(tmp_path: Path) -> None:
    args = ["graph", "synth", "--domain", "movies", "--out", str(tmp_path / "x")]
    result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 2
    assert "products, academic, biomed" in result.output
    assert not (tmp_path / "x").exists()


def test_synth_refuses_to_overwrite_without_the_flag(tmp_path: Path) -> None:
    args = ["graph", "synth", "--domain", "biomed", "--out", str(tmp_path / "s"), "--nodes", "500"]
    assert CliRunner().invoke(build_app(), args).exit_code == 0
    again = CliRunner().invoke(build_app(), args)
    assert again.exit_code == 2 and "--overwrite" in again.output
    assert CliRunner().invoke(build_app(), [*args, "--overwrite"]).exit_code == 0


def test_synth_shares_the_import_flags_and_its_graphs_pass_strict(tmp_path: Path) -> None:
    from graphs.manifest import read_manifest

    out = tmp_path / "s"
    args = ["graph", "synth", "--domain", "products", "--out", str(out), "--nodes", "500"]
    result = CliRunner().invoke(build_app(), [*args, "--strict", "--json"])
    assert result.exit_code == 0, result.output
    manifest = read_manifest(out)
    assert (manifest.duplicate_edges, manifest.self_loops, manifest.skipped_rows) == (0, 0, 0)
    assert json.loads(result.stdout)["edges"] == manifest.num_edges
