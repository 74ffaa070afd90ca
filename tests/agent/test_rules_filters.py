"""The rule agent checks a filter anchor from the chain's side; its ranking and search fusion.

The library graph: Ada Lovelace wrote Engines, which cites Seeing Machines (on Vision) and
Cells (on Biology); Alan Turing wrote Eyes (on Vision, cites Cells) and Images (on Vision).
"Which Vision papers does Ada Lovelace cite?" has one answer, Seeing Machines (p2).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from library_graph import QUESTION, build_library

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.rules.expand import Reached
from agent.models.rules.plan import RulePlanner
from agent.models.rules.rank_fusion import fuse_ids
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.listing_parse import ListedNode
from tools.plans.rule_planner import RulePlan
from tools.schemas import GraphPlan, PlanAnchor, PlanTarget


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return build_library(tmp_path_factory.mktemp("graphs") / "library")


def tool_calls(messages: list[dict[str, Any]]) -> list[list[tuple[str, dict[str, Any]]]]:
    """Each assistant turn's calls as (tool name, arguments)."""
    return [
        [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m["tool_calls"]]
        for m in messages
        if m["role"] == "assistant" and m.get("tool_calls")
    ]


def test_a_filter_anchor_is_checked_from_the_nodes_the_chain_reached(library: Snapshot) -> None:
    agent = make_agent(library, AgentConfig(n_agents=1))
    (trajectory,) = asyncio.run(agent.ask(QUESTION)).trajectories
    turns = tool_calls(trajectory.messages)
    # search; Ada's papers; what they cite; then each paper reached lists its fields
    assert turns[1] == [("neighbors", {"node_id": "a1", "node_types": ["paper"], "k": 20})]
    assert [args["node_id"] for _, args in turns[2]] == ["p1"]
    checks = turns[3]
    assert {args["node_id"] for _, args in checks} == {"p2", "p3"}
    assert all(args["node_types"] == ["field"] and args["query"] == "Vision" for _, args in checks)
    # Vision's own papers are never expanded: no call starts from the hub
    assert all(args.get("node_id") != "f1" for turn in turns for _, args in turn)
    assert not trajectory.tool_errors
    assert trajectory.answers[0] == "p2"


def test_the_papers_toolset_gets_no_k_it_does_not_offer(library: Snapshot) -> None:
    config = AgentConfig(n_agents=1, tools=ToolConfig(toolset="paper"))
    (trajectory,) = asyncio.run(make_agent(library, config).ask(QUESTION)).trajectories
    calls = [call for turn in tool_calls(trajectory.messages) for call in turn]
    neighbours = [args for name, args in calls if name == "neighbors"]
    assert neighbours and all("k" not in args for args in neighbours)
    assert not trajectory.tool_errors and trajectory.answers[0] == "p2"


def test_matched_nodes_rank_before_fillers_reached_more_often() -> None:
    reached = Reached()
    filler = ListedNode("x", "X", "paper", 0.0)  # listed only to fill a ranked listing
    reached.add("a", [filler, ListedNode("y", "Y", "paper", 2.0)])
    reached.add("a", [filler])
    assert reached.ranking() == ["y", "x"]
    reached.confirm("b", "x")  # reached by a second anchor: the intersection comes first
    assert reached.ranking() == ["x", "y"]


def test_search_hits_above_every_anchor_are_fused_with_the_graph_ranking() -> None:
    anchor = ListedNode("a", "Anchor", "category", 20.0)
    hits = [
        ListedNode("n1", "Better", "paper", 40.0),
        ListedNode("c1", "Other type", "category", 30.0),
        anchor,
        ListedNode("n2", "Worse", "paper", 10.0),
    ]
    plan = GraphPlan(
        anchors=[PlanAnchor(var="A1", text="Anchor", label="category")],
        hops=[{"from": "A1", "to_var": "T", "to_label": "paper"}],  # type: ignore[list-item]
        target=PlanTarget(labels=["paper"]),
    )
    closer = RulePlanner.closer_than_anchors(hits, RulePlan(plan, {"A1": anchor}, True))
    assert closer == ["n1"]
    # reciprocal ranks: r1 and n1 tie at 1/61 (first seen first), then r2 (1/62), r3 (1/63)
    assert fuse_ids([["r1", "r2", "r3"], closer]) == ["r1", "n1", "r2", "r3"]
