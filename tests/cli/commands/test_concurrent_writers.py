"""Two real processes on one run directory: the second writer is refused, nothing runs twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evals.runs.store import RESULTS_FILE, read_results
from tests.evals.eval_graph import build_tiny
from tests.evals.gated_ark import ANSWERABLE_ENV

REPO = Path(__file__).resolve().parents[3]
GATED_ARK = "from tests.evals.gated_ark import main; main()"


def gated_eval(snapshot: Path, qa: Path, out: Path, answerable: int, *extra: str) -> list[str]:
    return [sys.executable, "-c", GATED_ARK, "eval", str(snapshot), "--qa", str(qa),
            "--out", str(out), "--agents", "1", "--concurrency", "1", *extra]  # fmt: skip


def env_answering(qa: Path, answerable: int) -> dict[str, str]:
    queries = [json.loads(line)["query"] for line in qa.read_text().splitlines()[:answerable]]
    return {**os.environ, ANSWERABLE_ENV: json.dumps(queries)}


def lines(run_dir: Path) -> int:
    path = run_dir / RESULTS_FILE
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.slow
def test_a_second_resume_is_refused_while_the_first_runs_and_nothing_runs_twice(
    tmp_path: Path,
) -> None:
    snapshot, qa = build_tiny(tmp_path)
    total = sum(1 for _ in qa.open())
    out = tmp_path / "run"
    first = subprocess.Popen(
        gated_eval(snapshot, qa, out, 2), cwd=REPO, env=env_answering(qa, 2),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while lines(out) < 2:  # the first writer is mid-run, holding the directory
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        second = subprocess.run(
            gated_eval(snapshot, qa, out, total, "--resume"), cwd=REPO,
            env=env_answering(qa, total), capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert second.returncode == 2, second.stderr
        error = " ".join(second.stderr.split())
        assert f"is being written by pid {first.pid}" in error and "eval" in error
        assert "Traceback" not in second.stderr
        assert lines(out) == 2
    finally:
        os.kill(first.pid, signal.SIGKILL)  # the kernel drops a killed writer's lock
        first.wait()
    again = subprocess.run(
        gated_eval(snapshot, qa, out, total, "--resume"), cwd=REPO,
        env=env_answering(qa, total), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    ids = [record.question_id for record in read_results(out)]
    assert lines(out) == len(ids) == len(set(ids)) == total


SAVE_LOOP = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from agent.config import AgentConfig
    from agent.factory import make_agent
    from agent.trajectory import new_question_id
    from evals.answers.log import answer_run_config, save_answer
    from graphs.snapshot import Snapshot

    snapshot, run_dir, tag = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    config = AgentConfig(model="rules", n_agents=1)
    agent = make_agent(Snapshot.open(snapshot), config)
    run_config = answer_run_config(config.to_record(), snapshot)
    for i in range(12):
        result = asyncio.run(agent.ask(f"blender {tag} {i}", question_id=new_question_id(tag)))
        save_answer(run_dir, result, run_config)
    """
)


@pytest.mark.slow
def test_two_save_loops_into_one_new_directory_lose_no_answer(tmp_path: Path) -> None:
    snapshot, _ = build_tiny(tmp_path)
    out = tmp_path / "saved"
    command = [sys.executable, "-c", SAVE_LOOP, str(snapshot), str(out)]
    loops = [
        subprocess.Popen([*command, tag], cwd=REPO, stderr=subprocess.PIPE, text=True)
        for tag in ("a", "b")
    ]
    for loop in loops:
        _, err = loop.communicate(timeout=300)
        assert loop.returncode == 0, err
    ids = [record.question_id for record in read_results(out)]
    assert len(ids) == len(set(ids)) == 24
    assert json.loads((out / "config.json").read_text())["qa"] is None
