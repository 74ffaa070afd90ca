"""`ark rerank` with a served scorer: the endpoint flags of AgentFlags reach the client, are
recorded with credentials redacted, and bound a hanging endpoint."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.models.base import EndpointTimeoutError, EndpointUnreachableError
from cli.app import build_app
from evals.runs.store import read_config
from rank.rerank.served import OpenAIScorer
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault
from tests.agent.models.openai.test_openai_busy import SingleSlotServer
from tests.agent.models.openai.test_openai_hang import HangingServer
from tests.rank.rerank.test_rerank import tiny

__all__ = ["tiny"]  # the shared fixture

SECRET = "s3cret-pw"


def yes(body: dict[str, Any]) -> dict[str, Any]:
    """A one-token completion with the first token's top logprobs, as vLLM / llama.cpp send."""
    top = [{"token": "yes", "logprob": -0.1, "bytes": None},
           {"token": "no", "logprob": -2.3, "bytes": None}]  # fmt: skip
    return {
        "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{
            "index": 0, "finish_reason": "length",
            "message": {"role": "assistant", "content": "yes"},
            "logprobs": {"content": [{**top[0], "top_logprobs": top}]},
        }],
    }  # fmt: skip


def rerank(tiny: dict[str, Path], tmp_path: Path, base_url: str, *flags: str) -> Any:
    args = ["rerank", str(tiny["stage2"]), "--qa", str(tiny["qa"]), "--out", str(tmp_path / "o"),
            "-m", "openai:fake", "--base-url", base_url, "--depth", "2", "--limit", "1",
            "--tune-split", "none", "--snapshot", str(tiny["snapshot"]),
            "--cache", str(tmp_path / "c.sqlite"), "--json", *flags]  # fmt: skip
    return CliRunner().invoke(build_app(), args)


def test_endpoint_flags_reach_the_scorer_and_are_recorded_redacted(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    with FakeOpenAIServer(responder=yes, strict=False) as server:
        url = server.base_url.replace("http://", f"http://ark:{SECRET}@")
        result = rerank(tiny, tmp_path, url, "--request-timeout", "7", "--max-retries", "1",
                        "--call-deadline", "30")  # fmt: skip
        posts = len(server.requests)
    assert result.exit_code == 0, result.output
    assert posts == 2 and json.loads(result.stdout)["scored"] == 2
    endpoint = read_config(tmp_path / "o")["rerank"]["endpoint"]
    assert endpoint == {
        "base_url": server.base_url.replace("http://", "http://***@"),
        "request_timeout_s": 7.0,
        "max_retries": 1,
        "call_deadline_s": 30.0,
    }
    files = "".join(p.read_text(errors="replace") for p in (tmp_path / "o").rglob("*.json*"))
    assert SECRET not in files and SECRET not in result.output


def test_max_retries_reaches_the_scorer(tiny: dict[str, Path], tmp_path: Path) -> None:
    with FakeOpenAIServer([Fault.server_error(503)] * 3, responder=yes, strict=False) as server:
        result = rerank(tiny, tmp_path, server.base_url, "--max-retries", "1", "--batch-size", "1")
        posts = len(server.requests)
    assert result.exit_code == 2
    assert "last failure: HTTP 503" in " ".join(result.output.split())
    assert posts == 2  # the first chat: one try and one retry; the second never sent


def scorer(base_url: str, **settings: Any) -> OpenAIScorer:
    return OpenAIScorer("fake", base_url=base_url, concurrency=2, timeout_s=0.3, **settings)


CHATS = [[{"role": "user", "content": f"q{n}"}] for n in range(20)]


def test_a_hanging_endpoint_costs_one_timeout_and_check_not_the_deadline() -> None:
    with HangingServer() as server:
        started = time.monotonic()
        with pytest.raises(EndpointUnreachableError, match="does not answer"):
            scorer(server.base_url, max_retries=5, call_deadline_s=30.0).score(CHATS)
        elapsed = time.monotonic() - started
    assert elapsed < 0.3 + 0.3 + 1.5  # not the 30 s deadline, nor 10 rounds of chats


def test_the_call_deadline_bounds_a_live_but_slow_endpoint() -> None:
    with FakeOpenAIServer(responder=lambda body: Fault.timeout(5.0), strict=False) as server:
        started = time.monotonic()
        with pytest.raises(EndpointTimeoutError, match="the call deadline") as caught:
            scorer(server.base_url, max_retries=50, call_deadline_s=0.8).score(CHATS)
        elapsed = time.monotonic() - started
    assert "call deadline of 0.8s" in str(caught.value)
    assert elapsed < 0.8 + 1.5  # its liveness check passes: retried until the deadline


def test_a_busy_single_slot_server_that_answered_before_is_waited_for() -> None:
    # the second chat holds the one slot 1.2 s, so its 0.5 s attempt (and a liveness check)
    # would go unanswered, yet the endpoint answered the first chat: busy, not hung
    with SingleSlotServer([0.0, 1.2, 0.0]) as server:
        served = OpenAIScorer("fake", base_url=server.base_url, concurrency=1, timeout_s=0.5,
                              call_deadline_s=5.0)  # fmt: skip
        scores = served.score(CHATS[:2])
        posts = server.posts
    assert posts >= 3 and scores == [pytest.approx(0.9, abs=0.01)] * 2  # retried, not given up
