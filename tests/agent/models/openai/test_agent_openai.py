"""The agent over the real openai client against a local chat-completions server."""

from __future__ import annotations

import asyncio
import logging

import pytest

from agent.config import AgentConfig
from agent.factory import make_agent
from graphs.snapshot import Snapshot
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, tool_call_reply

SECRET = "sk-test-0123456789abcdef-secret"


def test_agent_over_http_with_faults_keeps_the_key_secret(
    tiny_snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    script = [
        Fault.rate_limited(retry_after="0"),
        tool_call_reply("search", {"query": "sparse retrieval", "k": 3}),
        Fault.server_error(503),
        tool_call_reply("select", {"node_ids": ["p4"]}),
        tool_call_reply("finish", {}),
    ]
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(script) as server:
        config = AgentConfig(
            model="openai:fake-model", base_url=server.base_url, n_agents=1, max_retries=3
        )
        agent = make_agent(tiny_snapshot, config)
        result = asyncio.run(agent.ask("sparse retrieval papers", question_id="q1"))
        requests = server.requests
    (trajectory,) = result.trajectories
    assert trajectory.stop_reason == "finish"
    assert result.fused == ["p4"]
    assert len(requests) == 5  # two injected faults were retried
    assert requests[-1].body["model"] == "fake-model"
    assert any(t["function"]["name"] == "neighbors" for t in requests[-1].body["tools"])
    assert SECRET not in result.model_dump_json()
    assert SECRET not in caplog.text
