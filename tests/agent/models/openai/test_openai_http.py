"""The real openai client against a local fake chat-completions server."""

from __future__ import annotations

import asyncio
import gc
import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest

from agent.config import AgentConfig
from agent.models.base import ContextLengthError, Model, ModelError, ModelReply
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy
from tests.agent.fake_openai_server import (
    FakeOpenAIServer,
    Fault,
    text_reply,
    tool_call_reply,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the graph.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Query text."}},
                "required": ["query"],
            },
        },
    }
]
QUESTION = [{"role": "user", "content": "Who directed Alien?"}]
SECRET = "sk-test-SECRET-0123456789"


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


def make_model(srv: FakeOpenAIServer, sleep: SleepRecorder, **kwargs: Any) -> OpenAIChatModel:
    kwargs.setdefault("timeout_s", 2.0)
    kwargs.setdefault("retry", RetryPolicy(max_retries=3))
    return OpenAIChatModel(
        "fake-model", base_url=srv.base_url, sleep=sleep, rng=random.Random(0), **kwargs
    )


def generate(model: OpenAIChatModel, messages: list[dict[str, Any]] = QUESTION, **kw: Any):
    async def go() -> ModelReply:
        try:
            return await model.generate(messages, TOOLS, **kw)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_tool_call_turn_round_trips_and_records_usage(server: FakeOpenAIServer) -> None:
    server.push(tool_call_reply("search", {"query": "Alien"}, call_id="call_abc"))
    model = make_model(server, SleepRecorder())
    assert isinstance(model, Model)
    reply = generate(model, temperature=0.7, seed=11)
    assert reply.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_abc",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "Alien"}'},
            }
        ],
    }
    assert reply.usage is not None
    assert reply.usage["prompt_tokens"] > 0 and reply.usage["completion_tokens"] > 0
    sent = server.requests[0].body
    assert sent["model"] == "fake-model"
    assert sent["messages"] == QUESTION
    assert sent["tools"] == TOOLS and sent["tool_choice"] == "auto"
    assert sent["temperature"] == 0.7 and sent["seed"] == 11
    assert sent["max_tokens"] == 1024


def test_text_turn_omits_unset_sampling_fields(server: FakeOpenAIServer) -> None:
    server.push(text_reply("I think it is Ridley Scott."))
    reply = generate(make_model(server, SleepRecorder()))
    assert reply.message == {"role": "assistant", "content": "I think it is Ridley Scott."}
    sent = server.requests[0].body
    assert "seed" not in sent and "temperature" not in sent


def test_usage_absent_when_server_does_not_report_it() -> None:
    with FakeOpenAIServer([text_reply("hi")], usage=False) as srv:
        reply = generate(make_model(srv, SleepRecorder()))
    assert reply.usage is None


def test_malformed_arguments_pass_through_raw(server: FakeOpenAIServer) -> None:
    server.push(tool_call_reply("search", '{"query": "Alien"', call_id="c1"))
    reply = generate(make_model(server, SleepRecorder()))
    assert reply.message["tool_calls"][0]["function"]["arguments"] == '{"query": "Alien"'


def test_missing_ids_are_synthesised_after_prior_calls(server: FakeOpenAIServer) -> None:
    bare = tool_call_reply("search", {"query": "x"}, call_id=None)
    bare["tool_calls"].append(dict(bare["tool_calls"][0]))
    server.push(bare)
    history = [
        *QUESTION,
        tool_call_reply("search", {"query": "a"}, call_id="call_0"),
        {"role": "tool", "tool_call_id": "call_0", "content": "..."},
    ]
    reply = generate(make_model(server, SleepRecorder()), history)
    assert [call["id"] for call in reply.message["tool_calls"]] == ["call_1", "call_2"]


@pytest.mark.parametrize(
    ("fault", "expected_delay"),
    [
        (Fault.rate_limited(retry_after="3"), 3.0),
        (Fault.rate_limited(retry_after="0.25"), 0.25),
        (Fault.rate_limited(retry_after_ms="1500", retry_after="9"), 1.5),
        (Fault.rate_limited(retry_after="Thu, 01 Jan 2026 00:00:07 GMT"), 7.0),
        (Fault.rate_limited(retry_after="500"), 120.0),
    ],
)
def test_429_honours_retry_after(fault: Fault, expected_delay: float) -> None:
    sleep = SleepRecorder()
    with FakeOpenAIServer([fault, text_reply("ok")]) as srv:
        model = make_model(srv, sleep, clock=lambda: 1767225600.0)  # 2026-01-01T00:00:00Z
        reply = generate(model)
        assert len(srv.requests) == 2
    assert reply.message["content"] == "ok"
    assert sleep.delays == [pytest.approx(expected_delay)]


