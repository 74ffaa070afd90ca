"""A local OpenAI-compatible endpoint failing ~20% of calls (timeouts, 429, 500) loses nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy
from cli.app import build_app
from evals.runs.request import RunRequest
from evals.runs.runner import evaluate
from evals.runs.store import read_failures, read_results
from evals.summary import summarize_run
from graphs.snapshot import Snapshot
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, tool_call_reply
from tests.evals.eval_graph import build_tiny

ID_IN_BRACKETS = re.compile(r"\[([^\]\s]+)\]")
CLIENT_TIMEOUT_S = 3.0


def scripted_agent(body: dict[str, Any]) -> dict[str, Any]:
    """search the question, select the first hit, finish: decided from the request alone."""
    messages = body["messages"]
    turn = sum(1 for m in messages if m["role"] == "assistant")
    if turn == 0:
        question = next(m["content"] for m in messages if m["role"] == "user")
        return tool_call_reply("search", {"query": question}, call_id="c0")
    if turn == 1:
        first = ID_IN_BRACKETS.search(messages[-1]["content"])
        assert first is not None, messages[-1]["content"]
        return tool_call_reply("select", {"node_ids": [first.group(1)]}, call_id="c1")
    return tool_call_reply("finish", {}, call_id="c2")


def test_flaky_endpoint_loses_no_question(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    # An injected timeout outlasts the client's timeout by far, while an honest reply on a
    # loaded machine stays well inside it: only injected faults can time out.
    faults = (Fault.timeout(delay_s=60.0), Fault.rate_limited(), Fault.server_error(500))
    server = FakeOpenAIServer(responder=scripted_agent, fault_rate=0.2, rate_faults=faults, seed=7)
    graph = Snapshot.open(snapshot)
    with server:
        config = AgentConfig(model="openai:fake", base_url=server.base_url, n_agents=2,
                             max_steps=5, request_timeout_s=CLIENT_TIMEOUT_S)  # fmt: skip
        # The real HTTP adapter, with a short backoff so the test stays quick.
        model = OpenAIChatModel("fake", base_url=server.base_url, timeout_s=CLIENT_TIMEOUT_S,
                                retry=RetryPolicy(max_retries=8, base_delay_s=0.02))  # fmt: skip
        plan = evaluate(
            RunRequest(snapshot=snapshot, qa=qa, out=tmp_path / "run", concurrency=8),
            config,
            asker=make_agent(graph, config, model=model),
        )  # fmt: skip
    injected = [r.fault.kind for r in server.requests if r.fault is not None]
    assert len(injected) >= 0.1 * len(server.requests)
    assert {"timeout", "status"} <= set(injected)

    records = read_results(tmp_path / "run")
    assert len(records) == plan.total == 24
    assert sorted(r.question_id for r in records) == sorted(i.id for i in plan.pending)
    assert read_failures(tmp_path / "run") == []
    assert summarize_run(tmp_path / "run").overall.failures == 0
    for record in records:
        top, _ = graph.index.search(record.query, 5)
        assert record.result.fused == [graph.external_id(int(top[0]))]
        assert all(t.stop_reason == "finish" for t in record.result.trajectories)


def test_cli_against_a_flaky_endpoint(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    faults = (Fault.rate_limited(retry_after="0"), Fault.server_error(500))
    server = FakeOpenAIServer(faults, responder=scripted_agent, fault_rate=0.2, rate_faults=faults)
    with server:
        args = ["eval", str(snapshot), "--qa", str(qa), "--out", str(tmp_path / "run"),
                "-m", "openai:fake", "--base-url", server.base_url, "--agents", "1",
                "--limit", "6", "--json"]  # fmt: skip
        result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert (summary["questions"], summary["failures"]) == (6, 0)
    assert sum(r.fault is not None for r in server.requests) >= 2
    assert all(r.body["model"] == "fake" for r in server.requests)


def test_dead_endpoint_records_every_question_as_failed(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    server = FakeOpenAIServer(fault_rate=1.0, rate_faults=(Fault.server_error(503),))
    with server:
        config = AgentConfig(
            model="openai:fake",
            base_url=server.base_url,
            n_agents=1,
            request_timeout_s=CLIENT_TIMEOUT_S,
            max_retries=0,
        )
        evaluate(RunRequest(snapshot=snapshot, qa=qa, out=tmp_path / "run", limit=4), config)
    failures = read_failures(tmp_path / "run")
    assert len(failures) == 4 and read_results(tmp_path / "run") == []
    assert all(f.error_type == "ModelError" and "503" in f.error for f in failures)
    summary = summarize_run(tmp_path / "run")
    assert (summary.overall.questions, summary.overall.failures) == (0, 4)


pytestmark = pytest.mark.timeout(120)
