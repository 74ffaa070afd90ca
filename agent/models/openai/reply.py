"""Convert a decoded OpenAI chat-completion body into a plain-dict ModelReply."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent.models.base import Message, ModelReply
from agent.models.toolcall_parse import TOOL_CALL_OPEN, call_id, parse_tool_call_text

_MAX_ERROR_TEXT = 300


class MalformedCompletionError(ValueError):
    """A 200 response whose body is not a usable chat completion (retried like a 5xx)."""


def reply_from_completion(body: Any, *, first_call_index: int = 0) -> ModelReply:
    """Convert a decoded chat-completion body into a plain-dict ModelReply.

    Tool-call `arguments` stay the raw string the model wrote (a dict some servers send is
    serialised); an entry that is not a call object becomes a nameless call carrying its JSON,
    so the agent reports it instead of it vanishing; missing call ids are synthesised as
    `call_<n>`, numbered from `first_call_index` (the calls already in the conversation).
    A reply without structured calls whose text holds them (Hermes `<tool_call>` blocks or a
    bare JSON call object, as servers without a tool-call parser return them) is parsed like
    the local adapter parses generated text.

    Raises:
        MalformedCompletionError: When the body has no usable first choice.
    """
    if not isinstance(body, Mapping):
        raise MalformedCompletionError(f"response is not a JSON object: {str(body)[:80]!r}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        error = body.get("error")
        detail = f" (error: {str(error)[:_MAX_ERROR_TEXT]})" if error else ""
        raise MalformedCompletionError(f"response has no choices{detail}")
    raw_message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
    if not isinstance(raw_message, Mapping):
        raise MalformedCompletionError("response choice has no message")
    content = _text(raw_message.get("content"))
    message: Message = {"role": "assistant", "content": content}
    raw_calls = raw_message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raw_calls = [raw_calls]
    calls = [_tool_call(raw, first_call_index + offset) for offset, raw in enumerate(raw_calls)]
    if calls:
        message["tool_calls"] = calls
    elif content and (TOOL_CALL_OPEN in content or content.lstrip().startswith(("{", "[", "`"))):
        message = parse_tool_call_text(content, first_call_index=first_call_index)
        if message.get("content") is None:
            message["content"] = ""
    elif content is None:
        message["content"] = ""
    return ModelReply(message=message, usage=_usage(body.get("usage")))


def _text(content: Any) -> str | None:
    """Message content as text; a list of content parts (some servers) is joined."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
            for part in content
        )
    return str(content)


def _tool_call(raw: Any, index: int) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        # Not a call object at all: keep it as a nameless call so the agent reports it.
        text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        return {
            "id": call_id(index),
            "type": "function",
            "function": {"name": "", "arguments": text},
        }
    function = raw.get("function")
    function = function if isinstance(function, Mapping) else {}
    arguments = function.get("arguments")
    if arguments is None:
        arguments = ""
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    name = function.get("name")
    return {
        "id": raw.get("id") or call_id(index),
        "type": "function",
        "function": {"name": name if isinstance(name, str) else "", "arguments": arguments},
    }


def _usage(raw: Any) -> dict[str, int] | None:
    if not isinstance(raw, Mapping):
        return None
    usage = {
        key: raw[key]
        for key in ("prompt_tokens", "completion_tokens")
        if isinstance(raw.get(key), int)
    }
    return usage or None
