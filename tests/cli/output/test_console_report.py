"""Piped and logged runs: plain progress lines, `ark eval report` on the terminal, its figures."""

from __future__ import annotations

import io
import logging
import sys
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from cli.app import build_app
from cli.output.config_doc import attribute_docs, commented_yaml
from cli.output.console import RunProgress, report_view
from distill.config import LoraSettings, TrainConfig, config_from_dict
from evals.report import build_report
from evals.runs.outcomes import Outcome
from evals.runs.runner import RunPlan
from evals.runs.store import FailureRecord
from tests.evals.test_eval_report import record, write_run


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_goes_out_as_plain_periodic_lines_when_not_on_a_terminal() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    clock = FakeClock()
    plan = RunPlan(total=4, already_done=0, retrying=0, pending=[object()] * 4)  # type: ignore[list-item]
    with RunProgress(console, enabled=True, label="rules n=3", interval_s=10, clock=clock) as bar:
        bar.start(plan)
        clock.now += 4
        bar.update(Outcome("q0", record=record("q0", 1.0, "one_hop", 0)))  # 4 s: too soon
        clock.now += 8
        bar.update(Outcome("q1", record=record("q1", 0.0, "one_hop", 0)))  # 12 s: a line
        clock.now += 1
        bar.update(
            Outcome("q2", failure=FailureRecord(question_id="q2", error_type="E", error="x"))
        )
        clock.now += 1
        bar.update(Outcome("q3", record=record("q3", 1.0, "one_hop", 0)))
    lines = out.getvalue().splitlines()
    assert lines == [
        "rules n=3: 0/4 questions, 0:00:00 elapsed; Hit@1 0.000  R@20 0.000",
        # no ETA from fewer than 3 finished questions: the first ones pay the start-up
        "rules n=3: 2/4 questions, 0:00:12 elapsed; Hit@1 0.500  R@20 0.500",
        "rules n=3: 4/4 questions, 0:00:14 elapsed; Hit@1 0.500  R@20 0.500  failed 1",
    ]
    assert "\x1b[" not in out.getvalue()  # plain text, no terminal codes


def test_progress_is_silent_when_disabled_and_a_bar_on_a_terminal() -> None:
    out = io.StringIO()
    plan = RunPlan(total=1, already_done=0, retrying=0, pending=[object()])  # type: ignore[list-item]
    with RunProgress(Console(file=out, force_terminal=False), enabled=False) as bar:
        bar.start(plan)
        bar.update(Outcome("q0", record=record("q0", 1.0, "one_hop", 0)))
    assert out.getvalue() == ""
    terminal = io.StringIO()
    with RunProgress(Console(file=terminal, force_terminal=True), enabled=True) as bar:
        bar.start(plan)
        bar.update(Outcome("q0", record=record("q0", 1.0, "one_hop", 0)))
    assert "questions," not in terminal.getvalue()  # the live bar, not the plain lines


def test_eval_report_prints_its_overall_tables_and_draws_a_metric_chart(tmp_path: Path) -> None:
    first = write_run(tmp_path / "a", 1, 5, [1.0, 0.0, 1.0])
    second = write_run(tmp_path / "b", 3, 20, [0.0, 0.0, 1.0])
    result = CliRunner().invoke(
        build_app(), ["eval", "report", str(first), str(second), "--out", str(tmp_path / "rep")]
    )
    assert result.exit_code == 0, result.output
    assert "ARK protocol" in result.output and "STaRK protocol" in result.output
    assert "0.667" in result.output and "0.333" in result.output
    assert (tmp_path / "rep" / "metrics.png").stat().st_size > 1000
    assert "![metrics](metrics.png)" in (tmp_path / "rep" / "report.md").read_text()


def test_a_heatmap_warning_only_when_the_heatmap_is_drawn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    same = [write_run(tmp_path / name, 3, 20, [1.0]) for name in ("x", "y")]
    with caplog.at_level(logging.WARNING):
        report = build_report(same, tmp_path / "one-cell")
    assert not (tmp_path / "one-cell" / "grid_heatmaps.png").exists()
    assert "heatmap" not in caplog.text
    other = write_run(tmp_path / "z", 1, 5, [0.0])
    with caplog.at_level(logging.WARNING):
        build_report([*same, other], tmp_path / "two-cells")
    assert (tmp_path / "two-cells" / "grid_heatmaps.png").exists()
    assert "the heatmap shows" in caplog.text
    assert len(report.summaries) == 2


def test_without_matplotlib_the_report_is_written_and_says_why_no_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "evals.plots", raising=False)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    report = build_report([write_run(tmp_path / "a", 1, 5, [1.0])], tmp_path / "rep")
    assert report.files == [tmp_path / "rep" / "report.md"]
    (note,) = report.notes
    assert "pip install 'ark-kg[plots]'" in note
    text = Console(record=True, width=120, file=io.StringIO())
    text.print(report_view(report))
    assert "[plots]" in text.export_text()  # the brackets survive rich's markup


def test_distill_config_prints_every_key_as_yaml_that_loads_back() -> None:
    result = CliRunner().invoke(build_app(), ["distill", "config"])
    assert result.exit_code == 0, result.output
    values = yaml.safe_load(result.output)
    assert config_from_dict(values) == TrainConfig()
    assert set(values) == set(TrainConfig.model_fields)
    assert set(values["lora"]) == set(LoraSettings.model_fields)
    documented = attribute_docs(TrainConfig)
    assert set(documented) == set(TrainConfig.model_fields)  # every key has its help
    assert "# AdamW learning rate (paper: 1e-5)." in result.output
    changed = TrainConfig(max_length=1024, lora=LoraSettings(r=8))
    assert config_from_dict(yaml.safe_load(commented_yaml(changed))) == changed


def test_an_eta_is_shown_once_three_questions_are_finished() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    clock = FakeClock()
    plan = RunPlan(total=6, already_done=0, retrying=0, pending=[object()] * 6)  # type: ignore[list-item]
    with RunProgress(console, enabled=True, label="r", interval_s=10, clock=clock) as bar:
        bar.start(plan)
        for number in range(3):
            clock.now += 10
            bar.update(Outcome(f"q{number}", record=record(f"q{number}", 1.0, "one_hop", 0)))
    lines = out.getvalue().splitlines()
    assert "ETA" not in lines[1] and "ETA" not in lines[2]
    assert lines[3].startswith("r: 3/6 questions, 0:00:30 elapsed, ETA 0:00:30;")


def test_the_bar_says_estimating_until_three_questions_are_finished() -> None:
    from rich.progress import Progress

    from cli.output.console import SettledTimeRemaining

    progress = Progress()
    task = progress.add_task("x", total=10)
    column = SettledTimeRemaining()
    progress.update(task, completed=2)
    assert column.render(progress.tasks[0]).plain == "estimating…"
    progress.update(task, completed=3)
    assert column.render(progress.tasks[0]).plain != "estimating…"
