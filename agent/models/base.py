"""The one model interface every backend implements: OpenAI messages in, one assistant turn out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from graphs.errors import ArkError

Message = dict[str, Any]
"""An OpenAI chat message dict (role, content, tool_calls, tool_call_id, ...)."""


@dataclass(frozen=True)
class ModelReply:
    """One assistant turn.

    Attributes:
        message: OpenAI assistant message: {"role": "assistant", "content": str | None,
            "tool_calls": [{"id", "type": "function", "function": {"name", "arguments": str}}]}.
            `arguments` is the JSON text exactly as the model wrote it (it may be malformed).
        usage: Token usage when the backend reports it ({"prompt_tokens", "completion_tokens"}).
        turn_as: How the turn's tool calls were asked when not natively: `action` (one
            JSON-schema-constrained action, agent/models/action_turns.py).
    """

    message: Message
    usage: dict[str, int] | None = None
    turn_as: str | None = None


class ModelError(ArkError):
    """The model could not produce a turn (endpoint down after retries, bad credentials, ...).

    Attributes:
        kind: The `error_kind` recorded on the trajectory step that hit it.
    """

    kind = "model_error"


class EndpointUnreachableError(ModelError):
    """Nothing answered at the model's URL (connection refused, DNS failure, TLS failure).

    Attributes:
        url: The endpoint that could not be reached.
    """

    kind = "endpoint_unreachable"

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class EndpointTimeoutError(EndpointUnreachableError):
    """The endpoint answers (its liveness check passes) but not in time for this call.

    It keeps `EndpointUnreachableError`'s kind, so a batch's circuit breaker counts it: a
    batch whose every call times out stops like one whose endpoint is down.
    """


class ContextLengthError(ModelError):
    """The conversation no longer fits the model's context window (prompt plus the turn's tokens).

    The agent stops as it does at its step limit, keeping the answers it has selected; only a
    first turn that does not fit is a failure (the system prompt and question alone are too long).
    """

    kind = "context_length"


@runtime_checkable
class Model(Protocol):
    """A chat model that can call tools."""

    name: str

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """Return the next assistant message for `messages`, offering `tools`."""
        ...
