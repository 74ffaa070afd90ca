"""The live trace and the answer table a person reads after `ark ask` and in the REPL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from rich.console import Console

from agent.config import AgentConfig
from agent.events import AgentEvent
from agent.factory import make_agent
from agent.graph import NO_TOOL_CALL_NUDGE
from agent.models.base import Message, ModelReply
from agent.models.scripted import ScriptedModel, text_message, tool_call_message
from agent.trajectory import QuestionResult
from agent.vote import chosen_and_tail, chosen_answers, identical_agents, select_reasons
from cli.output.render import TracePrinter, answer_table, result_summary
from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

LONG_ID = "film-the-good-the-bad-and-the-weird-2008"
FILMS = [
    ("film-parasite", "film", "Parasite", "A poor family schemes against a wealthy household."),
    ("film-okja", "film", "Okja", "A girl and a giant super-pig."),
    (LONG_ID, "film", "The Good, the Bad, the Weird", "A western set in 1930s Manchuria."),
    ("person-bong", "person", "Bong Joon-ho", "South Korean film director."),
    ("person-kim", "person", "Kim Jee-woon", "South Korean film director."),
]
LINKS = [
    ("person-bong", "film-parasite", "directed"),
    ("person-bong", "film-okja", "directed"),
    ("person-kim", LONG_ID, "directed"),
]


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out: Path = tmp_path_factory.mktemp("graphs") / "films"
    nodes = pa.table(
        {key: [row[i] for row in FILMS] for i, key in enumerate(("id", "type", "name", "text"))}
    )
    edges = pa.table(
        {key: [row[i] for row in LINKS] for i, key in enumerate(("src", "dst", "relation"))}
    )
    build_snapshot(nodes, edges, out, name="films")
    return Snapshot.open(out)


def ask(
    snapshot: Snapshot, backend: object, question: str = "Who directed Parasite?", **config: object
) -> tuple[QuestionResult, list[AgentEvent], str]:
    """Run the agents with a recording trace printer; the result, the events, the trace text."""
    console = Console(record=True, width=100, force_terminal=False)
    printer = TracePrinter(console)
    events: list[AgentEvent] = []

    def on_event(event: AgentEvent) -> None:
        events.append(event)
        printer(event)

    agent = make_agent(snapshot, AgentConfig(**config), model=backend)  # type: ignore[arg-type]
    result = asyncio.run(agent.ask(question, on_event=on_event))
    return result, events, console.export_text()


def printed(renderable: object, width: int = 80) -> str:
    console = Console(record=True, width=width, force_terminal=False)
    console.print(renderable)
    return console.export_text()


def test_a_model_that_never_calls_a_tool_shows_what_it_said_and_the_nudges(
    films: Snapshot,
) -> None:
    turns = [text_message(f"I believe the answer is Bong Joon-ho ({n}).") for n in (1, 2, 3)]
    result, events, trace = ask(films, ScriptedModel(turns), n_agents=1, max_steps=3)

    assert result.trajectories[0].stop_reason == "max_steps"
    said = [e for e in events if e.kind == "model"]
    assert [e.tool_calls for e in said] == [0, 0, 0] and all(e.without_tool_call for e in said)
    assert [e.step for e in events if e.kind == "nudge"] == [1, 2]  # none after the last turn
    for n in (1, 2, 3):
        assert f"turn {n}, no tool call: I believe the answer is Bong Joon-ho ({n})." in trace
    assert trace.count(f"nudged: {NO_TOOL_CALL_NUDGE[:40]}") == 2
    assert "stopped: max_steps after 3 turns, 3 of them without a tool call" in trace
    table = printed(answer_table(result, films))
    assert table.strip() == "No answers: no agent selected a node (stopped: max_steps)."


def test_an_empty_reply_is_named_and_a_tool_turn_shows_its_text(films: Snapshot) -> None:
    turns = [
        text_message(""),
        tool_call_message("search", {"query": "Parasite"}, content="Let me search."),
        tool_call_message("finish", {}),
    ]
    _, _, trace = ask(films, ScriptedModel(turns), n_agents=1, max_steps=5)
    assert "turn 1, no tool call: (an empty reply)" in trace
    assert "Let me search." in trace
    assert "stopped: finish after 3 turns, 1 of them without a tool call" in trace


def test_identical_agents_are_traced_once_and_shown_without_votes(films: Snapshot) -> None:
    result, _, trace = ask(films, None, model="rules", n_agents=3)

    assert identical_agents([t.answers for t in result.trajectories])
    assert "[agent 1] search" in trace
    assert "[agent 2] search" not in trace and "[agent 3] search" not in trace
    assert "[agent 2] same steps as the agent shown so far; not repeated" in trace
    table = printed(answer_table(result, films), width=120)
    assert "3 agents with identical answer lists: votes left out" in table
    assert "the rule policy is deterministic" in table
    assert "votes" not in table.splitlines()[2] and "3/3" not in table
    # the rule policy gives the path that reached an answer as its reason; `directed`, named
    # whole, makes the answers people: no film fills the list
    assert "why: Parasite <-[directed]- Bong Joon-ho" in table
    assert "Answers (1)" in table and "film-okja" not in table


def test_agents_that_differ_are_traced_from_where_they_depart(films: Snapshot) -> None:
    def script(target: str) -> list:
        return [
            tool_call_message("search", {"query": "director"}),
            tool_call_message("select", {"node_ids": [target]}),
            tool_call_message("finish", {}),
        ]

    class TwoMinds:
        name = "two-minds"

        def __init__(self) -> None:
            self.models = {
                0: ScriptedModel(script("person-bong")),
                1: ScriptedModel(script("person-kim")),
            }

        async def generate(
            self,
            messages: list[Message],
            tools: list[dict[str, Any]],
            *,
            temperature: float | None = None,
            seed: int | None = None,
        ) -> ModelReply:
            return await self.models[(seed or 0) % 2].generate(messages, tools)

    result, _, trace = ask(films, TwoMinds(), n_agents=2, seed=0)
    assert "[agent 2] same steps as the agent shown so far; not repeated" in trace
    assert "[agent 2] departs from the shared path here:" in trace
    assert '[agent 2] select {"node_ids": ["person-kim"]}' in trace
    table = printed(answer_table(result, films), width=120)
    assert "1/2" in table and "votes" in table


def test_ids_are_never_wrapped_even_in_a_narrow_terminal(films: Snapshot) -> None:
    turns = [
        tool_call_message("search", {"query": "western Manchuria"}),
        tool_call_message("select", {"node_ids": [LONG_ID]}),
        tool_call_message("finish", {}),
    ]
    result, _, _ = ask(films, ScriptedModel(turns), n_agents=1)
    table = printed(answer_table(result, films), width=60)
    assert LONG_ID in table  # whole, on one line: it can be copied into `ark node`


def test_answers_chosen_with_a_reason_are_shown_apart_from_the_tail(films: Snapshot) -> None:
    turns = [
        tool_call_message("search", {"query": "Parasite Okja director"}),
        tool_call_message(
            "select",
            {"node_ids": ["person-bong"], "reasons": {"person-bong": "directed Parasite"}},
            ("select", {"node_ids": ["film-okja", "film-parasite"]}),
        ),
        tool_call_message("finish", {}),
    ]
    result, _, _ = ask(films, ScriptedModel(turns), n_agents=1)
    trajectory = result.trajectories[0]
    assert select_reasons(trajectory.messages) == {"person-bong": "directed Parasite"}
    assert chosen_answers(trajectory.messages, trajectory.answers) == ["person-bong"]
    chosen, tail = chosen_and_tail(result.fused, [["person-bong"]])
    assert chosen == ["person-bong"] and set(tail) == {"film-okja", "film-parasite"}
    text = printed(answer_table(result, films), width=120)
    assert "person-bong" in text and "why: directed Parasite" in text
    assert "film-okja" not in text
    assert "+ 2 more answers only filling the list to 20 for Recall@20" in text


def test_an_agent_that_gives_no_reasons_chose_every_answer() -> None:
    messages = [
        {
            "role": "assistant",
            "tool_calls": [{"function": {"name": "select", "arguments": "{bad"}}],
        },
        {
            "role": "assistant",
            "tool_calls": [{"function": {"name": "select", "arguments": '{"node_ids": ["a"]}'}}],
        },
    ]
    assert chosen_answers(messages, ["a", "b"]) == ["a", "b"]
    assert not identical_agents([["a"]]) and identical_agents([["a", "b"], ["a", "b"]])


def test_the_summary_counts_model_turns_with_plurals(films: Snapshot) -> None:
    turns = [tool_call_message("search", {"query": "Okja"}), tool_call_message("finish", {})]
    result, _, _ = ask(films, ScriptedModel(turns), n_agents=1, max_steps=5)
    summary = result_summary(result)
    assert summary.startswith("1 agent (finish), 2 model turns, 0 rejected tool calls")
    rules, _, _ = ask(films, None, model="rules", n_agents=2, max_steps=5)
    assert "2 agents (finish ×2)" in result_summary(rules) and "model turns each" in result_summary(
        rules
    )


def test_the_demo_transcript_shows_text_turns_and_nudges(films: Snapshot) -> None:
    from cli.demo import trajectory_lines

    turns = [text_message("Parasite was directed by Bong Joon-ho."), text_message("")]
    result, _, _ = ask(films, ScriptedModel(turns), n_agents=1, max_steps=2)
    lines = trajectory_lines(result.trajectories[0])
    assert lines == [
        "said (no tool call): Parasite was directed by Bong Joon-ho.",
        f"nudged: {NO_TOOL_CALL_NUDGE}",
        "said (no tool call): (an empty reply)",
        "stopped: max_steps; answers: 0",
    ]


def test_different_reasons_get_a_column(films: Snapshot) -> None:
    reasons = {"person-bong": "directed Parasite", "person-kim": "directed a western"}
    turns = [
        tool_call_message("search", {"query": "director"}),
        tool_call_message("select", {"node_ids": list(reasons), "reasons": reasons}),
        tool_call_message("finish", {}),
    ]
    result, _, _ = ask(films, ScriptedModel(turns), n_agents=1)
    text = printed(answer_table(result, films), width=120)
    assert "reason" in text.splitlines()[2] and "why" not in text
    assert "directed Parasite" in text and "directed a western" in text


def test_a_narrow_terminal_gets_whole_entries_with_each_reason_on_its_own_line(
    films: Snapshot,
) -> None:
    reasons = {
        "person-bong": "Parasite <-[directed]- Bong Joon-ho, who also directed Okja and Mother",
        "film-okja": "Bong Joon-ho -[directed]-> Okja, a reason different and just as long",
    }
    turns = [
        tool_call_message("search", {"query": "Parasite Okja director"}),
        tool_call_message("select", {"node_ids": list(reasons), "reasons": reasons}),
        tool_call_message("finish", {}),
    ]
    result, _, _ = ask(films, ScriptedModel(turns), n_agents=1)
    narrow = printed(answer_table(result, films), width=80)
    assert "┃" not in narrow and "…" not in narrow  # entries, not a collapsed table
    assert "  1. [person-bong] Bong Joon-ho (person)" in narrow
    for reason in reasons.values():
        assert f"why: {reason}" in " ".join(narrow.split())
    wide = printed(answer_table(result, films), width=160)
    assert "┃ #" in wide and "reason" in wide
