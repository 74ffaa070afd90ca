"""ScriptedModel replays turns, numbers call ids, records what it received."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent.models.base import Model, ModelError, ModelReply
from agent.models.scripted import (
    ScriptedModel,
    text_message,
    tool_call,
    tool_call_message,
)

TOOLS: list[dict[str, Any]] = [{"type": "function", "function": {"name": "search"}}]


def run(model: ScriptedModel, messages: list[dict[str, Any]], **kw: Any) -> ModelReply:
    return asyncio.run(model.generate(messages, TOOLS, **kw))


def test_replays_turns_in_order_and_records_calls() -> None:
    model = ScriptedModel(
        [tool_call_message("search", {"query": "alien"}), text_message("done")], name="s"
    )
    assert isinstance(model, Model) and model.name == "s"
    question = [{"role": "user", "content": "q"}]
    first = run(model, question, temperature=0.7, seed=3)
    assert first.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "alien"}'},
                "id": "call_0",
            }
        ],
    }
    history = [*question, first.message, {"role": "tool", "tool_call_id": "call_0", "content": "r"}]
    second = run(model, history)
    assert second.message == {"role": "assistant", "content": "done"}
    assert [call.messages for call in model.calls] == [question, history]
    assert (model.calls[0].temperature, model.calls[0].seed) == (0.7, 3)
    assert model.calls[1].tools == TOOLS and model.remaining == 0


def test_exhausted_script_raises_model_error() -> None:
    model = ScriptedModel([text_message("only one")])
    run(model, [])
    with pytest.raises(ModelError, match="ran out of turns after 1"):
        run(model, [])


def test_several_calls_per_turn_get_ids_after_the_history() -> None:
    turn = tool_call_message("search", {"query": "a"}, ("neighbors", {"node_id": "n1"}))
    history = [{"role": "assistant", "content": None, "tool_calls": [tool_call("x", {}, id="a")]}]
    reply = run(ScriptedModel([turn, turn]), history)
    assert [call["id"] for call in reply.message["tool_calls"]] == ["call_1", "call_2"]
    assert [call["function"]["name"] for call in reply.message["tool_calls"]] == [
        "search",
        "neighbors",
    ]


def test_explicit_ids_and_raw_malformed_arguments_are_kept() -> None:
    turn = {
        "role": "assistant",
        "content": "",
        "tool_calls": [tool_call("search", '{"query": ', id="mine")],
    }
    reply = run(ScriptedModel([turn]), [])
    [call] = reply.message["tool_calls"]
    assert call["id"] == "mine" and call["function"]["arguments"] == '{"query": '


def test_callable_turns_see_the_messages_and_replies_keep_usage() -> None:
    def echo(messages: list[dict[str, Any]]) -> dict[str, Any]:
        return text_message(f"saw {len(messages)}")

    usage = {"prompt_tokens": 5, "completion_tokens": 2}
    model = ScriptedModel([echo, ModelReply(text_message("r"), usage), lambda m: ModelReply({})])
    assert run(model, [{"role": "user", "content": "a"}] * 3).message["content"] == "saw 3"
    assert run(model, []).usage == usage
    assert run(model, []).message == {"role": "assistant", "content": ""}


def test_script_entries_are_not_mutated_by_replay_or_callers() -> None:
    turn = tool_call_message("finish", {})
    model = ScriptedModel([turn, turn])
    reply = run(model, [])
    reply.message["tool_calls"][0]["function"]["name"] = "tampered"
    assert "id" not in turn["tool_calls"][0]
    second = run(model, [])
    assert second.message["tool_calls"][0]["function"]["name"] == "finish"


def test_delay_lets_concurrent_callers_overlap() -> None:
    model = ScriptedModel([text_message(str(i)) for i in range(4)], delay_s=0.05)
    in_flight = peak = 0

    async def counted() -> ModelReply:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await model.generate([], TOOLS)
        finally:
            in_flight -= 1

    async def four() -> list[ModelReply]:
        return list(await asyncio.gather(*(counted() for _ in range(4))))

    replies = asyncio.run(four())
    assert sorted(reply.message["content"] for reply in replies) == ["0", "1", "2", "3"]
    # A blocking delay would let only one caller in at a time; an awaited one lets all four in.
    assert peak == 4
