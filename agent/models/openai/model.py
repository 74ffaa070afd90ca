"""Model adapter for any OpenAI-compatible /v1/chat/completions endpoint, with our own retries."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai

from agent.config import AgentConfig
from agent.models.base import (
    Message,
    ModelError,
    ModelReply,
)
from agent.models.endpoint_url import redact_url, url_secrets
from agent.models.openai.client import PLACEHOLDER_API_KEY, async_client, endpoint
from agent.models.openai.failures import (
    Rejected,
    RetryableFailure,
    deadline_error,
    final_error,
    rejection_error,
    server_message,
    silent_error,
)
from agent.models.openai.liveness import PROBE_TIMEOUT_S, endpoint_answers
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

# OpenAI's reasoning models reject max_tokens (wanting max_completion_tokens) and any
# temperature but 1: "Unsupported parameter: 'max_tokens' ...", "Unsupported value: 'temperature'".
_UNSUPPORTED = re.compile(r"unsupported (?:parameter|value)\W+(\w+)", re.IGNORECASE)
_ADAPTABLE = frozenset({"max_tokens", "temperature", "seed", "tool_choice", "response_format"})
T = TypeVar("T")


class OpenAIChatModel:
    """A chat model behind an OpenAI-compatible HTTP endpoint (OpenAI, vLLM, Ollama, llama.cpp).

    Requests are built for strict servers (llama.cpp, vLLM): every message carries only the
    fields of the chat-completions schema, an assistant turn with tool calls has string
    `content`, and `tool_choice` is `auto`, which every tool-calling server implements.
    The openai client's own retries are off; this adapter retries timeouts, connection
    errors, 429 and 5xx (and malformed bodies) under `RetryPolicy`, honouring Retry-After.
    A URL where nothing answers (connection refused, DNS, TLS) is retried only
    `max_connect_retries` times, then `EndpointUnreachableError` is raised. A timed-out
    attempt is followed by a liveness check (GET /models, a few seconds): an endpoint that
    fails it accepts connections but answers nothing, and the call fails at once with
    `EndpointUnreachableError` (later calls check first, so they fail in seconds); one that
    passes is slow or flaky and is retried like a 5xx. Once the endpoint has answered a call,
    a failed liveness check no longer means silent while the call has a deadline: a busy
    single-slot server (llama-cpp-python) queues GET /models behind the requests it is
    generating, so the call is retried like a slow one until its deadline. All tries of one
    call stay within `call_deadline_s`; a call that ends timed out raises
    `EndpointTimeoutError`, which the batch's circuit breaker counts like an unreachable
    endpoint. A 5xx whose message says the request is invalid is not retried (the same
    request fails the same way).
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
        timeout_s: float = 60.0,
        call_deadline_s: float | None = 180.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        liveness: Callable[[float], Awaitable[bool]] | None = None,
    ) -> None:
        """Create the adapter.

        Args:
            model: Model id sent to the endpoint (e.g. `gpt-4o-mini`, `qwen3:8b`).
            base_url: Endpoint root ending in `/v1`; None falls back to OPENAI_BASE_URL, then
                to OpenAI's default.
            api_key: None falls back to OPENAI_API_KEY, then to the placeholder `EMPTY`.
            max_tokens: Cap on generated tokens per turn.
            timeout_s: Seconds one attempt waits for the reply.
            call_deadline_s: Bound on one call's tries and waits together (None: none).
            retry: Retry policy; defaults to `RetryPolicy()`.
            sleep: Awaitable sleep (inject a recorder in tests).
            clock: POSIX clock used to read Retry-After dates.
            monotonic: Clock of the call deadline.
            rng: Jitter source.
            liveness: The liveness check, given its wait in seconds (default: GET /models
                on this endpoint); tests inject its outcome, so no wall clock decides it.
        """
        if not model:
            raise ModelError("empty model name: pass -m NAME (e.g. -m gpt-4o-mini)")
        self.name = model
        resolved_url, key = endpoint(base_url, api_key)
        # A closure, not a stored key: the key never shows in vars() or repr().
        self._new_client: Callable[[], openai.AsyncOpenAI] = lambda: async_client(
            resolved_url, key, timeout_s=timeout_s
        )
        self._client = self._new_client()
        self._client_loop: asyncio.AbstractEventLoop | None = None
        # Shown in messages and logs: credentials in the URL are redacted.
        self.base_url = redact_url(str(self._client.base_url))
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.call_deadline_s = call_deadline_s
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._monotonic = monotonic
        self._rng = rng or random.Random()
        self._unsupported: set[str] = set()
        self._schema_form = "json_schema"  # or "json_object" (llama-cpp-python's server)
        self._silent = False  # the last liveness check failed: check before each call
        self._answered = False  # the endpoint has answered a call of this adapter
        self._probe_s = min(PROBE_TIMEOUT_S, timeout_s)
        self._liveness = liveness
        self._where = f"model {model!r} at {self.base_url}"

    @classmethod
    def from_config(cls, config: AgentConfig, model: str, **overrides: Any) -> OpenAIChatModel:
        """Build the adapter for model id `model` from an AgentConfig.

        Args:
            config: Supplies base_url, max_tokens, request_timeout_s, max_retries and
                call_deadline_s.
            model: Model id sent to the endpoint.
            **overrides: Extra constructor arguments (sleep, clock, rng, api_key).
        """
        return cls(
            model,
            base_url=config.base_url,
            max_tokens=config.max_tokens,
            timeout_s=config.request_timeout_s,
            call_deadline_s=config.call_deadline_s,
            retry=RetryPolicy.for_max_retries(config.max_retries),
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
        return await self.call(
            request, lambda body: reply_from_completion(body, first_call_index=first_call)
        )

    async def generate_structured(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        *,
        name: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """One turn whose text the endpoint constrains to the JSON `schema`.

        `max_tokens` replaces the adapter's cap for this turn (a JSON document may need more
        room than the adapter's answers).

        Sent as `response_format: {"type": "json_schema", "json_schema": {name, schema,
        strict}}` (OpenAI strict mode; llama.cpp's server, vLLM, SGLang and Ollama turn it into
        a grammar), or as `{"type": "json_object", "schema": ...}` to an endpoint that rejected
        that form (llama-cpp-python's server). An endpoint that rejects both is asked again
        without it, and `takes_response_format()` is False from then on.
        """
        request = self._request(messages, [], temperature, None)
        if max_tokens is not None:
            key = "max_completion_tokens" if "max_tokens" in self._unsupported else "max_tokens"
            request[key] = max_tokens
        if "response_format" in self._unsupported:
            return await self.call(request, reply_from_completion)
        if self._schema_form == "json_object":
            request["response_format"] = {"type": "json_object", "schema": schema}
        else:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        return await self.call(request, reply_from_completion)

    def takes_response_format(self) -> bool:
        """False once this endpoint has rejected `response_format`."""
        return "response_format" not in self._unsupported

    async def first_token_logprobs(self, messages: list[Message], top: int = 20) -> Any:
        """The completion of one greedy token with its `top` logprobs (a reranker's score).

        The same call path as `generate` (retries, deadline, liveness); the body as sent.
        """
        request = {
            "model": self.name, "messages": messages, "max_tokens": 1, "temperature": 0.0,
            "logprobs": True, "top_logprobs": top,
        }  # fmt: skip
        return await self.call(request, _choices_present)

    async def call(self, request: dict[str, Any], parse: Callable[[Any], T]) -> T:
        """Send `request` to /chat/completions and `parse` the JSON body: the one call path.

        Every model call of ARK goes through here (agents, planner, extraction, SARG and the
        served reranker). One attempt, reading the reply included, lasts at most the request
        timeout, cut to what the call deadline leaves: a server that sends its reply a few
        bytes at a time is cut off like a silent one. Failures are retried as the class doc
        says; a body `parse` rejects (MalformedCompletionError) is retried like a 5xx.

        Raises:
            ModelError: On a non-retryable HTTP error, or when every retry failed.
        """
        deadline = (
            None if self.call_deadline_s is None else self._monotonic() + self.call_deadline_s
        )
        if self._silent and not await self._answers():
            raise silent_error(self._where, self.base_url, self.timeout_s, self._probe_s)
        attempt = 0
        while True:
            waited = self._attempt_timeout(deadline, attempt)
            try:
                body = await self._post(request, waited)
                parsed = parse(body)
                self._silent = False
                self._answered = True
                return parsed
            except Rejected as rejected:
                request = self._adapted(request, rejected)
                continue
            except RetryableFailure as failure:
                last = failure
            except MalformedCompletionError as exc:
                last = RetryableFailure(str(exc))
            if last.timed_out and not self._maybe_busy(deadline):
                probe_s = self._probe_within(deadline)
                if probe_s is None:  # the deadline passed during the attempt
                    raise final_error(
                        self._where, self.base_url, last, self._redact(last.reason),
                        attempt + 1, deadline_s=self.call_deadline_s,
                    )  # fmt: skip
                if not await self._answers(probe_s):
                    self._silent = True
                    raise silent_error(self._where, self.base_url, waited, probe_s)
            limit = self._retry_limit(last)
            delay = self.retry.delay_s(attempt, self._rng, retry_after_s=last.retry_after_s)
            out_of_time = deadline is not None and self._monotonic() + delay >= deadline
            if attempt >= limit or out_of_time:
                deadline_s = self.call_deadline_s if out_of_time else None
                raise final_error(
                    self._where, self.base_url, last, self._redact(last.reason), attempt + 1,
                    deadline_s=deadline_s,
                )  # fmt: skip
            attempt += 1
            # A dead URL ends in one EndpointUnreachableError; its retries are not news.
            logger.log(
                logging.INFO if last.unreachable else logging.WARNING,
                "model %s: %s; retry %d/%d in %.2fs",
                self.name, self._redact(last.reason), attempt, limit, delay,
            )  # fmt: skip
            await self._sleep(delay)

    def _maybe_busy(self, deadline: float | None) -> bool:
        """Whether a timed-out call is retried as busy, with no liveness check to tell.

        Only for an endpoint that answered before and a call with a deadline: a single-slot
        server answers nothing, GET /models included, until its current request is done (so the
        check would say nothing), and the deadline still bounds the wait. An endpoint that never
        answered gets the check, and stops at once when it fails.
        """
        if not self._answered or deadline is None:
            return False
        logger.info(
            "model %s: timed out; it answered before, so it is taken as busy and retried within "
            "the call deadline", self.name,
        )  # fmt: skip
        return True

    def _retry_limit(self, failure: RetryableFailure) -> int:
        return self.retry.max_connect_retries if failure.unreachable else self.retry.max_retries

    def _attempt_timeout(self, deadline: float | None, attempt: int) -> float:
        """This attempt's timeout: the request timeout, cut to what the deadline leaves."""
        if deadline is None:
            return self.timeout_s
        left = deadline - self._monotonic()
        if left <= 0:
            raise deadline_error(self._where, self.base_url, self.call_deadline_s or 0, attempt)
        return min(self.timeout_s, left)

    async def _answers(self, probe_s: float | None = None) -> bool:
        """The liveness check: does the endpoint answer GET /models within a few seconds?"""
        wait = probe_s or self._probe_s
        if self._liveness is not None:
            return await self._liveness(wait)
        return await endpoint_answers(self._client_for_running_loop(), timeout_s=wait)

    def _probe_within(self, deadline: float | None) -> float | None:
        """The liveness check's wait, cut to what the deadline leaves (None: nothing left)."""
        if deadline is None:
            return self._probe_s
        left = deadline - self._monotonic()
        return min(self._probe_s, left) if left > 0 else None

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
        }
        if tools:
            request.update(tools=tools, tool_choice="auto")
        if temperature is not None:
            request["temperature"] = temperature
        if seed is not None:
            request["seed"] = seed
        return _without(request, self._unsupported)

    def _adapted(self, request: dict[str, Any], rejected: Rejected) -> dict[str, Any]:
        """Drop (or rename) a parameter the endpoint says it does not support, or raise.

        A rejected `response_format` of type `json_schema` is sent again in the older
        `{"type": "json_object", "schema": ...}` form (llama-cpp-python's server takes only
        that), and dropped when that is rejected too or the endpoint calls the parameter
        unsupported.
        """
        response_format = request.get("response_format")
        unsupported = _UNSUPPORTED.search(rejected.detail)
        if response_format is not None and "response_format" in rejected.detail:
            named = unsupported is not None and unsupported.group(1) == "response_format"
            if response_format.get("type") == "json_schema" and not named:
                self._schema_form = "json_object"
                logger.warning("model %s takes a schema only as json_object", self.name)
                schema = response_format["json_schema"]["schema"]
                return {**request, "response_format": {"type": "json_object", "schema": schema}}
            self._unsupported.add("response_format")
            logger.warning("model %s takes no response_format; asking by the prompt", self.name)
            return _without(request, {"response_format"})
        match = _UNSUPPORTED.search(rejected.detail) if rejected.status == 400 else None
        param = match.group(1) if match else None
        if param not in _ADAPTABLE or param not in request:
            raise rejection_error(self._where, rejected.status, rejected.detail)
        self._unsupported.add(param)
        action = "sending max_completion_tokens" if param == "max_tokens" else "omitting it"
        logger.warning("model %s does not support %r; %s from now on", self.name, param, action)
        return _without(request, {param})

    async def _post(self, request: dict[str, Any], timeout_s: float) -> Any:
        """One attempt; `timeout_s` bounds all of it, reading the reply included."""
        try:
            return await asyncio.wait_for(self._post_once(request, timeout_s), timeout_s)
        except TimeoutError as exc:  # the reply trickled in past the attempt's time
            raise RetryableFailure(f"timed out after {timeout_s:g}s", timed_out=True) from exc

    async def _post_once(self, request: dict[str, Any], timeout_s: float) -> Any:
        try:
            client = self._client_for_running_loop()
            raw = await client.chat.completions.with_raw_response.create(
                **request, timeout=timeout_s
            )
            text = raw.http_response.text
        except openai.APITimeoutError as exc:
            raise RetryableFailure(f"timed out after {timeout_s:g}s", timed_out=True) from exc
        except openai.APIConnectionError as exc:
            # httpx's (or httpx2's) ConnectError: refused, DNS or TLS failure, nothing sent.
            unreachable = type(exc.__cause__).__name__ == "ConnectError"
            cause = f": {exc.__cause__}" if unreachable and str(exc.__cause__) else ""
            raise RetryableFailure(
                f"cannot connect to {self.base_url} ({exc}{cause})", unreachable=unreachable
            ) from exc
        except openai.APIStatusError as exc:
            detail = self._redact(server_message(exc))
            if is_validation_rejection(exc.status_code, detail) or is_context_overflow(
                exc.status_code, detail
            ):
                raise Rejected(exc.status_code, detail) from None
            if is_retryable_status(exc.status_code):
                wait = parse_retry_after(exc.response.headers, now=self._clock())
                raise RetryableFailure(
                    f"HTTP {exc.status_code}: {detail}", retry_after_s=wait
                ) from exc
            raise Rejected(exc.status_code, detail) from None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise MalformedCompletionError(f"response body is not JSON: {exc}") from exc

    def _redact(self, text: str) -> str:
        """`text` (a server's message) without the API key or the URL's credentials in it."""
        key = self._client.api_key
        secrets = url_secrets(str(self._client.base_url))
        if key and key != PLACEHOLDER_API_KEY:
            secrets.insert(0, key)
        for secret in secrets:
            text = text.replace(secret, "***")
        return text


def _without(request: dict[str, Any], unsupported: set[str]) -> dict[str, Any]:
    adapted = dict(request)
    for param in unsupported & adapted.keys():
        value = adapted.pop(param)
        if param == "max_tokens":
            adapted["max_completion_tokens"] = value
    return adapted


def _choices_present(body: Any) -> Any:
    """The body, once it holds a choice (else it is malformed and retried)."""
    if not isinstance(body, dict) or not body.get("choices"):
        raise MalformedCompletionError("the completion has no choices")
    return body
