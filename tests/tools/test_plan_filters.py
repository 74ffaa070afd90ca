"""The offline planner's filter anchors and written-name reading, on a hand-built library graph.

Ada Lovelace wrote Engines, which cites Seeing Machines (on Vision) and Cells (on Biology).
Alan Turing wrote Eyes (on Vision, cites Cells) and Images (on Vision). "Which Vision papers
does Ada Lovelace cite?" has one answer, Seeing Machines: Ada's chain (writes, then cites)
reaches {Seeing Machines, Cells}; Vision's own papers are {Seeing Machines, Eyes, Images}.
Walking `cites` from Vision's papers as well reaches {Engines, Cells}, and the intersection
of the two chains is the wrong paper, Cells.
"""

from __future__ import annotations

import asyncio

import pytest
from library_graph import QUESTION, build_library

from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot
from tools.listing_parse import ListedNode
from tools.plans.execute import PlanExecutor
from tools.plans.rule_planner import RulePlanner
from tools.schemas import GraphPlan


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return build_library(tmp_path_factory.mktemp("graphs") / "library")


def planned(snapshot: Snapshot, question: str) -> GraphPlan:
    return asyncio.run(OfflinePlanner(snapshot).plan(question)).plan


def test_the_hub_anchor_filters_the_target_instead_of_walking_the_chain(
    library: Snapshot,
) -> None:
    plan = planned(library, QUESTION)
    assert [(a.var, a.text, a.label) for a in plan.anchors] == [
        ("A1", "Ada Lovelace", "author"),
        ("A2", "Vision", "field"),
    ]
    # writes fans out 3 edges over 2 authors (1.5), has_topic 5 over 2 fields (2.5): Ada keeps
    # the chain through `cites`, Vision becomes the target's own neighbour
    hops = [(h.from_var, h.rel, h.to_var, h.to_label) for h in plan.hops]
    assert hops == [
        ("A1", None, "A1_via", "paper"),
        ("A1_via", "cites", "T", "paper"),
        ("A2", None, "T", "paper"),
    ]


def test_the_filtered_plan_executes_to_the_intersection(library: Snapshot) -> None:
    outcome = PlanExecutor(library).run(planned(library, QUESTION))
    # Ada -> Engines -> {p2, p3}, intersected with Vision's papers {p2, p4, p5}
    assert [c.node_id for c in outcome.ranking] == ["p2"]
    assert outcome.n_cand == 1 and outcome.ranking[0].anchor_score == pytest.approx(2.0)


def test_two_anchors_of_one_type_keep_both_chains(library: Snapshot) -> None:
    plan = planned(library, "Which papers cite work by both Ada Lovelace and Alan Turing?")
    assert {a.text for a in plan.anchors} == {"Ada Lovelace", "Alan Turing"}
    assert sorted((h.from_var, h.rel) for h in plan.hops) == [
        ("A1", None),
        ("A1_via", "cites"),
        ("A2", None),
        ("A2_via", "cites"),
    ]
    outcome = PlanExecutor(library).run(plan)
    assert [c.node_id for c in outcome.ranking] == ["p3"]  # cited from Engines and from Eyes


def test_a_capital_that_opens_a_clause_is_not_a_written_name(library: Snapshot) -> None:
    planner = RulePlanner(library.manifest)
    vision = ListedNode("f1", "Vision", "field", 5.0)
    # no node type nor relation named: only a written name makes the question relational
    assert not planner.relational("What covers the terms: Vision beyond sight?", [vision])
    assert not planner.relational("Vision beyond sight, what covers it?", [vision])
    assert planner.relational("What is covered under Vision beyond sight?", [vision])
    # a capital inside the name is a written name wherever it stands
    ada = ListedNode("a1", "Ada Lovelace", "author", 5.0)
    assert planner.relational("What covers the terms: Ada Lovelace and sight?", [ada])


def test_only_anchors_fanning_out_more_than_the_chain_are_checked(library: Snapshot) -> None:
    planner = RulePlanner(library.manifest)
    plan = planned(library, QUESTION)
    routes = {
        var: [h for h in plan.hops if h.from_var in (var, f"{var}_via")] for var in ("A1", "A2")
    }
    ada = ListedNode("a1", "Ada Lovelace", "author")
    # Vision: has_topic gives 5 edges over 2 fields (2.5 a field) > writes, 3 over 2 authors
    assert planner.hubs(routes, {"A1": ada, "A2": ListedNode("f1", "Vision", "field")}) == {"A2"}
    # a paper beside the chain: cites gives 6 edge ends over 5 papers (1.2) < 1.5: listed
    assert planner.hubs(routes, {"A1": ada, "A2": ListedNode("p4", "Eyes", "paper")}) == set()
