"""One record of every question: `ark ask --save`, `:save` and `ark eval` share one format."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from rich.console import Console
from typer.testing import CliRunner

from agent.factory import make_agent
from agent.trajectory import TRAJECTORY_VERSION
from cli.app import build_app
from cli.flags.agent import agent_config
from cli.repl.lines import StreamReader
from cli.repl.loop import Repl
from cli.repl.session import ReplSession
from evals.runs.store import RESULTS_FILE, RunStoreError, read_results
from graphs.snapshot import Snapshot
from tests.evals.eval_graph import build_tiny

runner = CliRunner()


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny(tmp_path_factory.mktemp("saved"))[0]


def ark(*args: str | Path) -> str:
    result = runner.invoke(build_app(), [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def repl_save(snapshot: Path, question: str, run_dir: Path) -> ReplSession:
    session = ReplSession(
        snapshot=Snapshot.open(snapshot), config=agent_config(), agent_factory=make_agent
    )
    lines = io.StringIO(f"{question}\n:save {run_dir}\n:quit\n")
    console = Console(file=io.StringIO(), width=80, color_system=None)
    Repl(session, StreamReader(lines), console).run()
    return session


def test_ask_twice_and_repl_once_then_report_and_dataset_read_all_three(
    snapshot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARK_MODEL", raising=False)
    run_dir = tmp_path / "D"
    questions = ["Which red kettle is made by Acme?", "A blue lamp by Globex", "green kettle"]
    ark("ask", snapshot, questions[0], "--save", run_dir, "-q")
    ark("ask", snapshot, questions[1], "--save", run_dir, "--json")
    session = repl_save(snapshot, questions[2], run_dir)
    assert [r.question for r in session.history] == [questions[2]]

    records = read_results(run_dir)
    ids = [r.question_id for r in records]
    assert [r.query for r in records] == questions
    assert len(set(ids)) == 3
    assert [i.split("-")[0] for i in ids] == ["ask", "ask", "repl"]
    assert all(len(r.result.trajectories) == 3 and r.result.fused for r in records)
    assert (run_dir / RESULTS_FILE).read_bytes().count(b"\n") == 3

    report = " ".join(ark("eval", "report", run_dir).split())
    assert "3 saved question(s) without gold" in report
    assert all(i in report for i in ids)

    data = tmp_path / "sft"
    ark("distill", "dataset", run_dir, "--out", data, "--val-fraction", "0", "--json")
    rows = pq.read_table(data / "train.parquet").to_pylist()
    assert sorted({row["question_id"] for row in rows}) == sorted(ids)
    assert len(rows) == 9


def test_saving_under_another_configuration_is_refused(snapshot: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "D"
    ark("ask", snapshot, "red kettle", "--save", run_dir, "-q")
    result = runner.invoke(
        build_app(),
        ["ask", str(snapshot), "red kettle", "--save", str(run_dir), "--max-steps", "5", "-q"],
    )
    message = " ".join(result.output.split())
    assert result.exit_code == 2
    assert "agent.max_steps: 20 -> 5" in message and "another directory" in message
    assert len(read_results(run_dir)) == 1


def test_a_future_trajectory_version_is_a_clear_error(snapshot: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "D"
    ark("ask", snapshot, "red kettle", "--save", run_dir, "-q")
    path = run_dir / RESULTS_FILE
    record = json.loads(path.read_text())
    record["result"]["version"] = TRAJECTORY_VERSION + 1
    path.write_text(json.dumps(record) + "\n")  # the last line: still refused, never skipped
    with pytest.raises(RunStoreError, match="newer than this ARK reads"):
        read_results(run_dir)
    result = runner.invoke(build_app(), ["eval", "report", str(run_dir)])
    assert result.exit_code != 0 and "upgrade ARK" in " ".join(result.output.split())


def test_an_unusable_save_directory_fails_before_any_agent_runs(
    snapshot: Path, tmp_path: Path
) -> None:
    a_file = tmp_path / "not-a-dir"
    a_file.write_text("keep me\n")
    result = runner.invoke(build_app(), ["ask", str(snapshot), "Babbage", "--save", str(a_file)])
    assert result.exit_code == 2
    assert "is a file, not a directory" in result.stderr
    assert "[agent" not in result.output  # no agent ran, so no answer was thrown away
    assert a_file.read_text() == "keep me\n"
    ark("ask", snapshot, "Babbage", "--save", tmp_path / "runs", "--agents", "1")
    other = runner.invoke(
        build_app(), ["ask", str(snapshot), "Babbage", "--save", str(tmp_path / "runs")]
    )
    assert other.exit_code == 2
    assert "another configuration" in " ".join(other.stderr.split())
    assert "[agent" not in other.output
