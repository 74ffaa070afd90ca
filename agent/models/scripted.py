"""ScriptedModel: replays a fixed list of assistant turns, for tests and demos."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.models.base import Message, ModelError, ModelReply
from agent.models.toolcall_parse import ensure_call_ids

Turn = Message | ModelReply | Callable[[list[Message]], "Message | ModelReply"]
"""A scripted turn: an assistant message, a full reply, or a function of the messages so far."""


@dataclass(frozen=True)
class ScriptedCall:
    """What one `generate` call received (deep copies, safe to assert on later)."""

    messages: list[Message]
    tools: list[dict[str, Any]]
    temperature: float | None
    seed: int | None


def tool_call(name: str, arguments: Mapping[str, Any] | str, *, id: str | None = None) -> dict:
    """Build one OpenAI tool call; a string `arguments` is kept verbatim (may be malformed).

    Args:
        name: Tool name.
        arguments: Arguments as a mapping (serialised to JSON) or the raw JSON text.
        id: Call id; None lets `ScriptedModel` number it `call_<n>` when replayed.
    """
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": raw}}
    if id is not None:
        call["id"] = id
    return call


def tool_call_message(
    name: str,
    arguments: Mapping[str, Any] | str,
    *more: tuple[str, Mapping[str, Any] | str],
    content: str | None = None,
) -> Message:
    """Build an assistant message calling `name(arguments)`, then each `(name, arguments)` in more.

    Example: `tool_call_message("search", {"query": "x"}, ("finish", {}))` makes one turn with
    two calls. Ids are left for `ScriptedModel` to number.
    """
    calls = [tool_call(name, arguments), *(tool_call(n, a) for n, a in more)]
    return {"role": "assistant", "content": content, "tool_calls": calls}


def text_message(content: str) -> Message:
    """Build an assistant message with text and no tool call."""
    return {"role": "assistant", "content": content}


class ScriptedModel:
    """A `Model` that replays `turns` in order, one per `generate` call.

    Replayed messages are deep-copied, tool calls without an id get `call_<n>` (n counts the
    calls already in the conversation), and the arguments of every call received are kept in
    `calls` for assertions. When the script is exhausted, `generate` raises `ModelError`.
    """

    def __init__(
        self, turns: Sequence[Turn], *, name: str = "scripted", delay_s: float = 0.0
    ) -> None:
        """Create the model.

        Args:
            turns: The assistant turns to replay.
            name: Reported model name.
            delay_s: Awaited before each reply (lets tests check agents run concurrently).
        """
        self.name = name
        self._turns = list(turns)
        self._delay_s = delay_s
        self.calls: list[ScriptedCall] = []

    @property
    def remaining(self) -> int:
        """Turns not yet replayed."""
        return len(self._turns) - len(self.calls)

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """Replay the next scripted turn.

        Raises:
            ModelError: When every turn has been replayed already.
        """
        index = len(self.calls)
        if index >= len(self._turns):
            raise ModelError(
                f"scripted model {self.name!r} ran out of turns after {len(self._turns)} "
                "call(s); add turns to the script or lower max_steps"
            )
        self.calls.append(
            ScriptedCall(copy.deepcopy(messages), copy.deepcopy(tools), temperature, seed)
        )
        if self._delay_s:
            await asyncio.sleep(self._delay_s)
        turn = self._turns[index]
        reply = turn(messages) if callable(turn) else turn
        if not isinstance(reply, ModelReply):
            reply = ModelReply(message=reply)
        return ModelReply(_normalised(reply.message, messages), reply.usage)


def _normalised(message: Message, history: list[Message]) -> Message:
    message = copy.deepcopy(message)
    message.setdefault("role", "assistant")
    if not message.get("tool_calls"):
        message.pop("tool_calls", None)
        if message.get("content") is None:
            message["content"] = ""
        return message
    return ensure_call_ids(message, history)
