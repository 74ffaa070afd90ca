"""Chat messages in the exact shape strict OpenAI-compatible servers accept (llama.cpp, vLLM)."""

from __future__ import annotations

import json
from typing import Any

from agent.models.base import Message

_FIELDS = {
    "system": ("content",),
    "user": ("content",),
    "assistant": ("content", "tool_calls"),
    "tool": ("tool_call_id", "content"),
}


def strict_messages(messages: list[Message]) -> list[Message]:
    """Copy `messages` keeping only the chat-completions schema's fields, with strict types.

    Strict servers validate requests: llama.cpp answers HTTP 500 when an assistant message
    with `tool_calls` has `content: null`, and some reject unknown fields or an empty
    `tool_calls` list. So every `content` is a string (None becomes ""), an assistant turn
    carries `tool_calls` only when it has calls, each call is `{id, type: "function",
    function: {name, arguments}}` with `arguments` a JSON string, a tool message is
    `{role, tool_call_id, content}`, and fields outside the schema are dropped.

    Args:
        messages: OpenAI-format messages as the agent keeps them.

    Returns:
        New message dicts; the inputs are not modified.
    """
    return [_strict(message) for message in messages]


def _strict(message: Message) -> Message:
    role = message.get("role")
    fields = _FIELDS.get(role) if isinstance(role, str) else None
    if fields is None:
        return dict(message)
    strict: Message = {"role": role}
    for field in fields:
        value = message.get(field)
        if field == "content":
            strict["content"] = _text(value)
        elif field == "tool_calls":
            if value:
                strict["tool_calls"] = [_call(call) for call in value]
        else:
            strict[field] = "" if value is None else str(value)
    return strict


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    return str(content)


def _call(call: Any) -> dict[str, Any]:
    call = call if isinstance(call, dict) else {}
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    arguments = function.get("arguments")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    name = function.get("name")
    return {
        "id": str(call.get("id") or ""),
        "type": "function",
        "function": {"name": name if isinstance(name, str) else "", "arguments": arguments},
    }
