"""A batch whose endpoint is down stops at once with one message; --resume finishes it."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from evals.runs.circuit import UNREACHABLE, CircuitBreaker, stop_error
from evals.runs.store import read_failures, read_results
from graphs.errors import ConfigError
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault
from tests.evals.eval_graph import build_tiny
from tests.evals.runs.test_eval_faults import scripted_agent

QUESTIONS = 100


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hundred_questions(qa: Path, out: Path) -> Path:
    items = [json.loads(line) for line in qa.read_text().splitlines()]
    rows = []
    for index in range(QUESTIONS):
        item = dict(items[index % len(items)])
        item["id"] = f"{item['id']}-{index}"
        rows.append(json.dumps(item) + "\n")
    out.write_text("".join(rows))
    return out


@pytest.mark.slow
def test_dead_endpoint_stops_the_batch_and_resume_finishes_it(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    questions = hundred_questions(qa, tmp_path / "hundred.jsonl")
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    run = tmp_path / "run"
    args = ["eval", str(snapshot), "--qa", str(questions), "--out", str(run),
            "-m", "openai:fake", "--base-url", url, "--agents", "1"]  # fmt: skip

    down = CliRunner().invoke(build_app(), args)

    assert down.exit_code == 2, down.output
    text = " ".join(down.output.split())
    assert text.count("error:") == 1
    assert "stopped the batch" in text and f"{url}/models" in text and "--resume" in text
    assert "Traceback" not in down.output
    failures = read_failures(run)
    # the threshold (3), plus questions already in flight (up to --concurrency, 4)
    assert 3 <= len(failures) <= 3 + 4
    assert all(f.error_type == UNREACHABLE for f in failures)
    assert read_results(run) == []

    with FakeOpenAIServer(responder=scripted_agent, port=port) as server:
        up = CliRunner().invoke(build_app(), [*args, "--resume", "--json"])
        rejected = server.rejected
    assert up.exit_code == 0, up.output
    assert json.loads(up.output)["questions"] == QUESTIONS
    assert len(read_results(run)) == QUESTIONS
    assert rejected == []


def test_all_failed_run_never_exits_zero(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    rejection = Fault.http_error(400, "model does not support tools")
    with FakeOpenAIServer(responder=lambda body: rejection) as server:
        args = ["eval", str(snapshot), "--qa", str(qa), "--out", str(tmp_path / "run"),
                "-m", "openai:fake", "--base-url", server.base_url, "--agents", "1",
                "--limit", "3", "--json"]  # fmt: skip
        result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 1, result.output
    assert json.loads(result.output)["failures"] == 3
    assert len(read_failures(tmp_path / "run")) == 3


def test_the_breaker_counts_only_consecutive_unreachable_questions() -> None:
    breaker = CircuitBreaker(threshold=3)
    for error_type in (UNREACHABLE, UNREACHABLE, None, UNREACHABLE, "ModelError", UNREACHABLE):
        breaker.record(error_type == UNREACHABLE, "down")
    assert not breaker.tripped
    for _ in range(3):
        breaker.record(True, "cannot reach http://x/v1")
    assert breaker.tripped
    message = str(stop_error(breaker, Path("runs/a"), remaining=97))
    assert "cannot reach http://x/v1" in message and "runs/a" in message and "97" in message
    breaker.record(False)
    assert breaker.tripped  # once open, it stays open for the run
    with pytest.raises(ConfigError, match="threshold must be >= 1"):
        CircuitBreaker(threshold=0)


def test_the_extractor_stops_on_the_same_breaker() -> None:
    """agent/extract/llm.py counts passages with agent/models/circuit.py, no counter of its own."""
    from agent.extract.llm import LLMExtractConfig, LLMExtractor
    from agent.models.scripted import ScriptedModel

    extractor = LLMExtractor(ScriptedModel([]), LLMExtractConfig(unreachable_limit=2))
    assert isinstance(extractor._breaker, CircuitBreaker)
    assert extractor._breaker.threshold == 2
