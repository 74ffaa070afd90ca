"""Structured output through the one door: enforced where the endpoint takes a schema."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agent.models.openai.model import OpenAIChatModel
from agent.models.scripted import ScriptedModel, text_message
from agent.models.structured import (
    StructuredMode,
    StructuredStats,
    ask_structured,
    strip_thinking,
)
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, served_model, text_reply

SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": ["forward", "backward"]}},
    "required": ["label"],
}
ASK = [{"role": "user", "content": "Label it; reply with JSON."}]


def _model(server: FakeOpenAIServer) -> OpenAIChatModel:
    return served_model(server, retries=1)


def _ask(model: Any, stats: StructuredStats, mode: StructuredMode = StructuredMode.auto) -> Any:
    return asyncio.run(ask_structured(model, ASK, SCHEMA, name="label", mode=mode, stats=stats))


def test_a_server_that_honours_the_schema_gets_it_and_the_reply_is_read() -> None:
    with FakeOpenAIServer([text_reply('{"label": "forward"}')]) as server:
        stats = StructuredStats()
        reply = _ask(_model(server), stats)
        sent = server.requests[0].body
        assert server.rejected == []
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == SCHEMA
    assert sent["max_tokens"] == 1024  # the adapter's own cap (for answers)
    assert reply.value == {"label": "forward"} and reply.mode is StructuredMode.schema
    assert stats.by_mode == {"schema": 1} and stats.failed == 0


def test_a_server_that_ignores_the_schema_is_repaired_or_counted() -> None:
    replies = [text_reply('Sure! {"label": "backward"'), text_reply("I cannot say.")]
    with FakeOpenAIServer(replies) as server:
        stats = StructuredStats()
        model = _model(server)
        first, second = _ask(model, stats), _ask(model, stats)
    assert first.value == {"label": "backward"} and first.repaired
    assert second.value is None and "no JSON object" in (second.error or "")
    assert stats.repaired == 1 and stats.failed == 1 and stats.by_mode == {"schema": 2}


def test_an_endpoint_that_rejects_the_parameter_is_asked_without_it_and_that_is_recorded() -> None:
    rejection = Fault.http_error(400, "Unsupported parameter: 'response_format' is not supported")
    with FakeOpenAIServer([rejection, text_reply('{"label": "forward"}')]) as server:
        stats = StructuredStats()
        model = _model(server)
        reply = _ask(model, stats)
        bodies = [r.body for r in server.requests]
    assert "response_format" in bodies[0] and "response_format" not in bodies[1]
    assert reply.value == {"label": "forward"} and reply.mode is StructuredMode.prompt
    assert stats.rejected_schema == 1 and not model.takes_response_format()


def test_reasoning_before_the_json_is_stripped_and_only_reasoning_is_asked_again() -> None:
    model = ScriptedModel(
        [
            text_message('<think>it follows</think>{"label": "forward"}'),
            text_message("<think>hmm, let me think about this for a long time"),
            text_message('{"label": "backward"}'),
            text_message("<think>still thinking</think>"),
            text_message("<think>and more</think>"),
        ]
    )
    stats = StructuredStats()
    first = _ask(model, stats)
    assert first.value == {"label": "forward"} and first.thinking
    assert first.mode is StructuredMode.prompt  # no response_format door in-process
    second = _ask(model, stats)
    assert second.value == {"label": "backward"} and stats.retried == 1
    third = _ask(model, stats)
    assert third.value is None and third.error == "the reply held only reasoning"
    assert stats.failed == 1 and stats.retried == 2


def test_strip_thinking_keeps_the_answer() -> None:
    assert strip_thinking('<THINKING>x</THINKING> {"a": 1}') == ('{"a": 1}', True)
    assert strip_thinking('{"a": 1}') == ('{"a": 1}', False)


def test_the_schema_mode_is_recorded_in_json_form() -> None:
    stats = StructuredStats(asked=2, by_mode={"schema": 2})
    assert json.loads(json.dumps(stats.to_record()))["by_mode"] == {"schema": 2}


def test_the_extractor_asks_for_reasoning_triples_under_the_enforced_schema() -> None:
    from agent.extract.llm import LLMExtractConfig, LLMExtractor
    from agent.extract.schemas import reasoning_schema

    triples = {"triples": [{"cause": "snow", "relation": "closed", "effect": "campus",
                            "sentence": 1}]}  # fmt: skip
    with FakeOpenAIServer([text_reply(json.dumps(triples))]) as server:
        config = LLMExtractConfig(structured=StructuredMode.auto, max_tokens=777)
        extractor = LLMExtractor(_model(server), config, schema=reasoning_schema())
        [extraction] = extractor.extract(["Heavy snow closed the campus."])
        sent = server.requests[0].body
    assert "tools" not in sent and sent["response_format"]["json_schema"]["name"]
    assert sent["max_tokens"] == 777  # a JSON document's own cap, not the answers' one
    assert [(t.subject, t.relation, t.object) for t in extraction.triples] == [  # type: ignore[union-attr]
        ("snow", "closed", "campus")
    ]
    assert extractor.structured.by_mode == {"schema": 1} and extractor.name == "llm-reasoning"


def test_a_server_taking_only_the_json_object_form_gets_the_schema_that_way() -> None:
    detail = "validation error: response_format.type Input should be 'text' or 'json_object'"
    replies = [Fault.http_error(500, detail), text_reply('{"label": "forward"}')]
    with FakeOpenAIServer([*replies, text_reply('{"label": "backward"}')]) as server:
        stats = StructuredStats()
        model = _model(server)
        first, second = _ask(model, stats), _ask(model, stats)
        bodies = [r.body for r in server.requests]
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert bodies[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert bodies[2]["response_format"]["type"] == "json_object"  # remembered
    assert (first.value, second.value) == ({"label": "forward"}, {"label": "backward"})
    assert stats.by_mode == {"schema": 2} and model.takes_response_format()
