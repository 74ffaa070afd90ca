"""Validate a chat-completions request as strictly as real servers do (llama.cpp, vLLM).

`request_problems(body)` lists every rule a request breaks; the fake server rejects a request
with any problem, so a regression in what ARK sends fails the tests instead of a user's run.
The rules are those real servers enforce: llama.cpp's server answers HTTP 500 when an
assistant message with tool_calls has no string content and to `tool_choice: "required"`;
vLLM's pydantic schema rejects unknown fields and wrong types; OpenAI rejects a tool message
whose tool_call_id answers no call, and a conversation that leaves a call unanswered.
"""

from __future__ import annotations

import json
from typing import Any

REQUEST_FIELDS = frozenset(
    {
        "model", "messages", "tools", "tool_choice", "max_tokens", "max_completion_tokens",
        "temperature", "top_p", "seed", "stop", "stream", "n", "parallel_tool_calls",
        "response_format",
    }
)  # fmt: skip
MESSAGE_FIELDS = {
    "system": frozenset({"role", "content", "name"}),
    "user": frozenset({"role", "content", "name"}),
    "assistant": frozenset({"role", "content", "tool_calls", "name"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
}
TOOL_CHOICES = frozenset({"auto", "none"})
"""What llama.cpp's server implements (it answers HTTP 500 to "required")."""


def request_problems(body: Any) -> list[str]:
    """Every schema rule `body` breaks (empty when a strict server would accept it)."""
    if not isinstance(body, dict):
        return ["request body is not a JSON object"]
    problems = [f"unknown request field {key!r}" for key in body if key not in REQUEST_FIELDS]
    if not isinstance(body.get("model"), str) or not body.get("model"):
        problems.append("'model' must be a non-empty string")
    problems += _tool_problems(body)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return [*problems, "'messages' must be a non-empty list"]
    for index, message in enumerate(messages):
        problems += [f"messages[{index}]: {p}" for p in _message_problems(message)]
    return problems + _pairing_problems(messages)


def _tool_problems(body: dict[str, Any]) -> list[str]:
    problems = []
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list) or not tools:
            problems.append("'tools' must be a non-empty list when given")
        else:
            for tool in tools:
                function = tool.get("function") if isinstance(tool, dict) else None
                if tool.get("type") != "function" or not isinstance(function, dict):
                    problems.append("each tool must be {type: function, function: {...}}")
                elif not isinstance(function.get("name"), str):
                    problems.append("each tool function needs a string name")
    choice = body.get("tool_choice")
    if choice is not None:
        if tools is None:
            problems.append("'tool_choice' given without 'tools'")
        if isinstance(choice, str) and choice not in TOOL_CHOICES:
            problems.append(f"tool_choice {choice!r} is not supported (use 'auto' or 'none')")
    for key in ("max_tokens", "max_completion_tokens", "seed"):
        if key in body and not isinstance(body[key], int):
            problems.append(f"{key!r} must be an integer")
    if "temperature" in body and not isinstance(body["temperature"], (int, float)):
        problems.append("'temperature' must be a number")
    response_format = body.get("response_format")
    if response_format is not None:
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        spec = response_format.get("json_schema") if isinstance(response_format, dict) else None
        if kind not in ("text", "json_object", "json_schema"):
            problems.append("response_format.type must be text, json_object or json_schema")
        elif kind == "json_schema" and not (
            isinstance(spec, dict) and isinstance(spec.get("name"), str) and "schema" in spec
        ):
            problems.append("response_format.json_schema needs a name and a schema")
    return problems


def _message_problems(message: Any) -> list[str]:
    if not isinstance(message, dict):
        return ["message is not an object"]
    role = message.get("role")
    if role not in MESSAGE_FIELDS:
        return [f"unknown role {role!r}"]
    problems = [
        f"unknown field {key!r} in a {role} message"
        for key in message
        if key not in MESSAGE_FIELDS[role]
    ]
    content = message.get("content")
    if not isinstance(content, str):
        problems.append(f"{role} message content must be a string, got {type(content).__name__}")
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        problems.append("tool message needs a string tool_call_id")
    if role == "assistant" and "tool_calls" in message:
        problems += _call_problems(message["tool_calls"])
    return problems


def _call_problems(calls: Any) -> list[str]:
    if not isinstance(calls, list) or not calls:
        return ["tool_calls must be a non-empty list when present"]
    problems = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or set(call) != {"id", "type", "function"}:
            problems.append("a tool call must have exactly id, type and function")
            continue
        if not isinstance(call["id"], str) or not call["id"]:
            problems.append("a tool call id must be a non-empty string")
        if call["type"] != "function":
            problems.append("a tool call type must be 'function'")
        if not isinstance(function, dict) or set(function) != {"name", "arguments"}:
            problems.append("a tool call function must have exactly name and arguments")
            continue
        if not isinstance(function["name"], str):
            problems.append("a tool call name must be a string")
        if not isinstance(function["arguments"], str):
            problems.append("tool call arguments must be a JSON string")
    return problems


def _pairing_problems(messages: list[Any]) -> list[str]:
    """Each tool message answers an open call; every call is answered before the next turn."""
    problems: list[str] = []
    open_ids: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id in open_ids:
                open_ids.remove(call_id)
            else:
                problems.append(f"messages[{index}]: tool_call_id {call_id!r} answers no open call")
            continue
        if open_ids:
            problems.append(f"messages[{index}]: tool calls {open_ids} were never answered")
            open_ids = []
        if role == "assistant":
            calls = message.get("tool_calls")
            if isinstance(calls, list):
                ids = [c.get("id") for c in calls if isinstance(c, dict)]
                if len(set(map(json.dumps, ids))) != len(ids):
                    problems.append(f"messages[{index}]: duplicate tool call ids {ids}")
                open_ids = [i for i in ids if isinstance(i, str)]
    if open_ids:
        problems.append(f"tool calls {open_ids} of the last message were never answered")
    return problems
