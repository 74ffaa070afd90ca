"""Completion bodies from assorted servers become plain assistant dicts, or a retryable error."""

from __future__ import annotations

from typing import Any

import pytest

from agent.models.openai.reply import MalformedCompletionError, reply_from_completion


def body(message: Any, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message}], **extra}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"role": "assistant", "content": None}, {"role": "assistant", "content": ""}),
        ({"content": "hi", "refusal": None}, {"role": "assistant", "content": "hi"}),
        (
            {"content": "", "tool_calls": []},
            {"role": "assistant", "content": ""},
        ),
        (
            {"tool_calls": [{"function": {"name": "search", "arguments": {"query": "é"}}}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_4",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"query": "é"}'},
                    }
                ],
            },
        ),
        (
            {"tool_calls": [{"id": "", "function": {"name": None}}, "junk", {"id": "k"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_4", "type": "function", "function": {"name": "", "arguments": ""}},
                    {
                        "id": "call_5",
                        "type": "function",
                        "function": {"name": "", "arguments": "junk"},
                    },
                    {"id": "k", "type": "function", "function": {"name": "", "arguments": ""}},
                ],
            },
        ),
        (
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"role": "assistant", "content": "ab"},
        ),
        (
            {"tool_calls": {"function": {"name": "finish", "arguments": "{}"}}},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_4",
                        "type": "function",
                        "function": {"name": "finish", "arguments": "{}"},
                    }
                ],
            },
        ),
    ],
)
def test_message_shapes(message: dict[str, Any], expected: dict[str, Any]) -> None:
    assert reply_from_completion(body(message), first_call_index=4).message == expected


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}, {
            "prompt_tokens": 10, "completion_tokens": 3}),
        ({"prompt_tokens": 10}, {"prompt_tokens": 10}),
        ({"prompt_tokens": "10"}, None),
        (None, None),
        ("lots", None),
    ],
)  # fmt: skip
def test_usage(usage: Any, expected: dict[str, int] | None) -> None:
    reply = reply_from_completion(body({"content": "x"}, usage=usage))
    assert reply.usage == expected


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ([], "not a JSON object"),
        ("text", "not a JSON object"),
        ({}, "no choices"),
        ({"choices": []}, "no choices"),
        ({"choices": None, "error": {"message": "overloaded"}}, "overloaded"),
        ({"choices": ["x"]}, "no message"),
        ({"choices": [{"message": None}]}, "no message"),
    ],
)
def test_unusable_bodies_raise_a_retryable_error(raw: Any, reason: str) -> None:
    with pytest.raises(MalformedCompletionError, match=reason):
        reply_from_completion(raw)
