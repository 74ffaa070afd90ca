"""What ARK sends passes a strict server; deterministic rejections and dead URLs fail fast."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from typing import Any

import httpx
import pytest

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.base import EndpointUnreachableError, ModelError, ModelReply
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.request import strict_messages
from agent.models.openai.retry import RetryPolicy, is_validation_rejection
from graphs.snapshot import Snapshot
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, text_reply, tool_call_reply
from tests.agent.strict_requests import request_problems

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]
AGENT_HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Use the tools."},
    {"role": "user", "content": "Who directed Alien?"},
    {
        "role": "assistant",
        "content": None,
        "reasoning": "internal",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "Alien"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": "1. Alien (film)", "name": "search"},
]


class NoSleep:
    async def __call__(self, delay: float) -> None:
        return None


def generate(model: OpenAIChatModel, messages: list[dict[str, Any]]) -> ModelReply:
    async def go() -> ModelReply:
        try:
            return await model.generate(messages, TOOLS)
        finally:
            await model.aclose()

    return asyncio.run(go())


def model_at(url: str, **kwargs: Any) -> OpenAIChatModel:
    kwargs.setdefault("retry", RetryPolicy(max_retries=3))
    return OpenAIChatModel(
        "fake", base_url=url, sleep=NoSleep(), rng=random.Random(0), timeout_s=5.0, **kwargs
    )


def test_the_strict_fake_rejects_null_content_beside_tool_calls() -> None:
    raw = {"model": "m", "messages": AGENT_HISTORY, "tools": TOOLS, "tool_choice": "auto"}
    with FakeOpenAIServer([text_reply("never")]) as server:
        response = httpx.post(f"{server.base_url}/chat/completions", json=raw, timeout=5)
        assert server.remaining == 1  # a rejected request consumes nothing
    assert response.status_code == 500
    message = response.json()["error"]["message"]
    assert "assistant message content must be a string, got NoneType" in message
    assert "unknown field 'reasoning'" in message
    assert "unknown field 'name' in a tool message" in message


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"tool_choice": "required"}, "tool_choice 'required' is not supported"),
        ({"timeout": 5}, "unknown request field 'timeout'"),
        ({"max_tokens": "10"}, "'max_tokens' must be an integer"),
    ],
)
def test_the_strict_fake_checks_request_fields(change: dict[str, Any], problem: str) -> None:
    body = {"model": "m", "messages": strict_messages(AGENT_HISTORY), "tools": TOOLS, **change}
    assert any(problem in p for p in request_problems(body))


def test_unanswered_and_unknown_call_ids_are_problems() -> None:
    messages = strict_messages(AGENT_HISTORY)
    unanswered = [*messages[:3], {"role": "user", "content": "and?"}]
    problems = request_problems({"model": "m", "messages": unanswered})
    assert any("never answered" in p for p in problems)
    stray = [*messages, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]
    problems = request_problems({"model": "m", "messages": stray})
    assert any("answers no open call" in p for p in problems)
    assert request_problems({"model": "m", "messages": messages, "tools": TOOLS}) == []


def test_strict_messages_shape_every_role_for_strict_servers() -> None:
    strict = strict_messages(AGENT_HISTORY)
    assert strict[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_0", "type": "function",
             "function": {"name": "search", "arguments": '{"query": "Alien"}'}},
        ],
    }  # fmt: skip
    assert strict[3] == {"role": "tool", "tool_call_id": "call_0", "content": "1. Alien (film)"}
    assert AGENT_HISTORY[2]["content"] is None  # the agent's own history is not modified
    no_calls = strict_messages([{"role": "assistant", "content": None, "tool_calls": []}])
    assert no_calls == [{"role": "assistant", "content": ""}]


def test_a_multi_turn_agent_passes_the_strict_server(tiny_snapshot: Snapshot) -> None:
    script = [
        tool_call_reply("search", {"query": "sparse retrieval", "k": 3}, call_id=None),
        tool_call_reply("neighbors", {"node_id": "p4"}, call_id=None),
        tool_call_reply("select", {"node_ids": ["p4"]}, call_id=None),
        tool_call_reply("finish", {}, call_id=None),
    ]
    with FakeOpenAIServer(script) as server:
        config = AgentConfig(model="openai:fake", base_url=server.base_url, n_agents=1)
        result = asyncio.run(make_agent(tiny_snapshot, config).ask("sparse retrieval papers"))
        requests, rejected = server.requests, server.rejected
    assert rejected == []
    assert len(requests) == 4
    assert result.trajectories[0].stop_reason == "finish"
    assert result.fused == ["p4"]
    last = requests[-1].body
    assert last["tool_choice"] == "auto"
    assistant = [m for m in last["messages"] if m["role"] == "assistant"]
    assert len(assistant) == 3 and all(m["content"] == "" for m in assistant)


def test_a_validation_500_fails_at_once_with_the_servers_message() -> None:
    reason = "Invalid request: assistant content must be a string"
    with FakeOpenAIServer([Fault.http_error(500, reason), text_reply("late")]) as server:
        with pytest.raises(ModelError) as caught:
            generate(model_at(server.base_url), [{"role": "user", "content": "hi"}])
        assert len(server.requests) == 1
    assert reason in str(caught.value)
    assert "not retried" in str(caught.value)


def test_a_plain_500_is_still_retried() -> None:
    with FakeOpenAIServer([Fault.server_error(500), text_reply("ok")]) as server:
        reply = generate(model_at(server.base_url), [{"role": "user", "content": "hi"}])
        assert len(server.requests) == 2
    assert reply.message["content"] == "ok"


@pytest.mark.parametrize(
    ("status", "message", "deterministic"),
    [
        (500, "Field required: messages.2.content", True),
        (500, "Input should be a valid string", True),
        (500, "injected 500", False),
        (500, "7 validation errors for CreateChatCompletionRequest", True),
        (500, "An unexpected error occurred", False),
        (500, "missing response from worker", False),
        (500, "Expected all tensors to be on the same device", False),
        (503, "invalid state, try later", False),
        (502, "Bad gateway", False),
    ],
)
def test_validation_rejections_are_told_from_transient_errors(
    status: int, message: str, deterministic: bool
) -> None:
    assert is_validation_rejection(status, message) is deterministic


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_dead_url_gives_up_after_the_connect_retries() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)

    model = OpenAIChatModel(
        "fake", base_url=url, sleep=sleep, retry=RetryPolicy(max_retries=6, max_connect_retries=2)
    )
    with pytest.raises(EndpointUnreachableError) as caught:
        generate(model, [{"role": "user", "content": "hi"}])
    assert len(delays) == 2  # three attempts, not seven
    assert caught.value.url.startswith(url)
    assert f"curl {url}/models" in str(caught.value)
    assert caught.value.kind == "endpoint_unreachable"


@pytest.mark.parametrize(
    ("content", "name", "arguments"),
    [
        ('<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>',
         "search", '{"query": "x"}'),
        ('{"name": "search", "arguments": {"query": "x"}}', "search", '{"query": "x"}'),
        ('```json\n{"name": "search", "parameters": {"query": "x"}}\n```',
         "search", '{"query": "x"}'),
        # cut off: the arguments as written; the tools close them and say so
        ('<tool_call>{"name": "search", "arguments": {"query": "x"', "search",
         '{"query": "x"'),
    ],
)  # fmt: skip
def test_calls_written_in_the_reply_text_are_parsed(
    content: str, name: str, arguments: str
) -> None:
    with FakeOpenAIServer([text_reply(content)]) as server:
        reply = generate(model_at(server.base_url), [{"role": "user", "content": "hi"}])
    (call,) = reply.message["tool_calls"]
    assert call["function"] == {"name": name, "arguments": arguments}
    assert call["id"] == "call_0"
    assert reply.message["content"] == ""


@pytest.mark.parametrize("content", ["Paris.", '{"answer": "Paris"}', "[1, 2]", "{not json"])
def test_text_that_is_no_call_stays_text(content: str) -> None:
    with FakeOpenAIServer([text_reply(content)]) as server:
        reply = generate(model_at(server.base_url), [{"role": "user", "content": "hi"}])
    assert reply.message == {"role": "assistant", "content": content}
    assert json.dumps(reply.message)
