"""The one client factory: endpoint from flags or environment, retries under RetryPolicy."""

from __future__ import annotations

import openai
import pytest

from agent.models.openai.client import (
    PLACEHOLDER_API_KEY,
    call_with_retries,
    endpoint,
    sync_client,
)
from agent.models.openai.retry import RetryPolicy
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, text_reply


def test_endpoint_prefers_arguments_then_environment() -> None:
    env = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "env-key"}
    assert endpoint("http://flag/v1", "flag-key", environ=env) == ("http://flag/v1", "flag-key")
    assert endpoint(None, None, environ=env) == ("http://env/v1", "env-key")
    assert endpoint(None, None, environ={}) == (None, PLACEHOLDER_API_KEY)


def test_sync_calls_retry_transient_statuses_and_not_client_errors() -> None:
    delays: list[float] = []
    script: list[Fault | dict[str, object]] = [
        Fault.server_error(503),
        Fault.rate_limited(retry_after="0"),
        text_reply("ok"),
    ]
    with FakeOpenAIServer(script) as server:
        client = sync_client(server.base_url, "k", timeout_s=10.0)

        def call() -> object:
            return client.chat.completions.create(
                model="fake", messages=[{"role": "user", "content": "hi"}]
            )

        reply = call_with_retries(call, RetryPolicy(max_retries=2), sleep=delays.append)
        assert len(server.requests) == 3
    assert reply.choices[0].message.content == "ok"  # type: ignore[attr-defined]
    assert len(delays) == 2 and delays[1] == 0.0  # Retry-After: 0 honoured
    with FakeOpenAIServer([Fault.http_error(400, "bad")]) as server:
        client = sync_client(server.base_url, "k", timeout_s=10.0)
        with pytest.raises(openai.BadRequestError):
            call_with_retries(
                lambda: client.chat.completions.create(
                    model="fake", messages=[{"role": "user", "content": "hi"}]
                ),
                RetryPolicy(max_retries=5),
                sleep=delays.append,
            )
        assert len(server.requests) == 1


def test_a_5xx_that_calls_the_request_invalid_is_not_retried() -> None:
    with FakeOpenAIServer([Fault.http_error(500, "invalid request: bad role")]) as server:
        client = sync_client(server.base_url, "k", timeout_s=10.0)
        with pytest.raises(openai.InternalServerError):
            call_with_retries(
                lambda: client.chat.completions.create(
                    model="fake", messages=[{"role": "user", "content": "hi"}]
                ),
                RetryPolicy(max_retries=5),
                sleep=lambda delay: None,
            )
        assert len(server.requests) == 1
