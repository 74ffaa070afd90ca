"""Model adapter for any OpenAI-compatible /v1/chat/completions endpoint, with our own retries."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import openai

from agent.config import AgentConfig
from agent.models.base import (
    ContextLengthError,
    EndpointUnreachableError,
    Message,
    ModelError,
    ModelReply,
)
from agent.models.openai.reply import MalformedCompletionError, reply_from_completion
from agent.models.openai.request import strict_messages
from agent.models.openai.retry import (
    RetryPolicy,
    is_context_overflow,
    is_retryable_status,
    is_validation_rejection,
    parse_retry_after,
)
from agent.models.toolcall_parse import count_tool_calls

logger = logging.getLogger(__name__)

PLACEHOLDER_API_KEY = "EMPTY"
"""Sent when OPENAI_API_KEY is unset: local servers (vLLM, Ollama, llama.cpp) accept any key."""

_MAX_SERVER_MESSAGE = 300
# OpenAI's reasoning models reject max_tokens (wanting max_completion_tokens) and any
# temperature but 1: "Unsupported parameter: 'max_tokens' ...", "Unsupported value: 'temperature'".
_UNSUPPORTED = re.compile(r"unsupported (?:parameter|value)\W+(\w+)", re.IGNORECASE)
_ADAPTABLE = frozenset({"max_tokens", "temperature", "seed", "tool_choice"})


class _RetryableFailure(Exception):
    """One failed attempt worth retrying; `reason` is safe to show (no key)."""

    def __init__(
        self, reason: str, *, retry_after_s: float | None = None, unreachable: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable


class _Rejected(Exception):
    """A non-retryable HTTP status; `detail` is the server's message, key redacted."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class OpenAIChatModel:
    """A chat model behind an OpenAI-compatible HTTP endpoint (OpenAI, vLLM, Ollama, llama.cpp).

    Requests are built for strict servers (llama.cpp, vLLM): every message carries only the
    fields of the chat-completions schema, an assistant turn with tool calls has string
    `content`, and `tool_choice` is `auto`, which every tool-calling server implements.
    The openai client's own retries are off; this adapter retries timeouts, connection
    errors, 429 and 5xx (and malformed bodies) under `RetryPolicy`, honouring Retry-After.
    A URL where nothing answers (connection refused, DNS, TLS) is retried only
    `max_connect_retries` times, then `EndpointUnreachableError` is raised. A 5xx whose message
    says the request is invalid is not retried (the same request fails the same way).
    Other HTTP errors raise `ModelError` at once with a hint on how to fix the setup, except
    a 400 naming an unsupported `max_tokens` (sent as `max_completion_tokens` instead),
    `temperature`, `seed` or `tool_choice` (omitted): OpenAI's reasoning models reject those,
    and the adapter remembers the fix for later calls.
    The API key is handed to the client and never stored, logged or put in an error.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int = 1024,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        """Create the adapter.

        Args:
            model: Model id sent to the endpoint (e.g. `gpt-4o-mini`, `qwen3:8b`).
            base_url: Endpoint root ending in `/v1`; None falls back to OPENAI_BASE_URL, then
                to OpenAI's default.
            api_key: None falls back to OPENAI_API_KEY, then to the placeholder `EMPTY`.
            max_tokens: Cap on generated tokens per turn.
            timeout_s: Per-call timeout in seconds.
            retry: Retry policy; defaults to `RetryPolicy()`.
            sleep: Awaitable sleep (inject a recorder in tests).
            clock: POSIX clock used to read Retry-After dates.
            rng: Jitter source.
        """
        if not model:
            raise ModelError("empty model name: pass -m NAME (e.g. -m gpt-4o-mini)")
        self.name = model
        key = api_key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_API_KEY
        resolved_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        # A closure, not a stored key: the key never shows in vars() or repr().
        self._new_client: Callable[[], openai.AsyncOpenAI] = lambda: openai.AsyncOpenAI(
            api_key=key, base_url=resolved_url, max_retries=0, timeout=timeout_s
        )
        self._client = self._new_client()
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self.base_url = str(self._client.base_url)
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._unsupported: set[str] = set()

    @classmethod
    def from_config(cls, config: AgentConfig, model: str, **overrides: Any) -> OpenAIChatModel:
        """Build the adapter for model id `model` from an AgentConfig.

        Args:
            config: Supplies base_url, max_tokens, request_timeout_s and max_retries.
            model: Model id sent to the endpoint.
            **overrides: Extra constructor arguments (sleep, clock, rng, api_key).
        """
        return cls(
            model,
            base_url=config.base_url,
            max_tokens=config.max_tokens,
            timeout_s=config.request_timeout_s,
            retry=RetryPolicy(max_retries=config.max_retries),
            **overrides,
        )

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.name!r}, base_url={self.base_url!r})"

    def _client_for_running_loop(self) -> openai.AsyncOpenAI:
        """The client bound to the running event loop.

        httpx pools connections per event loop; a caller that runs each question under its
        own `asyncio.run` would otherwise reuse keep-alive connections of a closed loop.
        """
        loop = asyncio.get_running_loop()
        if self._client_loop is not loop:
            if self._client_loop is not None:
                self._client = self._new_client()
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the underlying HTTP connection pool."""
        await self._client.close()

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """Return the next assistant turn, retrying transient failures.

        Raises:
            ModelError: On a non-retryable HTTP error, or when every retry failed.
        """
        request = self._request(messages, tools, temperature, seed)
        first_call = count_tool_calls(messages)
        attempt = 0
        while True:
            try:
                body = await self._post(request)
                return reply_from_completion(body, first_call_index=first_call)
            except _Rejected as rejected:
                request = self._adapted(request, rejected)
                continue
            except _RetryableFailure as failure:
                last = failure
            except MalformedCompletionError as exc:
                last = _RetryableFailure(str(exc))
            reason = self._redact(last.reason)
            if last.unreachable and attempt >= self.retry.max_connect_retries:
                raise EndpointUnreachableError(
                    f"cannot reach model {self.name!r} at {self.base_url} ({attempt + 1} "
                    f"attempt(s); {reason}). Check that the server is running and listening "
                    f"there (curl {self.base_url.rstrip('/')}/models) or fix --base-url / "
                    "OPENAI_BASE_URL.",
                    url=self.base_url,
                )
            if attempt >= self.retry.max_retries:
                raise ModelError(
                    f"model {self.name!r} at {self.base_url} failed {attempt + 1} time(s); last "
                    f"failure: {reason}. Check that the server is up and not overloaded, or "
                    "raise the request timeout / max_retries."
                )
            delay = self.retry.delay_s(attempt, self._rng, retry_after_s=last.retry_after_s)
            attempt += 1
            # A dead URL ends in one EndpointUnreachableError; its retries are not news.
            limit = self.retry.max_connect_retries if last.unreachable else self.retry.max_retries
            logger.log(
                logging.INFO if last.unreachable else logging.WARNING,
                "model %s: %s; retry %d/%d in %.2fs", self.name, reason, attempt, limit, delay,
            )  # fmt: skip
            await self._sleep(delay)

    def _request(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float | None,
        seed: int | None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.name,
            "messages": strict_messages(messages),
            "max_tokens": self.max_tokens,
            "timeout": self.timeout_s,
        }
        if tools:
            request.update(tools=tools, tool_choice="auto")
        if temperature is not None:
            request["temperature"] = temperature
        if seed is not None:
            request["seed"] = seed
        return _without(request, self._unsupported)

    def _adapted(self, request: dict[str, Any], rejected: _Rejected) -> dict[str, Any]:
        """Drop (or rename) a parameter the endpoint says it does not support, or raise."""
        match = _UNSUPPORTED.search(rejected.detail) if rejected.status == 400 else None
        param = match.group(1) if match else None
        if param not in _ADAPTABLE or param not in request:
            raise self._rejection_error(rejected.status, rejected.detail)
        self._unsupported.add(param)
        action = "sending max_completion_tokens" if param == "max_tokens" else "omitting it"
        logger.warning("model %s does not support %r; %s from now on", self.name, param, action)
        return _without(request, {param})

    async def _post(self, request: dict[str, Any]) -> Any:
        try:
            client = self._client_for_running_loop()
            raw = await client.chat.completions.with_raw_response.create(**request)
        except openai.APITimeoutError as exc:
            raise _RetryableFailure(f"timed out after {self.timeout_s:g}s") from exc
        except openai.APIConnectionError as exc:
            # httpx's (or httpx2's) ConnectError: refused, DNS or TLS failure, nothing sent.
            unreachable = type(exc.__cause__).__name__ == "ConnectError"
            cause = f": {exc.__cause__}" if unreachable and str(exc.__cause__) else ""
            raise _RetryableFailure(
                f"cannot connect to {self.base_url} ({exc}{cause})", unreachable=unreachable
            ) from exc
        except openai.APIStatusError as exc:
            detail = self._redact(_server_message(exc))
            if is_validation_rejection(exc.status_code, detail) or is_context_overflow(
                exc.status_code, detail
            ):
                raise _Rejected(exc.status_code, detail) from None
            if is_retryable_status(exc.status_code):
                wait = parse_retry_after(exc.response.headers, now=self._clock())
                raise _RetryableFailure(
                    f"HTTP {exc.status_code}: {detail}", retry_after_s=wait
                ) from exc
            raise _Rejected(exc.status_code, detail) from None
        try:
            return json.loads(raw.http_response.text)
        except ValueError as exc:
            raise MalformedCompletionError(f"response body is not JSON: {exc}") from exc

    def _rejection_error(self, status: int, detail: str) -> ModelError:
        """The typed error for a request the server refused, saying how to fix it."""
        where = f"model {self.name!r} at {self.base_url}"
        if is_context_overflow(status, detail):
            return ContextLengthError(
                f"{where} returned HTTP {status} ({detail}): the conversation no longer fits "
                "the model's context window; start the server with a larger one "
                "(llama-cpp-python --n_ctx, llama.cpp -c, vLLM --max-model-len, Ollama "
                "num_ctx) or lower --max-steps or --max-tokens"
            )
        if status == 401:
            fix = "set OPENAI_API_KEY to a key valid for this endpoint"
        elif status == 403:
            fix = "the key lacks access to this model; check OPENAI_API_KEY and the model name"
        elif status == 404:
            fix = (
                "check the model name given with -m and that OPENAI_BASE_URL points at the "
                "server's OpenAI root (it usually ends in /v1)"
            )
        elif status in (400, 422):
            fix = (
                "the server rejected the request; check that the model supports tool calling "
                "(vLLM needs --enable-auto-tool-choice and a --tool-call-parser)"
            )
        elif status >= 500:
            fix = (
                "the server rejected the request as invalid (not retried: the same request "
                "fails the same way); check that the model and the server's chat format support "
                "tool calling (llama-cpp-python: --chat_format chatml-function-calling)"
            )
        else:
            fix = "check -m, OPENAI_BASE_URL and OPENAI_API_KEY"
        return ModelError(f"{where} returned HTTP {status} ({detail}): {fix}")

    def _redact(self, text: str) -> str:
        key = self._client.api_key
        return text.replace(key, "***") if key and key != PLACEHOLDER_API_KEY else text


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        text = error.get("message") if isinstance(error, Mapping) else error
        message = str(text) if text else exc.message
    else:
        message = str(body) if body else exc.message
    return message[:_MAX_SERVER_MESSAGE]


def _without(request: dict[str, Any], unsupported: set[str]) -> dict[str, Any]:
    adapted = dict(request)
    for param in unsupported & adapted.keys():
        value = adapted.pop(param)
        if param == "max_tokens":
            adapted["max_completion_tokens"] = value
    return adapted
