"""The ARK state machine end to end on a tiny snapshot with scripted models."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent.ark import ArkAgent
from agent.config import AgentConfig
from agent.factory import make_agent
from agent.graph import AFTER_FINISH, NO_TOOL_CALL_NUDGE
from agent.models.base import ContextLengthError, Message, ModelError, ModelReply
from agent.models.scripted import ScriptedModel, text_message, tool_call_message
from agent.trajectory import QuestionResult
from graphs.snapshot import Snapshot

QUESTION = "Which papers did Ada Lovelace write about sparse retrieval?"
SHOW_PAPERS = ("search", {"query": "retrieval proteins", "k": 10, "node_types": ["paper"]})
"""A call that shows every paper: select accepts only ids a tool showed in this trajectory."""


def make(snapshot: Snapshot, model: Any, **config: Any) -> ArkAgent:
    return make_agent(snapshot, AgentConfig(n_agents=1, **config), model=model)


def run(agent: ArkAgent) -> QuestionResult:
    return asyncio.run(agent.ask(QUESTION, question_id="q1"))


def test_search_select_finish(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel(
        [
            tool_call_message("search", {"query": "Ada Lovelace"}),
            tool_call_message("neighbors", {"node_id": "a1", "node_types": ["paper"]}),
            tool_call_message("select", {"node_ids": ["p4", "p1"]}),
            tool_call_message("finish", {}),
        ]
    )
    result = run(make(tiny_snapshot, model))
    (trajectory,) = result.trajectories
    assert trajectory.answers == ["p4", "p1"]
    assert result.fused == ["p4", "p1"]
    assert trajectory.stop_reason == "finish"
    roles = [m["role"] for m in trajectory.messages]
    assert roles == ["system", "user"] + ["assistant", "tool"] * 4
    for call_message, tool_message in zip(
        trajectory.messages[2::2], trajectory.messages[3::2], strict=True
    ):
        assert tool_message["tool_call_id"] == call_message["tool_calls"][0]["id"]
    assert "Ada Lovelace" in trajectory.messages[3]["content"]
    assert [s.kind for s in trajectory.steps] == ["model", "tool"] * 4
    assert trajectory.tool_call_counts() == {"search": 1, "neighbors": 1, "select": 1, "finish": 1}
    assert trajectory.question_id == "q1"
    assert trajectory.tools and trajectory.tools[0]["type"] == "function"


def test_step_limit_is_an_explicit_counter(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel([tool_call_message("search", {"query": "retrieval"})] * 10)
    result = run(make(tiny_snapshot, model, max_steps=3))
    (trajectory,) = result.trajectories
    assert trajectory.stop_reason == "max_steps"
    assert len(model.calls) == 3
    assert sum(1 for s in trajectory.steps if s.kind == "model") == 3


def test_turn_without_tool_call_gets_one_nudge_and_counts(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel(
        [
            text_message("Let me think about it."),
            tool_call_message(*SHOW_PAPERS, ("select", {"node_ids": ["p2"]}), ("finish", {})),
        ]
    )
    result = run(make(tiny_snapshot, model, max_steps=5))
    (trajectory,) = result.trajectories
    nudges = [m for m in trajectory.messages if m["content"] == NO_TOOL_CALL_NUDGE]
    assert len(nudges) == 1
    assert trajectory.messages[3] == {"role": "user", "content": NO_TOOL_CALL_NUDGE}
    assert sum(1 for s in trajectory.steps if s.kind == "model") == 2
    assert trajectory.answers == ["p2"]


def test_text_turns_until_the_step_limit(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel([text_message("hmm")] * 5)
    (trajectory,) = run(make(tiny_snapshot, model, max_steps=2)).trajectories
    assert trajectory.stop_reason == "max_steps"
    assert len(model.calls) == 2


def test_several_calls_per_turn_run_in_order(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel(
        [
            tool_call_message(
                *SHOW_PAPERS,
                ("select", {"node_ids": ["p1"]}),
                ("select", {"node_ids": ["p3", "p1"]}),
                ("finish", {}),
                ("select", {"node_ids": ["p2"]}),
            )
        ]
    )
    (trajectory,) = run(make(tiny_snapshot, model)).trajectories
    assert trajectory.answers == ["p1", "p3"]
    assert trajectory.stop_reason == "finish"
    tool_messages = [m for m in trajectory.messages if m["role"] == "tool"]
    assert len(tool_messages) == 5
    assert tool_messages[-1]["content"] == AFTER_FINISH


def test_bad_calls_become_observations_and_the_agent_recovers(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel(
        [
            tool_call_message(
                "serch",
                {"query": "x"},
                ("search", '{"query": "retrieval", '),
                ("neighbors", {"node_id": "nope"}),
                ("search", {"query": "retrieval", "k": "five"}),
                ("neighbors", {"node_id": "a1", "node_types": ["papr"]}),
                SHOW_PAPERS,
            ),
            tool_call_message("select", {"node_ids": ["p2", "zzz"]}, ("finish", {})),
        ]
    )
    (trajectory,) = run(make(tiny_snapshot, model)).trajectories
    tool_steps = [s for s in trajectory.steps if s.kind == "tool"]
    assert [s.error_kind is not None for s in tool_steps] == [True] * 5 + [False, True, False]
    assert trajectory.answers == ["p2"]
    assert trajectory.stop_reason == "finish"
    texts = [m["content"] for m in trajectory.messages if m["role"] == "tool"]
    assert "search" in texts[0]  # the unknown tool message names the valid tools
    assert "paper" in texts[4]  # the unknown type suggests the closest valid name
    assert "zzz" in texts[6]


def test_select_accepts_only_ids_shown_earlier_in_the_trajectory(
    tiny_snapshot: Snapshot,
) -> None:
    model = ScriptedModel(
        [
            tool_call_message("select", {"node_ids": ["p1"]}),
            tool_call_message("search", {"query": "sparse retrieval", "k": 1}),
            tool_call_message("select", {"node_ids": ["p4", "p3"]}),
            tool_call_message("neighbors", {"node_id": "p4", "edge_types": ["cites"]}),
            tool_call_message("select", {"node_ids": ["p2"]}, ("finish", {})),
        ]
    )
    (trajectory,) = run(make(tiny_snapshot, model)).trajectories
    texts = [m["content"] for m in trajectory.messages if m["role"] == "tool"]
    tool_steps = [s for s in trajectory.steps if s.kind == "tool"]
    # p1 exists but nothing showed it yet: rejected, and the model is told how to recover
    assert tool_steps[0].error_kind == "not_shown"
    assert texts[0] == (
        "error: node id 'p1' was not shown by a tool in this run; select only ids that a tool "
        "listed (a mistyped id may name another node). Nothing has been shown yet. "
        "To select another node, find it with search first."
    )
    # the search showed p4 only: p4 is accepted, p3 rejected with the selectable ids listed
    assert texts[2].startswith("selected 1:\n[p4] Sparse retrieval revisited (paper)")
    assert "error: node id 'p3' was not shown" in texts[2]
    assert "Selectable, latest first: p4." in texts[2]
    assert tool_steps[2].error_kind == "not_shown"
    # neighbors showed p2
    assert tool_steps[4].error_kind is None
    assert trajectory.answers == ["p4", "p2"]


def test_select_of_an_unknown_and_an_unshown_id_names_both(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel(
        [tool_call_message("select", {"node_ids": ["zzz", "p1"]}, ("finish", {}))]
    )
    (trajectory,) = run(make(tiny_snapshot, model)).trajectories
    text = trajectory.messages[3]["content"]
    assert text.splitlines()[0].startswith("error: unknown node id 'zzz'")
    assert text.splitlines()[1].startswith("error: node id 'p1' was not shown")
    assert trajectory.steps[1].error_kind == "unknown_node"
    assert trajectory.answers == []


def test_model_failure_is_recorded_not_raised(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel([tool_call_message("search", {"query": "retrieval"})])
    result = run(make(tiny_snapshot, model))
    (trajectory,) = result.trajectories
    assert trajectory.stop_reason == "error"
    assert "ran out of turns" in (trajectory.error or "")
    assert trajectory.steps[-1].error_kind == "model_error"
    assert result.failed
    assert result.errors == [trajectory.error]


def context_full(messages: list[Message]) -> Message:
    """A scripted turn: the conversation no longer fits the model's context window."""
    raise ContextLengthError("maximum context length is 2048 tokens; raise --n_ctx")


