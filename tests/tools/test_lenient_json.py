"""Reading the almost-JSON small models write: what is repaired, what is still an error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tools.lenient_json import json_span, loads_lenient


@pytest.mark.parametrize(
    ("text", "value", "description"),
    [
        (  # the title's closing quote left unescaped, mid-string
            '{"query": "papers citing \\"Deep Learning" in 2019"}',
            {"query": 'papers citing "Deep Learning" in 2019'},
            "escaped 1 quote inside a string",
        ),
        (  # both quotes unescaped, the title ends the string
            '{"query": "papers citing "Deep Learning: A Review""}',
            {"query": 'papers citing "Deep Learning: A Review"'},
            "escaped 2 quotes inside a string",
        ),
        (  # a quote followed by a comma inside the string
            '{"query": "cited by "Foo", a survey", "k": 3}',
            {"query": 'cited by "Foo", a survey', "k": 3},
            "escaped 2 quotes inside a string",
        ),
        (  # cut off by the token limit
            '{"name": "select", "arguments": {"node_ids": ["P1", "P2',
            {"name": "select", "arguments": {"node_ids": ["P1", "P2"]}},
            "added '\"]}}' at the end",
        ),
        (  # one closing brace too many
            '{"name": "finish", "arguments": {}}}',
            {"name": "finish", "arguments": {}},
            "removed a surplus '}' at the end",
        ),
        (  # both: an unescaped quote, then cut off
            '{"query": "papers citing "Deep Le',
            {"query": 'papers citing "Deep Le'},
            "escaped 1 quote inside a string and added '\"}' at the end",
        ),
    ],
)
def test_repairs_what_small_models_get_wrong(text: str, value: Any, description: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    read = loads_lenient(text)
    assert read.value == value
    assert read.repaired
    assert read.describe() == description
    assert json.loads(read.text) == value


@pytest.mark.parametrize(
    "text",
    [
        '{"query": "x" "k": 3}',  # a missing comma is not a quote to escape
        "{'query': 'x'}",
        "not json at all",
        '{"query": ',
        '{"a": 1,}',
        "[1, 2] and more",
    ],
)
def test_other_mistakes_raise_the_original_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        loads_lenient(text)
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(text)
    assert (raised.value.msg, raised.value.pos) == (plain.value.msg, plain.value.pos)


def test_valid_json_is_read_as_is() -> None:
    text = '{"query": "a \\"quoted\\" title", "k": 5}'
    read = loads_lenient(text)
    assert read.value == json.loads(text)
    assert not read.repaired
    assert read.text == text
    assert read.describe() == ""


def test_source_index_maps_repaired_text_back_to_the_input() -> None:
    text = '{"a": {"query": "say "hi" now"}, "b": 1}'
    read = loads_lenient(text)
    assert read.value == {"a": {"query": 'say "hi" now'}, "b": 1}
    start = read.text.index('{"query"')
    end = read.text.index("}") + 1
    assert text[read.source_index(start) : read.source_index(end)] == '{"query": "say "hi" now"}'
    assert read.source_index(len(read.text)) == len(text)


def test_a_raw_line_break_inside_a_string_is_escaped_and_said() -> None:
    original = '{"cause": "listening and\nhearing", "effect": "tab\there"}'
    read = loads_lenient(original)
    assert read.value == {"cause": "listening and\nhearing", "effect": "tab\there"}
    assert read.controls == 2 and read.repaired
    assert read.describe() == "escaped 2 control characters inside a string"
    assert read.source_index(read.text.index("hearing")) == original.index("hearing")


def test_json_span_cuts_prose_and_a_closing_fence_but_keeps_a_cut_off_object() -> None:
    assert json_span('Sure:\n```json\n{"a": 1}\n```\nDone.') == '{"a": 1}'
    assert json_span('Here: {"a": [1, {"b": 2}') == '{"a": [1, {"b": 2}'
    assert json_span("  no object  ") == "no object"
