"""kill -9 mid-run, then --resume: the same per-question results as an uninterrupted run.

The child `ark eval` answers only the first questions and then blocks (tests/evals/gated_ark.py),
so the signal always lands mid-run with a known number of questions written, however slow the
machine is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.config import AgentConfig
from evals.runs.request import RunRequest
from evals.runs.runner import evaluate
from evals.runs.store import RESULTS_FILE, read_results
from tests.evals.eval_graph import build_tiny
from tests.evals.gated_ark import ANSWERABLE_ENV

REPO = Path(__file__).resolve().parents[3]
GATED_ARK = "from tests.evals.gated_ark import main; main()"


def eval_command(snapshot: Path, qa: Path, out: Path, *extra: str) -> list[str]:
    """`ark eval` with three agents, run in a child Python process (gated: see the docstring)."""
    args = [sys.executable, "-c", GATED_ARK, "eval", str(snapshot), "--qa", str(qa)]
    return [*args, "--out", str(out), "--agents", "3", *extra]


def gated_env(qa: Path, answerable: int) -> dict[str, str]:
    """The child's environment: only the first `answerable` questions of `qa` get answers."""
    queries = [json.loads(line)["query"] for line in qa.read_text().splitlines()[:answerable]]
    return {**os.environ, ANSWERABLE_ENV: json.dumps(queries)}


def results_lines(run_dir: Path) -> int:
    path = run_dir / RESULTS_FILE
    return path.read_bytes().count(b"\n") if path.exists() else 0


def wait_until_stuck(process: subprocess.Popen[bytes], run_dir: Path, written: int) -> None:
    """Wait until the child has written `written` results; it can write no more by itself."""
    deadline = time.monotonic() + 120
    while results_lines(run_dir) < written:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "the run never wrote its answerable questions"
        time.sleep(0.05)


@pytest.mark.slow
def test_kill_9_then_resume_matches_uninterrupted_run(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    killed = tmp_path / "killed"
    args = eval_command(snapshot, qa, killed, "--concurrency", "2", "--json")
    process = subprocess.Popen(
        args, cwd=REPO, env=gated_env(qa, 4), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wait_until_stuck(process, killed, 4)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    total = sum(1 for _ in qa.open())
    assert results_lines(killed) == 4 < total

    config = AgentConfig(n_agents=3)
    plan = evaluate(
        RunRequest(snapshot=snapshot, qa=qa, out=killed, concurrency=2, resume=True), config
    )
    assert plan.already_done == 4 and len(plan.pending) == total - 4
    evaluate(RunRequest(snapshot=snapshot, qa=qa, out=tmp_path / "clean", concurrency=2), config)

    resumed = read_results(killed)
    clean = {r.question_id: r for r in read_results(tmp_path / "clean")}
    assert results_lines(killed) == len(resumed) == total  # no duplicate, no torn line left
    assert sorted(r.question_id for r in resumed) == sorted(clean)
    for record in resumed:
        reference = clean[record.question_id]
        assert record.result.fused == reference.result.fused
        assert record.metrics == reference.metrics
        assert [t.answers for t in record.result.trajectories] == [
            t.answers for t in reference.result.trajectories
        ]


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    out = tmp_path / "run"
    args = eval_command(snapshot, qa, out, "--concurrency", "1")
    process = subprocess.Popen(
        args, cwd=REPO, env=gated_env(qa, 2), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # A background child inherits SIGINT ignored from some shells; restore Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    wait_until_stuck(process, out, 2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    message = " ".join(err.decode().split())
    assert process.returncode == 130, message
    assert "interrupted" in message and "--resume" in message and "Traceback" not in message
    kept = read_results(out)
    assert len(kept) == 2 < sum(1 for _ in qa.open())
    assert (out / RESULTS_FILE).read_bytes().endswith(b"\n")
