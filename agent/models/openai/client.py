"""The one factory for OpenAI clients: endpoint and key resolved alike, client retries off."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

import openai

from agent.models.openai.retry import (
    RetryPolicy,
    is_retryable_status,
    is_validation_rejection,
    parse_retry_after,
)

PLACEHOLDER_API_KEY = "EMPTY"
"""Sent when OPENAI_API_KEY is unset: local servers (vLLM, Ollama, llama.cpp) accept any key."""

T = TypeVar("T")


def endpoint(
    base_url: str | None, api_key: str | None, *, environ: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """The base URL and API key a client uses.

    The arguments, else OPENAI_BASE_URL and OPENAI_API_KEY, else OpenAI's default URL (None)
    and the placeholder key.
    """
    env = os.environ if environ is None else environ
    url = base_url or env.get("OPENAI_BASE_URL") or None
    return url, api_key or env.get("OPENAI_API_KEY") or PLACEHOLDER_API_KEY


def async_client(base_url: str | None, api_key: str, *, timeout_s: float) -> openai.AsyncOpenAI:
    """An async client whose own retries are off: callers retry under `RetryPolicy`.

    Its HTTP pool is one the SDK did not make (with the SDK's defaults), so dropping the
    client of an event loop that has ended (`OpenAIChatModel` keeps one per loop) schedules
    no close of that pool on the loop running then ("Task exception was never retrieved ...
    Event loop is closed"); the pool's sockets close as they are collected.
    """
    return openai.AsyncOpenAI(
        api_key=api_key,
        base_url=base_url,
        max_retries=0,
        timeout=timeout_s,
        http_client=openai.DefaultAsyncHttpxClient(),
    )


def sync_client(base_url: str | None, api_key: str, *, timeout_s: float) -> openai.OpenAI:
    """A blocking client whose own retries are off: use `call_with_retries`."""
    return openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s)


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> T:
    """Run a blocking client call, retrying what `RetryPolicy` retries.

    Refused connections retry `max_connect_retries` times; timeouts, 429 and 5xx
    `max_retries` times (honouring Retry-After) unless the server says the
    request itself is invalid; anything else, and the last failure, propagates as the openai
    exception.
    """
    rng = rng or random.Random()
    attempt = 0
    while True:
        try:
            return call()
        except openai.APIError as error:
            limit, wait = _retry_budget(error, policy)
            if attempt >= limit:
                raise
        sleep(policy.delay_s(attempt, rng, retry_after_s=wait))
        attempt += 1


def _retry_budget(error: openai.APIError, policy: RetryPolicy) -> tuple[int, float | None]:
    """How many retries `error`'s kind gets, and the wait the server asked for."""
    if isinstance(error, openai.APITimeoutError):
        return policy.max_retries, None
    if isinstance(error, openai.APIConnectionError):
        return policy.max_connect_retries, None
    if not isinstance(error, openai.APIStatusError) or not is_retryable_status(error.status_code):
        return 0, None
    if is_validation_rejection(error.status_code, error.message):
        return 0, None  # the same request fails the same way
    return policy.max_retries, parse_retry_after(error.response.headers, now=time.time())
