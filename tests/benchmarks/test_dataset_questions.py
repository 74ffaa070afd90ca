"""A dataset module's question check: every file reported, exit status 1 when any is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.datasets.tables import report_questions, tables_dir


def test_every_question_file_is_checked_and_a_wrong_one_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "graph"
    tables = tables_dir(out)
    tables.mkdir()
    for name in ("nodes.parquet", "edges.parquet"):
        (tables / name).write_bytes(b"")
    questions = tmp_path / "questions"
    questions.mkdir()
    for name in ("dev.jsonl", "final.jsonl"):
        (questions / name).write_text("{}\n")

    def check(found: Path, file: Path) -> list[str]:
        assert found == tables
        return ["final.jsonl line 1: gold differs"] if file.name == "final.jsonl" else []

    assert report_questions(out, "wordnet", check, questions) == 1
    printed = capsys.readouterr().out
    assert "dev.jsonl: every gold set matches its spec" in printed
    assert "final.jsonl line 1: gold differs" in printed
    assert report_questions(out, "wordnet", lambda _t, _f: [], questions) == 0


def test_a_graph_not_built_yet_names_the_command_that_builds_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"python -m benchmarks.datasets.hpo --out"):
        report_questions(tmp_path / "missing", "hpo", lambda _t, _f: [], tmp_path)
