"""`ark eval`, `ark baseline bm25` and `ark eval report` end to end with the rule policy."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.config import AgentConfig
from cli.app import build_app
from evals.runs.request import RunRequest
from evals.runs.runner import evaluate
from evals.runs.store import read_failures, read_results
from evals.summary import summarize_run
from tests.evals.eval_graph import build_tiny

runner = CliRunner()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_tiny(tmp_path_factory.mktemp("evals-cli"))


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(build_app(), [str(a) for a in args])
    return result.exit_code, result.output


def flat(text: str) -> str:
    """Rich wraps error lines at the terminal width; compare without line breaks."""
    return " ".join(text.split())


def test_eval_help_lists_run_report_and_sweep() -> None:
    code, output = invoke("eval", "--help")
    assert code == 0
    for command in ("run", "report", "sweep"):
        assert command in output
    code, output = invoke("eval", "run", "--help")
    assert code == 0 and "--concurrency" in output and "--resume" in output


def test_default_command_runs_with_rules_and_prints_json(tiny, tmp_path: Path) -> None:
    snapshot, qa = tiny
    out = tmp_path / "run"
    code, output = invoke(
        "eval",
        snapshot,
        "--qa",
        qa,
        "--out",
        out,
        "--limit",
        "5",
        "-m",
        "rules",
        "--agents",
        "2",
        "--json",
    )
    assert code == 0, output
    summary = json.loads(output)
    assert summary["questions"] == 5 and summary["failures"] == 0
    assert summary["session"] == {"total": 5, "already_done": 0, "retried": 0, "ran": 5}
    assert summary["groups"]["all"]["metrics"]["ark"]["hit@1"] > 0.5
    records = read_results(out)
    assert sorted(r.question_id for r in records) == ["r0", "t0", "t1", "t2", "t3"]
    assert all(len(r.result.trajectories) == 2 for r in records)
    config = json.loads((out / "config.json").read_text())
    assert config["agent"]["n_agents"] == 2 and config["split"] is None


def test_non_empty_out_and_changed_config_are_refused(tiny, tmp_path: Path) -> None:
    snapshot, qa = tiny
    out = tmp_path / "run"
    base = ("eval", snapshot, "--qa", qa, "--out", out, "--limit", "2", "--agents", "1")
    assert invoke(*base)[0] == 0
    code, output = invoke(*base)
    assert code == 2 and "--resume" in flat(output)
    code, output = invoke(*base, "--resume", "--max-steps", "5")
    assert code == 2 and "agent.max_steps: 20 -> 5" in flat(output)
    code, output = invoke(*base[:-2], "--agents", "1", "--resume", "--limit", "3", "--json")
    assert code == 0, output
    assert json.loads(output)["session"] == {"total": 3, "already_done": 2, "retried": 0, "ran": 1}
    assert len(read_results(out)) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--qa", "missing.jsonl"), "does not exist"),
        (("--qa", "QA", "--split", "dev"), "dev"),
        (("--qa", "QA", "-m", "hf:/no/such/dir"), "no such directory"),
        (("--qa", "QA", "--ablate", "no-such"), "no-such"),
    ],
)
def test_bad_input_is_one_line_not_a_traceback(tiny, tmp_path: Path, args, message) -> None:
    snapshot, qa = tiny
    args = tuple(str(qa.parent) if a == "QA" else a for a in args)
    code, output = invoke("eval", snapshot, *args, "--out", tmp_path / "run")
    assert code == 2
    assert message in flat(output) and "Traceback" not in output
    assert not (tmp_path / "run").exists()


def test_baseline_and_report(tiny, tmp_path: Path) -> None:
    snapshot, qa = tiny
    agent_dir, bm25_dir, report_dir = tmp_path / "agent", tmp_path / "bm25", tmp_path / "report"
    evaluate(RunRequest(snapshot=snapshot, qa=qa, out=agent_dir, limit=6), AgentConfig(n_agents=1))
    code, output = invoke(
        "baseline",
        "bm25",
        snapshot,
        "--qa",
        qa,
        "--out",
        bm25_dir,
        "--limit",
        "6",
        "--k",
        "7",
        "--json",
    )
    assert code == 0, output
    records = read_results(bm25_dir)
    assert len(records) == 6 and all(r.result.model == "bm25" for r in records)
    assert all(len(r.result.fused) <= 7 and r.result.trajectories == [] for r in records)
    assert read_failures(bm25_dir) == []
    assert summarize_run(bm25_dir).label == "bm25"

    code, output = invoke("eval", "report", agent_dir, bm25_dir)
    assert code == 0 and "| bm25 | 6 | 0 |" in output and "### one_hop" in output
    code, output = invoke("eval", "report", agent_dir, bm25_dir, "--out", report_dir)
    assert code == 0, output
    assert (report_dir / "report.md").is_file()
    assert (report_dir / "tool_share.png").stat().st_size > 1000
    assert (report_dir / "neighbors_by_outcome.png").is_file()
    assert not (report_dir / "grid_heatmaps.png").exists()  # one agent run: no grid
    code, output = invoke("eval", "report", tmp_path / "nowhere")
    assert code == 2 and "not a run directory" in flat(output)


def write_bare_csv(path: Path) -> Path:
    """A STaRK-format CSV over the tiny graph, with no split index files anywhere near it."""
    rows = [
        "0,electric kettle model number 0,\"['p0']\"",
        "1,electric lamp model number 1,\"['p1']\"",
        "2,electric kettle model number 2,\"['p2', 'nope']\"",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("id,query,answer_ids\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_stark_csv_without_split_files(tiny, tmp_path: Path, caplog) -> None:
    snapshot, _ = tiny
    csv_path = write_bare_csv(tmp_path / "qa" / "q.csv")
    args = ("eval", snapshot, "--qa", csv_path, "--agents", "1")
    code, output = invoke(*args, "--out", tmp_path / "default")
    assert code == 0, output
    text = flat(output)
    assert text.count("evaluating all 3 questions of the file") == 1
    assert text.count("1 gold ids unknown to the snapshot") == 1
    assert not [r for r in caplog.records if "unknown to the snapshot" in r.getMessage()]
    assert json.loads((tmp_path / "default" / "config.json").read_text())["split"] == "all"
    assert len(read_results(tmp_path / "default")) == 3

    code, output = invoke(*args, "--split", "all", "--out", tmp_path / "all", "--json")
    assert code == 0, output
    assert json.loads(output.splitlines()[-1])["questions"] == 3
    assert "evaluating all" not in output  # asked for explicitly: no notice

    code, output = invoke(*args, "--split", "test", "--out", tmp_path / "test")
    assert code == 2
    text = flat(output)
    assert "no split 'test'" in text and "--split all" in text and "Traceback" not in output
    assert f"{tmp_path / 'qa' / 'split'} and {tmp_path / 'split'};" in text


def test_console_tables_have_family_rows_for_both_protocols(tiny, tmp_path: Path) -> None:
    snapshot, qa = tiny
    code, output = invoke(
        "eval", snapshot, "--qa", qa, "--out", tmp_path / "run", "--limit", "4", "--agents", "1"
    )
    assert code == 0, output
    ark, stark = output.split("STaRK protocol")
    for table in (ark, stark):
        assert "text_only" in table and "one_hop" in table


def test_a_full_disk_mid_run_is_one_message_and_resume_recovers(
    tiny, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 4th result line fails half-written with ENOSPC: exit 2, one line, 3 records kept."""
    snapshot, qa = tiny
    out = tmp_path / "run"
    real_write = os.write
    written = {"results": 0}

    def write(fd: int, data: bytes) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("results.jsonl"):
            written["results"] += 1
            if written["results"] > 3:
                real_write(fd, bytes(data)[:100])
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    args = ("eval", snapshot, "--qa", qa, "--out", out, "--agents", "1", "--concurrency", "1")
    monkeypatch.setattr(os, "write", write)
    result = runner.invoke(build_app(), [str(a) for a in args])
    monkeypatch.undo()
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "no space left" in errors[0] and "--resume" in flat(result.stderr)
    data = (out / "results.jsonl").read_bytes()
    assert data.endswith(b"\n") and data.count(b"\n") == 3 == len(read_results(out))

    code, output = invoke(*args, "--resume", "--json")
    assert code == 0, output
    total = sum(1 for _ in qa.open())
    ids = [record.question_id for record in read_results(out)]
    assert (out / "results.jsonl").read_bytes().count(b"\n") == len(set(ids)) == total


def test_a_batch_whose_few_questions_all_fail_says_why(tiny, tmp_path: Path) -> None:
    """Under the breaker's threshold: no note above explains it, so the error line must."""
    snapshot, qa = tiny
    out = tmp_path / "run"
    endpoint = ("-m", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0")
    args = ("eval", snapshot, "--qa", qa, "--out", out, "--limit", "2", "--agents", "1", *endpoint)
    result = runner.invoke(build_app(), [str(a) for a in args])
    assert result.exit_code == 1, result.output
    line = flat(result.stderr)
    assert "all 2 questions run failed: cannot reach model 'x' at http://127.0.0.1:9" in line
    assert "notes above" not in line and "failures.jsonl" in line and "--resume" in line