@pytest.mark.parametrize(
    "faults",
    [
        [Fault.server_error(500)],
        [Fault.server_error(503), Fault.server_error(502)],
        [Fault.rate_limited()],
        [Fault.garbled()],
        [Fault.garbled(b"<html>Bad Gateway</html>")],
        [Fault.empty_choices()],
        [Fault.disconnect()],
        [Fault.timeout(3.0)],
    ],
)
def test_transient_failures_are_retried_then_succeed(faults: list[Fault]) -> None:
    sleep = SleepRecorder()
    # A short client timeout only where a timeout is injected: on a loaded machine a healthy
    # request can take longer than a fraction of a second, which would add a retry. The
    # liveness check that follows a timeout is injected as passing: on a loaded machine the
    # fake server's GET /models could miss a real one's wait, which is not what is tested.
    timeout_s = 1.0 if any(f.kind == "timeout" for f in faults) else 30.0

    async def answers(wait_s: float) -> bool:
        return True

    with FakeOpenAIServer([*faults, text_reply("ok")]) as srv:
        reply = generate(make_model(srv, sleep, timeout_s=timeout_s, liveness=answers))
        assert len(srv.requests) == len(faults) + 1
    assert reply.message["content"] == "ok"
    assert len(sleep.delays) == len(faults)
    for attempt, delay in enumerate(sleep.delays):
        assert 0.0 <= delay <= 0.5 * 2**attempt  # full jitter under the backoff ceiling


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        (401, "OPENAI_API_KEY"),
        (403, "OPENAI_API_KEY"),
        (404, "OPENAI_BASE_URL"),
        (400, "tool calling"),
    ],
)
def test_client_errors_are_not_retried_and_say_how_to_fix(status: int, hint: str) -> None:
    sleep = SleepRecorder()
    with FakeOpenAIServer([Fault.http_error(status, "nope"), text_reply("never")]) as srv:
        with pytest.raises(ModelError) as info:
            generate(make_model(srv, sleep))
        assert len(srv.requests) == 1
    assert f"HTTP {status}" in str(info.value) and hint in str(info.value)
    assert "nope" in str(info.value) and "fake-model" in str(info.value)
    assert sleep.delays == []