def test_a_conversation_that_outgrows_the_context_stops_with_its_answers(
    tiny_snapshot: Snapshot,
) -> None:
    model = ScriptedModel(
        [tool_call_message(*SHOW_PAPERS, ("select", {"node_ids": ["p4"]})), context_full]
    )
    result = run(make(tiny_snapshot, model))
    (trajectory,) = result.trajectories
    assert trajectory.stop_reason == "context_full"
    assert trajectory.answers == ["p4"] and result.fused == ["p4"]
    assert "2048" in (trajectory.error or "")
    assert trajectory.steps[-1].error_kind == "context_length"
    assert not result.failed  # scored with its answers, not retried by --resume


def test_a_first_turn_that_does_not_fit_is_a_failure(tiny_snapshot: Snapshot) -> None:
    result = run(make(tiny_snapshot, ScriptedModel([context_full])))
    (trajectory,) = result.trajectories
    assert trajectory.stop_reason == "error"
    assert result.failed


class ConversationModel:
    """Chooses its turn from the conversation, so several agents can share it."""

    name = "conversation"

    def __init__(self, together: int = 1, fail_agent_seed: int | None = None) -> None:
        # Every agent's first turn waits until `together` agents are inside the model at once:
        # sequential agents would never get there (the wait times out and the test fails).
        self.barrier = asyncio.Barrier(together)
        self.fail_agent_seed = fail_agent_seed

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        if seed == self.fail_agent_seed:
            raise ModelError("endpoint down")
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn == 0:
            await asyncio.wait_for(self.barrier.wait(), timeout=60)
        picks = [["p1", "p2"], ["p2", "p4"], ["p4"]][(seed or 0) % 3]
        if turn == 0:
            return ModelReply(tool_call_message(*SHOW_PAPERS, ("select", {"node_ids": picks})))
        return ModelReply(tool_call_message("finish", {}))


