"""The rule policy is a Model like any other: it plans from the messages and never runs a tool."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.rules.episode import Episode
from agent.models.rules.policy import RulePolicy
from agent.prompt import render_system_prompt
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate
from tools.listing_parse import parse_listing, parse_names
from tools.observation import Observation
from tools.toolset import Toolset


@pytest.fixture(scope="module")
def products(tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("synth") / "products"
    generate("products", 5, out)
    questions = [json.loads(line) for line in (out / "qa" / "test.jsonl").open()]
    return Snapshot.open(out), questions


class CountingToolset(Toolset):
    """A Toolset that counts every call, whoever makes it."""

    calls = 0

    def call(self, name: str, arguments: Any, **kwargs: Any) -> Observation:
        type(self).calls += 1
        return super().call(name, arguments, **kwargs)


def test_every_toolset_call_is_a_recorded_tool_step(
    products: tuple[Snapshot, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot, questions = products
    monkeypatch.setattr("agent.factory.Toolset", CountingToolset)
    CountingToolset.calls = 0
    agent = make_agent(snapshot, AgentConfig(n_agents=3))
    by_family = {q["family"]: q for q in questions}
    recorded = 0
    for question in by_family.values():
        result = asyncio.run(agent.ask(question["query"]))
        for trajectory in result.trajectories:
            assert trajectory.stop_reason == "finish"
            recorded += sum(1 for step in trajectory.steps if step.kind == "tool")
    assert len(by_family) >= 3 and recorded > 3 * 3 * len(by_family)
    assert CountingToolset.calls == recorded


def test_listing_rows_are_the_ids_the_observation_shows(
    products: tuple[Snapshot, list[dict[str, Any]]],
) -> None:
    snapshot, questions = products
    toolset = Toolset(snapshot)
    types = list(snapshot.manifest.node_types)
    observations = [toolset.call("search", {"query": q["query"], "k": 20}) for q in questions[:20]]
    for hit in observations[0].node_ids[:5]:
        observations.append(toolset.call("neighbors", {"node_id": hit, "k": 30}))
        observations.append(toolset.call("neighbors", {"node_id": hit, "query": "red steel"}))
        observations.append(
            toolset.call("neighbors", {"node_id": hit, "node_types": ["product"], "k": 50})
        )
    observations.append(toolset.call("neighbors", {"node_id": "no-such-node"}))
    observations.append(toolset.call("search", {"query": "zzzqqq"}))
    assert sum(len(o.node_ids) for o in observations) > 200
    for observation in observations:
        rows = parse_listing(observation.text, types)
        listed = [row.node_id for row in rows]
        named = [row.node.node_id for row in parse_names(observation.text, types)]
        assert list(dict.fromkeys(listed + named)) == observation.node_ids, observation.text
        for row in rows:
            node = snapshot.internal_id(row.node_id)
            assert row.type == snapshot.type_name(node)
            assert row.name == " ".join(snapshot.name(node).split())[: len(row.name)]
        if observation.scores:
            assert [row.score for row in rows] == pytest.approx(
                observation.scores[: len(rows)], abs=0.006
            )


def test_the_budget_is_read_from_the_system_prompt(tiny_snapshot: Snapshot) -> None:
    tools = Toolset(tiny_snapshot).schemas()
    for budget in (3, 20):
        prompt = render_system_prompt(tiny_snapshot, tools, max_steps=budget)
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": "q"}]
        assert Episode.from_messages(messages).budget == budget


def test_without_a_relational_plan_the_answers_are_the_search_ranking(
    products: tuple[Snapshot, list[dict[str, Any]]],
) -> None:
    snapshot, questions = products
    agent = make_agent(snapshot, AgentConfig(n_agents=1))
    candidate = snapshot.manifest.candidate_types
    checked = 0
    # Generic words that name no node, no type and no relation of the graph.
    for query in ("durable lightweight everyday quality", questions[0]["query"] + " zzz"):
        (trajectory,) = asyncio.run(agent.ask(query)).trajectories
        calls = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for m in trajectory.messages
            if m["role"] == "assistant"
            for c in m.get("tool_calls", [])
        ]
        if any(name == "neighbors" for name, _ in calls):
            continue  # the question named an anchor and a type: a relational plan fits
        ids, _ = snapshot.index.search(query, 20, node_types=[snapshot.type_code(candidate[0])])
        assert trajectory.answers == [snapshot.external_id(int(i)) for i in ids]
        checked += 1
    assert checked >= 1


def test_the_policy_only_needs_the_messages(tiny_snapshot: Snapshot) -> None:
    policy = RulePolicy(tiny_snapshot.manifest)
    tools = Toolset(tiny_snapshot).schemas()
    question = "Which papers did Ada Lovelace write about sparse retrieval?"
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    reply = asyncio.run(policy.generate(messages, tools)).message
    assert [c["function"]["name"] for c in reply["tool_calls"]] == ["search"]
    # An observation written by hand, in the tools' format, drives the next turn.
    messages += [
        reply,
        {
            "role": "tool",
            "tool_call_id": reply["tool_calls"][0]["id"],
            "content": '1 result for "x":\n[a1] Ada Lovelace (author) score 9.00 | Researcher.',
        },
    ]
    second = asyncio.run(policy.generate(messages, tools)).message
    (call,) = second["tool_calls"]
    arguments = json.loads(call["function"]["arguments"])
    assert call["function"]["name"] == "neighbors" and arguments["node_id"] == "a1"
    assert arguments["node_types"] == ["paper"] and "sparse retrieval" in arguments["query"]


def test_a_question_without_user_message_is_a_model_error(tiny_snapshot: Snapshot) -> None:
    from agent.models.base import ModelError

    with pytest.raises(ModelError, match="user message"):
        asyncio.run(RulePolicy(tiny_snapshot.manifest).generate([], []))


def test_a_type_word_alone_does_not_narrow_the_search_ranking(tiny_snapshot: Snapshot) -> None:
    from agent.models.rules.plan import RulePlanner
    from tools.listing_parse import ListedNode

    manifest = tiny_snapshot.manifest.model_copy(update={"candidate_types": []})
    offered = {t["function"]["name"]: t["function"] for t in Toolset(tiny_snapshot).schemas()}
    plan = RulePlanner(manifest).episode("Which author studied analytical engines?", offered, 20)
    assert [c.name for c in next(plan).calls] == ["search"]
    hits = [
        ListedNode("i1", "Analytical Engine Institute", "institution", 5.0),
        ListedNode("a2", "Alan Turing", "author", 2.0),
    ]
    select = plan.send([hits])  # no anchor is named: the search ranking, every type, in order
    assert [(c.name, c.arguments) for c in select.calls] == [("select", {"node_ids": ["i1", "a2"]})]
