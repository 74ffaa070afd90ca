"""How a failed OpenAI call is told apart (retry or not) and the typed error it ends with."""

from __future__ import annotations

from collections.abc import Mapping

import openai

from agent.models.base import (
    ContextLengthError,
    EndpointTimeoutError,
    EndpointUnreachableError,
    ModelError,
)
from agent.models.openai.retry import is_context_overflow

_MAX_SERVER_MESSAGE = 300


class RetryableFailure(Exception):
    """One failed attempt worth retrying; `reason` is safe to show (no key).

    Attributes:
        reason: What went wrong, for the log and the final error.
        retry_after_s: The wait the server asked for, if any.
        unreachable: Nothing answered at the URL (refused, DNS, TLS).
        timed_out: The attempt ran past its timeout.
    """

    def __init__(
        self,
        reason: str,
        *,
        retry_after_s: float | None = None,
        unreachable: bool = False,
        timed_out: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable
        self.timed_out = timed_out


class Rejected(Exception):
    """A non-retryable HTTP status; `detail` is the server's message, key redacted."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


def server_message(exc: openai.APIStatusError) -> str:
    """The server's error message from an error response, cut to a readable length."""
    body = exc.body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        text = error.get("message") if isinstance(error, Mapping) else error
        message = str(text) if text else exc.message
    else:
        message = str(body) if body else exc.message
    return message[:_MAX_SERVER_MESSAGE]


def final_error(
    where: str,
    url: str,
    last: RetryableFailure,
    reason: str,
    attempts: int,
    *,
    deadline_s: float | None = None,
) -> ModelError:
    """The error a call ends with once its retries (or its deadline, when given) are spent.

    Args:
        where: `model 'NAME' at URL`.
        url: The endpoint (credentials redacted).
        last: The last failure.
        reason: Its reason, API key redacted.
        attempts: Attempts made.
        deadline_s: The call deadline that ended the call, None when the retries did.
    """
    if last.unreachable:
        return EndpointUnreachableError(
            f"cannot reach {where} ({attempts} attempt(s); {reason}). Check that the server "
            f"is running and listening there (curl {url.rstrip('/')}/models) or fix "
            "--base-url / OPENAI_BASE_URL.",
            url=url,
        )
    budget = f" within the call deadline of {deadline_s:g}s" if deadline_s else ""
    if last.timed_out:
        return EndpointTimeoutError(
            f"{where} timed out {attempts} time(s){budget} ({reason}); the server answers but "
            "too slowly: raise --request-timeout or --call-deadline, lower --max-tokens, or "
            "use a faster server",
            url=url,
        )
    return ModelError(
        f"{where} failed {attempts} time(s){budget}; last failure: {reason}. Check that the "
        "server is up and not overloaded, or raise --request-timeout / --max-retries."
    )


def deadline_error(where: str, url: str, deadline_s: float, attempts: int) -> EndpointTimeoutError:
    """The call's deadline passed before another attempt could start."""
    return EndpointTimeoutError(
        f"{where} gave no answer within the call deadline of {deadline_s:g}s ({attempts} "
        "attempt(s)); raise --call-deadline / --request-timeout for a slow server",
        url=url,
    )


def silent_error(
    where: str, url: str, timeout_s: float, probe_s: float
) -> EndpointUnreachableError:
    """The endpoint accepts connections but answers neither the call nor the liveness check."""
    return EndpointUnreachableError(
        f"{where} accepts connections but does not answer: no reply within {timeout_s:g}s, "
        f"and GET {url.rstrip('/')}/models gave none within {probe_s:g}s. Check that the "
        "server is running and not stuck (restart it), or fix --base-url / OPENAI_BASE_URL.",
        url=url,
    )


def rejection_error(where: str, status: int, detail: str) -> ModelError:
    """The typed error for a request the server refused, saying how to fix it."""
    if is_context_overflow(status, detail):
        return ContextLengthError(
            f"{where} returned HTTP {status} ({detail}): the conversation no longer fits "
            "the model's context window; start the server with a larger one "
            "(llama-cpp-python --n_ctx, llama.cpp -c, vLLM --max-model-len, Ollama "
            "num_ctx) or lower --max-steps or --max-tokens"
        )
    return ModelError(f"{where} returned HTTP {status} ({detail}): {_status_fix(status)}")


def _status_fix(status: int) -> str:
    if status == 401:
        return "set OPENAI_API_KEY to a key valid for this endpoint"
    if status == 403:
        return "the key lacks access to this model; check OPENAI_API_KEY and the model name"
    if status == 404:
        return (
            "check the model name given with -m and that OPENAI_BASE_URL points at the "
            "server's OpenAI root (it usually ends in /v1)"
        )
    if status in (400, 422):
        return (
            "the server rejected the request; check that the model supports tool calling "
            "(vLLM needs --enable-auto-tool-choice and a --tool-call-parser)"
        )
    if status >= 500:
        return (
            "the server rejected the request as invalid (not retried: the same request "
            "fails the same way); check that the model and the server's chat format support "
            "tool calling (llama-cpp-python: --chat_format chatml-function-calling)"
        )
    return "check -m, OPENAI_BASE_URL and OPENAI_API_KEY"
