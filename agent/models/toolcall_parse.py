"""Parse tool calls written as text (Hermes `<tool_call>{json}</tool_call>`, a bare JSON call)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from agent.models.base import Message
from tools.lenient_json import loads_lenient

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"

# A block ends at its closing tag, at the next opening tag (closing tag forgotten) or at EOS.
_BLOCK = re.compile(
    re.escape(TOOL_CALL_OPEN)
    + r"(.*?)(?:"
    + re.escape(TOOL_CALL_CLOSE)
    + r"|(?="
    + re.escape(TOOL_CALL_OPEN)
    + r")|\Z)",
    re.DOTALL,
)
_CLOSED_THINK = re.compile(re.escape(THINK_OPEN) + r".*?" + re.escape(THINK_CLOSE), re.DOTALL)
_FENCE = re.compile(r"\A```[a-zA-Z]*\s*(.*?)\s*```\Z", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"((?:[^"\\]|\\.)*)"')


def call_id(index: int) -> str:
    """Return the synthesised id of the `index`-th tool call of a conversation (`call_<n>`)."""
    return f"call_{index}"


def count_tool_calls(messages: Iterable[Message]) -> int:
    """Count the tool calls already made in a conversation's assistant messages.

    Adapters number the calls they synthesise ids for from this count, so ids stay unique
    across the whole conversation and are stable when the same history is replayed.
    """
    return sum(
        len(message.get("tool_calls") or [])
        for message in messages
        if message.get("role") == "assistant"
    )


def ensure_call_ids(message: Message, history: Iterable[Message]) -> Message:
    """Return a copy of an assistant message whose tool calls all have an id and a type.

    Missing ids become `call_<n>`, numbered after the calls already in `history`; ids that
    are present are kept. For models that build messages by hand (tests, benchmarks).
    """
    calls = message.get("tool_calls")
    if not calls:
        return dict(message)
    first = count_tool_calls(history)
    filled = []
    for offset, call in enumerate(calls):
        call = {**call, "type": call.get("type") or "function"}
        if not call.get("id"):
            call["id"] = call_id(first + offset)
        filled.append(call)
    return {**message, "tool_calls": filled}


def strip_thinking(text: str) -> str:
    """Remove `<think>...</think>` reasoning from generated text.

    A stray `</think>` (the chat template opened the block in the prompt) drops everything
    before it; an unclosed `<think>` runs to the first `<tool_call>` or to the end.
    """
    text = _CLOSED_THINK.sub("", text)
    if THINK_CLOSE in text:
        text = text.rsplit(THINK_CLOSE, 1)[1]
    start = text.find(THINK_OPEN)
    if start >= 0:
        end = text.find(TOOL_CALL_OPEN, start)
        text = text[:start] + (text[end:] if end >= 0 else "")
    return text


def parse_tool_call_text(text: str, *, first_call_index: int = 0) -> Message:
    """Turn one generated assistant turn into an OpenAI assistant message dict.

    Calls are `<tool_call>...</tool_call>` blocks (Qwen/Hermes), or, when there is no block,
    the whole turn being one JSON call object `{"name": ..., "arguments": {...}}` (optionally
    in a code fence, or a JSON list of such objects), as small models and some servers write.
    Arguments keep the exact text the model wrote for the `arguments` value (so rendering the
    turn back into a prompt reproduces the generated tokens); a double-encoded string value is
    unwrapped. Never raises: a block that is not a JSON object with a string `name` still
    becomes a tool call (name best-effort, `""` if none) whose `arguments` carry the raw block
    text, so the agent reports it to the model as a bad call it can recover from.

    Args:
        text: The decoded generation, special tokens already removed.
        first_call_index: Number of tool calls earlier in the conversation (ids continue
            from there, see `count_tool_calls`).

    Returns:
        `{"role": "assistant", "content": ...}` plus `tool_calls` when any block was found.
        `content` is the text outside the blocks, stripped; None when it is empty and there
        are tool calls.
    """
    text = strip_thinking(text)
    bodies = [match.group(1) for match in _BLOCK.finditer(text)]
    content = _BLOCK.sub("", text).strip()
    if not bodies:
        bodies = bare_json_calls(content)
        if not bodies:
            return {"role": "assistant", "content": content}
        content = ""
    calls = [_tool_call(body, first_call_index + offset) for offset, body in enumerate(bodies)]
    return {"role": "assistant", "content": content or None, "tool_calls": calls}


def bare_json_calls(text: str) -> list[str]:
    """The call objects of a turn that is nothing but a JSON call (or a list of them).

    A call object has a string `name` and an `arguments` or `parameters` key; anything else
    (prose, JSON that is not a call) gives an empty list.
    """
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1)
    if not stripped.startswith(("{", "[")):
        return []
    try:
        payload = loads_lenient(stripped).value
    except (ValueError, RecursionError):
        return []
    if isinstance(payload, dict):
        return [stripped] if _is_call(payload) else []
    if isinstance(payload, list) and payload and all(_is_call(item) for item in payload):
        return [json.dumps(item, ensure_ascii=False) for item in payload]
    return []


def _is_call(payload: Any) -> bool:
    return (
        isinstance(payload, dict)
        and isinstance(payload.get("name"), str)
        and ("arguments" in payload or "parameters" in payload)
    )


def _tool_call(body: str, index: int) -> dict[str, Any]:
    name, arguments = _name_and_arguments(body.strip())
    return {
        "id": call_id(index),
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _name_and_arguments(body: str) -> tuple[str, str]:
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        read = loads_lenient(body)
    except (ValueError, RecursionError):
        return _best_effort_name(body), body
    payload = read.value
    if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
        return _best_effort_name(body), body
    key = "arguments" if "arguments" in payload else "parameters"
    arguments = payload.get(key, {})
    if isinstance(arguments, str):
        return payload["name"], arguments
    span = _raw_span(read.text, key, arguments)
    if span is not None:
        # The model's own text, even when it needed repair: the tools read it leniently
        # again and say what they changed, and the turn renders back as generated.
        start, end = span
        return payload["name"], body[read.source_index(start) : read.source_index(end)]
    # ensure_ascii=False matches transformers' `tojson`, so the string renders back the same.
    return payload["name"], json.dumps(arguments, ensure_ascii=False)


def _raw_span(body: str, key: str, expected: Any) -> tuple[int, int] | None:
    """Where top-level `key`'s value is written in `body`, if it can be located."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r'"' + key + r'"\s*:\s*', body):
        try:
            value, end = decoder.raw_decode(body, match.end())
        except ValueError:
            continue
        if value == expected:
            return match.end(), end
    return None


def _best_effort_name(body: str) -> str:
    match = _NAME.search(body)
    if match is None:
        return ""
    try:
        name = json.loads(f'"{match.group(1)}"')
    except ValueError:
        return match.group(1)
    return name if isinstance(name, str) else ""