@pytest.mark.parametrize(
    ("status", "message"),
    [
        # llama-cpp-python (and vLLM, OpenAI): the 4 questions of the live run in BENCHMARKS.md
        (
            400,
            "This model's maximum context length is 2048 tokens. However, you requested 2352 "
            "tokens (2224 in the messages, 128 in the completion).",
        ),
        (400, "the request exceeds the available context size, try increasing it"),  # llama.cpp
        (500, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096"),
    ],
)
def test_a_prompt_longer_than_the_context_fails_at_once_and_says_so(
    status: int, message: str
) -> None:
    sleep = SleepRecorder()
    with FakeOpenAIServer([Fault.http_error(status, message), text_reply("never")]) as srv:
        with pytest.raises(ContextLengthError) as info:
            generate(make_model(srv, sleep))
        assert len(srv.requests) == 1
    assert message[:30] in str(info.value)
    assert "context window" in str(info.value) and "--n_ctx" in str(info.value)
    assert "tool calling" not in str(info.value)
    assert sleep.delays == []


def test_retries_exhausted_names_the_last_failure() -> None:
    sleep = SleepRecorder()
    faults = [Fault.server_error(500), Fault.server_error(500), Fault.server_error(503)]
    with FakeOpenAIServer([*faults, text_reply("too late")]) as srv:
        with pytest.raises(ModelError, match=r"3 time\(s\).*HTTP 503"):
            generate(make_model(srv, sleep, retry=RetryPolicy(max_retries=2)))
        assert len(srv.requests) == 3
    assert len(sleep.delays) == 2


def test_rate_injected_faults_are_absorbed_by_retries() -> None:
    faults = [Fault.server_error(503), Fault.rate_limited("0"), Fault.garbled()]
    sleep = SleepRecorder()
    with FakeOpenAIServer(
        responder=lambda body: text_reply("ok"), fault_rate=0.4, rate_faults=faults, seed=3
    ) as srv:
        model = make_model(srv, sleep, retry=RetryPolicy(max_retries=8))

        async def many() -> list[ModelReply]:
            try:
                return [await model.generate(QUESTION, TOOLS) for _ in range(10)]
            finally:
                await model.aclose()

        replies = asyncio.run(many())
        injected = [request.fault for request in srv.requests if request.fault is not None]
    assert [reply.message["content"] for reply in replies] == ["ok"] * 10
    assert len(injected) == len(sleep.delays) > 0


def test_api_key_never_appears_in_errors_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    echo = f"Incorrect API key provided: {SECRET}"
    script = [Fault.http_error(500, echo), Fault.http_error(401, echo)]
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(script) as srv:
        model = make_model(srv, SleepRecorder(), api_key=SECRET)
        with pytest.raises(ModelError) as info:
            generate(model)
        assert srv.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    assert "***" in str(info.value)
    assert "retry 1/3" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in repr(model) and SECRET not in str(vars(model))


def test_env_fallbacks_for_base_url_and_key(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.push(text_reply("a"), text_reply("b"))
    model = OpenAIChatModel("m")
    assert model.base_url.rstrip("/") == server.base_url
    generate(model)
    assert server.requests[-1].headers["authorization"] == "Bearer EMPTY"
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    generate(OpenAIChatModel("m"))
    assert server.requests[-1].headers["authorization"] == f"Bearer {SECRET}"


def test_from_config_maps_fields(server: FakeOpenAIServer) -> None:
    config = AgentConfig(
        model="openai:m",
        base_url=server.base_url,
        max_tokens=77,
        request_timeout_s=9.0,
        max_retries=4,
    )
    model = OpenAIChatModel.from_config(config, "m")
    assert (model.max_tokens, model.timeout_s, model.retry.max_retries) == (77, 9.0, 4)
    server.push(text_reply("x"))
    generate(model)
    assert server.requests[0].body["max_tokens"] == 77


def test_unsupported_parameters_are_adapted_once_and_remembered(server: FakeOpenAIServer) -> None:
    server.push(
        Fault.http_error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
        ),
        Fault.http_error(
            400,
            "Unsupported value: 'temperature' does not support 0.7 with this model. "
            "Only the default (1) value is supported.",
        ),
        text_reply("first"),
        text_reply("second"),
    )
    sleep = SleepRecorder()
    model = make_model(server, sleep)

    async def twice() -> list[ModelReply]:
        try:
            return [await model.generate(QUESTION, TOOLS, temperature=0.7) for _ in range(2)]
        finally:
            await model.aclose()

    replies = asyncio.run(twice())
    assert [reply.message["content"] for reply in replies] == ["first", "second"]
    bodies = [request.body for request in server.requests]
    assert len(bodies) == 4 and sleep.delays == []
    assert "max_tokens" in bodies[0] and "temperature" in bodies[1]
    for body in bodies[2:]:
        assert body["max_completion_tokens"] == 1024
        assert "max_tokens" not in body and "temperature" not in body


@pytest.mark.parametrize(
    "message",
    ["Unsupported parameter: 'logprobs' is not supported", "Unsupported value: 'messages'"],
)
def test_unsupported_parameters_we_did_not_send_are_errors(message: str) -> None:
    with FakeOpenAIServer([Fault.http_error(400, message), text_reply("never")]) as srv:
        with pytest.raises(ModelError, match="HTTP 400"):
            generate(make_model(srv, SleepRecorder()))
        assert len(srv.requests) == 1


def test_one_model_serves_successive_event_loops(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    # The fake server keeps connections alive, so a client pooled on a closed loop would fail.
    model = make_model(server, SleepRecorder())
    server.push(text_reply("one"), text_reply("two"), text_reply("three"))

    async def ask() -> str:
        gc.collect()  # the client of the loop before is dropped while this loop runs
        return (await model.generate(QUESTION, TOOLS)).message["content"]

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        answers = [asyncio.run(ask()) for _ in range(3)]
    assert answers == ["one", "two", "three"]
    # dropping it closes nothing on a closed loop ("Task exception was never retrieved")
    assert not [r for r in caplog.records if r.name == "asyncio"], caplog.text
    assert server.requests[0].headers.get("connection", "keep-alive") == "keep-alive"


def test_concurrent_calls_share_one_client(server: FakeOpenAIServer) -> None:
    model = make_model(server, SleepRecorder())
    server.push(*(text_reply(str(i)) for i in range(4)))

    async def four() -> list[ModelReply]:
        try:
            return list(await asyncio.gather(*(model.generate(QUESTION, TOOLS) for _ in range(4))))
        finally:
            await model.aclose()

    replies = asyncio.run(four())
    assert sorted(reply.message["content"] for reply in replies) == ["0", "1", "2", "3"]
