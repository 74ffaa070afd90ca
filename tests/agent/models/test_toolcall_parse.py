"""Parsing Qwen/Hermes `<tool_call>` text into OpenAI assistant messages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.models.toolcall_parse import (
    count_tool_calls,
    ensure_call_ids,
    parse_tool_call_text,
    strip_thinking,
)


def calls_of(message: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (call["function"]["name"], call["function"]["arguments"])
        for call in message.get("tool_calls", [])
    ]


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        (  # cut off: the arguments as far as the model wrote them
            '<tool_call>{"name": "search", "arguments": {"query": "a"</tool_call>',
            "search",
            '{"query": "a"',
        ),
        (  # a quoted title the model did not escape
            '<tool_call>\n{"name": "search", "arguments": {"query": "cited by "Deep Nets" '
            'papers"}}\n</tool_call>',
            "search",
            '{"query": "cited by "Deep Nets" papers"}',
        ),
        (  # the same as a bare JSON turn, with a surplus brace
            '{"name": "search", "arguments": {"query": "cited by "Deep Nets""}}}',
            "search",
            '{"query": "cited by "Deep Nets""}',
        ),
    ],
)
def test_almost_json_calls_keep_the_name_and_the_models_own_arguments(
    text: str, name: str, arguments: str
) -> None:
    """The arguments stay as generated: the tools repair them and say so (tools.lenient_json)."""
    [call] = parse_tool_call_text(text)["tool_calls"]
    assert call["function"] == {"name": name, "arguments": arguments}


@pytest.mark.parametrize(
    ("text", "expected_calls", "expected_content"),
    [
        (
            '<tool_call>\n{"name": "search", "arguments": {"query": "alien"}}\n</tool_call>',
            [("search", '{"query": "alien"}')],
            None,
        ),
        (
            '<tool_call>{"name":"search","arguments":{"query":"alien"}}</tool_call>',
            [("search", '{"query":"alien"}')],
            None,
        ),
        (
            '  \n\n<tool_call>  \n\t{"name": "finish", "arguments": {}}  \n\n</tool_call>\n ',
            [("finish", "{}")],
            None,
        ),
        (
            'Let me look.\n<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n'
            "</tool_call>",
            [("search", '{"query": "x"}')],
            "Let me look.",
        ),
        (
            '<tool_call>{"name": "search", "arguments": {"query": "a"}}</tool_call>\n'
            '<tool_call>{"name": "neighbors", "arguments": {"node_id": "n1", "k": 5}}'
            "</tool_call>",
            [("search", '{"query": "a"}'), ("neighbors", '{"node_id": "n1", "k": 5}')],
            None,
        ),
        (
            '<tool_call>{"name": "search", "arguments": {"query": "a"}}',
            [("search", '{"query": "a"}')],
            None,
        ),
        (
            '<tool_call>{"name": "a", "arguments": {}}<tool_call>{"name": "b", "arguments": {}}',
            [("a", "{}"), ("b", "{}")],
            None,
        ),
        (
            '<tool_call>{"name": "search", "arguments": "{\\"query\\": \\"a\\"}"}</tool_call>',
            [("search", '{"query": "a"}')],
            None,
        ),
        (
            '<tool_call>{"name": "search", "parameters": {"query": "a"}}</tool_call>',
            [("search", '{"query": "a"}')],
            None,
        ),
        (
            '<tool_call>{"name": "finish"}</tool_call>',
            [("finish", "{}")],
            None,
        ),
        (
            '<tool_call>\n```json\n{"name": "finish", "arguments": {}}\n```\n</tool_call>',
            [("finish", "{}")],
            None,
        ),
        (
            '<tool_call>{"name": "search", "arguments": {"query": "café"}}</tool_call>',
            [("search", '{"query": "café"}')],
            None,
        ),
        (
            '<tool_call>{"arguments": {\n  "query": "x"\n}, "name": "search"}</tool_call>',
            [("search", '{\n  "query": "x"\n}')],
            None,
        ),
        ("Ridley Scott directed it.", [], "Ridley Scott directed it."),
        ("", [], ""),
        ("   \n", [], ""),
    ],
)
def test_well_formed_turns(
    text: str, expected_calls: list[tuple[str, str]], expected_content: str | None
) -> None:
    message = parse_tool_call_text(text)
    assert message["role"] == "assistant"
    assert calls_of(message) == expected_calls
    assert message["content"] == expected_content
    if not expected_calls:
        assert "tool_calls" not in message
    for call in message.get("tool_calls", []):
        json.loads(call["function"]["arguments"])  # well-formed input stays valid JSON


@pytest.mark.parametrize(
    ("text", "expected_name"),
    [
        ("<tool_call>search(query='a')</tool_call>", ""),
        ("<tool_call></tool_call>", ""),
        ("<tool_call>", ""),
        ('<tool_call>["search", {"query": "a"}]</tool_call>', ""),
        ('<tool_call>{"name": 7, "arguments": {}}</tool_call>', ""),
        ('<tool_call>{"arguments": {"query": "a"}}</tool_call>', ""),
        ('<tool_call>{"name": "fi\\"nish", "arguments": {"k": </tool_call>', 'fi"nish'),
        ("<tool_call>null</tool_call>", ""),
        ("<tool_call>\x00\x01 garbage \ufffd</tool_call>", ""),
    ],
)
def test_malformed_blocks_become_bad_calls_not_exceptions(text: str, expected_name: str) -> None:
    message = parse_tool_call_text(text)
    [call] = message["tool_calls"]
    assert call["function"]["name"] == expected_name
    assert call["id"] == "call_0" and call["type"] == "function"
    raw_body = text.removeprefix("<tool_call>").removesuffix("</tool_call>").strip()
    assert call["function"]["arguments"] == raw_body


@pytest.mark.parametrize(
    ("text", "expected_calls", "expected_content"),
    [
        (
            '<think>I should search.</think>\n<tool_call>{"name": "search", "arguments": '
            '{"query": "a"}}</tool_call>',
            ["search"],
            None,
        ),
        ("<think>\nhmm\n</think>\n\nThe answer is X.", [], "The answer is X."),
        ("I reasoned a lot.</think>The answer is X.", [], "The answer is X."),
        ("<think>unfinished reasoning that ran out of tokens", [], ""),
        (
            '<think>unclosed <tool_call>{"name": "finish", "arguments": {}}</tool_call>',
            ["finish"],
            None,
        ),
        ("<think></think><think>two</think>done", [], "done"),
    ],
)
def test_thinking_is_stripped(
    text: str, expected_calls: list[str], expected_content: str | None
) -> None:
    message = parse_tool_call_text(text)
    assert [name for name, _ in calls_of(message)] == expected_calls
    assert message["content"] == expected_content
    assert "think" not in json.dumps(message)


def test_strip_thinking_keeps_text_outside() -> None:
    assert strip_thinking("a<think>b</think>c") == "ac"


def test_ids_continue_from_the_conversation() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "x"}, {"id": "y"}]},
        {"role": "tool", "tool_call_id": "x", "content": "..."},
        {"role": "assistant", "content": "no calls"},
        {
            "role": "user",
            "content": "tool_calls is only counted on assistant turns",
            "tool_calls": [{"id": "z"}],
        },
    ]
    first = count_tool_calls(history)
    assert first == 2
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>' * 2
    message = parse_tool_call_text(text, first_call_index=first)
    assert [call["id"] for call in message["tool_calls"]] == ["call_2", "call_3"]


def test_outside_text_between_blocks_is_content() -> None:
    text = (
        'First <tool_call>{"name": "a", "arguments": {}}</tool_call> then '
        '<tool_call>{"name": "b", "arguments": {}}</tool_call> end'
    )
    message = parse_tool_call_text(text)
    assert message["content"] == "First  then  end"
    assert [name for name, _ in calls_of(message)] == ["a", "b"]


def test_ensure_call_ids_fills_only_missing_ids() -> None:
    history: list[dict[str, Any]] = [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}]},
    ]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"function": {"name": "x", "arguments": "{}"}},
            {"id": "kept", "type": "function", "function": {"name": "y", "arguments": "{}"}},
            {"id": "", "function": {"name": "z", "arguments": "{}"}},
        ],
    }
    filled = ensure_call_ids(message, history)
    assert [call["id"] for call in filled["tool_calls"]] == ["call_1", "kept", "call_3"]
    assert all(call["type"] == "function" for call in filled["tool_calls"])
    assert "id" not in message["tool_calls"][0]  # the input is not mutated
    text_only = {"role": "assistant", "content": "hi"}
    assert ensure_call_ids(text_only, history) == text_only
