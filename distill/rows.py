"""One trajectory → one SFT row: canonical OpenAI messages plus the tool schemas as JSON text."""

from __future__ import annotations

import json
from typing import Any

from agent.trajectory import Trajectory

MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id")
"""Every row's messages carry exactly these keys, so the Arrow schema is the same in all rows."""


def _text(content: Any) -> str | None:
    """Message content as text: OpenAI content parts are joined, None stays None."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict)) or None
    return json.dumps(content, ensure_ascii=False)


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON text the model writes.

    Strings (as the openai client and ARK's adapters return them) are kept verbatim, so the
    training prompt shows exactly what the teacher wrote; dicts are serialised once. Keeping
    text also stops `datasets` from unifying argument dicts of different tools into one struct,
    which would render other tools' keys as `null`.
    """
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def _tool_call(call: dict[str, Any], index: int) -> dict[str, Any]:
    function = call.get("function") or {}
    return {
        "id": str(call.get("id") or f"call_{index}"),
        "type": "function",
        "function": {
            "name": str(function.get("name", "")),
            "arguments": arguments_text(function.get("arguments")),
        },
    }


def canonical_message(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI message reduced to `MESSAGE_KEYS` with arguments as JSON text."""
    calls = message.get("tool_calls") or None
    return {
        "role": str(message.get("role", "")),
        "content": _text(message.get("content")),
        "tool_calls": [_tool_call(c, i) for i, c in enumerate(calls)] if calls else None,
        "tool_call_id": message.get("tool_call_id"),
    }


def trajectory_messages(
    trajectory: Trajectory, *, include_system_prompt: bool = True
) -> list[dict[str, Any]]:
    """The trajectory's messages ready for training.

    Trailing tool or user messages after the last assistant turn are dropped: they carry no
    loss and only cost tokens.

    Args:
        trajectory: One agent's run.
        include_system_prompt: Keep the agent's system prompt (the student is then served
            with the same prompt); without it the template's tools block stands alone.

    Returns:
        Canonical messages; empty when the trajectory has no assistant turn.
    """
    messages = [canonical_message(m) for m in trajectory.messages]
    if not include_system_prompt:
        messages = [m for m in messages if m["role"] != "system"]
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    return messages[: last + 1]


def trajectory_row(
    trajectory: Trajectory, *, question_id: str, include_system_prompt: bool = True
) -> dict[str, Any]:
    """One SFT row in TRL's conversational tool-calling format.

    Returns:
        `{"question_id", "messages", "tools"}` where `tools` is the agent's exact tool
        schemas as a JSON string (TRL decodes it; Parquet would mangle nested dicts).
    """
    return {
        "question_id": question_id,
        "messages": trajectory_messages(trajectory, include_system_prompt=include_system_prompt),
        "tools": json.dumps(trajectory.tools, ensure_ascii=False),
    }


def malformed_calls(messages: list[dict[str, Any]]) -> int:
    """Assistant tool calls whose arguments are not a JSON object."""
    count = 0
    for message in messages:
        for call in message.get("tool_calls") or []:
            try:
                parsed = json.loads(call["function"]["arguments"])
            except ValueError:
                parsed = None
            count += not isinstance(parsed, dict)
    return count