def test_agents_run_concurrently_and_votes_fuse(tiny_snapshot: Snapshot) -> None:
    agent = make_agent(
        tiny_snapshot, AgentConfig(n_agents=3, seed=0), model=ConversationModel(together=3)
    )
    result = asyncio.run(agent.ask(QUESTION))
    assert [t.answers for t in result.trajectories] == [["p1", "p2"], ["p2", "p4"], ["p4"]]
    assert result.fused == ["p2", "p4", "p1"]
    assert result.votes == {"p1": 1, "p2": 2, "p4": 2}
    # the model wrote no call ids: the state machine numbers them and pairs tool messages
    messages = result.trajectories[0].messages
    tool_call_ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert tool_call_ids == ["call_0", "call_1", "call_2"]
    assert messages[2]["tool_calls"][0]["id"] == "call_0"


def test_one_failing_agent_leaves_the_others(tiny_snapshot: Snapshot) -> None:
    agent = make_agent(
        tiny_snapshot, AgentConfig(n_agents=3), model=ConversationModel(fail_agent_seed=1)
    )
    result = asyncio.run(agent.ask(QUESTION))
    assert [t.stop_reason for t in result.trajectories] == ["finish", "error", "finish"]
    assert not result.failed
    # One vote each; p4 is first in agent 3's list, so it ties p1 on position and beats p2.
    assert result.fused == ["p1", "p4", "p2"]


def test_trajectory_json_lines_load_with_datasets(tiny_snapshot: Snapshot, tmp_path) -> None:
    datasets = pytest.importorskip("datasets")
    agent = make_agent(tiny_snapshot, AgentConfig(n_agents=2))
    result = asyncio.run(agent.ask(QUESTION, question_id="q7"))
    path = tmp_path / "trajectories.jsonl"
    with path.open("w") as out:
        for trajectory in result.trajectories:
            out.write(trajectory.model_dump_json() + "\n")
    loaded = datasets.load_dataset("json", data_files=str(path), split="train")
    assert loaded.num_rows == 2
    assert loaded[0]["question_id"] == "q7"
    assert loaded[0]["answers"] == result.trajectories[0].answers
    first_call = loaded[0]["messages"][2]["tool_calls"][0]["function"]
    assert json.loads(first_call["arguments"])["query"] == QUESTION


def test_a_reply_is_bounded_in_the_conversation_and_the_record(tiny_snapshot: Snapshot) -> None:
    from agent.reply_limit import MAX_REPLY_CHARS

    rambling = "word " * 400_000  # 2 MB of text beside the call
    model = ScriptedModel(
        [
            tool_call_message("search", {"query": "Ada Lovelace"}, content=rambling),
            tool_call_message("select", {"node_ids": ["a1"]}),
            tool_call_message("finish", {}),
        ]
    )
    (trajectory,) = run(make(tiny_snapshot, model)).trajectories
    kept = trajectory.messages[2]["content"]
    assert kept.startswith("word word") and len(kept) < MAX_REPLY_CHARS + 200
    assert "[cut by ARK: the reply held 2,000,000 characters; the first 16,000 are kept]" in kept
    assert trajectory.steps[0].truncated_chars == 2_000_000 - MAX_REPLY_CHARS
    assert trajectory.steps[2].truncated_chars is None
    # what the model is sent back next turn is the bounded reply, not the 2 MB one
    resent = model.calls[1].messages[2]["content"]
    assert resent == kept
    assert trajectory.answers == ["a1"]
