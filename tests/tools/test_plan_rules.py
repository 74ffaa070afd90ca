"""The offline planner on each question family of a generated graph, executed on the snapshot."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate
from tools.plans.execute import PlanExecutor
from tools.plans.model import TARGET_VAR, GraphPlan


@pytest.fixture(scope="module")
def academic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, dict[str, list[dict]]]:
    out = tmp_path_factory.mktemp("synth") / "academic"
    generate("academic", 3, out)
    by_family: dict[str, list[dict]] = {}
    for line in (out / "qa" / "test.jsonl").open():
        row = json.loads(line)
        by_family.setdefault(row["family"], []).append(row)
    return Snapshot.open(out), by_family


def planned(snapshot: Snapshot, question: str) -> GraphPlan:
    return asyncio.run(OfflinePlanner(snapshot).plan(question)).plan


def hit_at_1(snapshot: Snapshot, rows: list[dict]) -> float:
    executor = PlanExecutor(snapshot)
    hits = []
    for row in rows:
        ranking = executor.run(planned(snapshot, row["query"])).ranking
        hits.append(bool(ranking) and ranking[0].node_id in row["answer_ids"])
    return sum(hits) / len(hits)


def chains(plan: GraphPlan) -> list[int]:
    """Hops from each anchor to the target (the rule planner writes one chain per anchor)."""
    lengths = []
    for anchor in plan.anchors:
        var, length = anchor.var, 0
        while var != TARGET_VAR:
            var = next(h.to_var for h in plan.hops if h.from_var == var)
            length += 1
        lengths.append(length)
    return lengths


def test_one_hop_questions_plan_one_typed_hop(academic: tuple[Snapshot, dict]) -> None:
    snapshot, families = academic
    plan = planned(snapshot, families["one_hop"][0]["query"])
    assert chains(plan) == [1]
    assert plan.target.labels == ["paper"] and plan.risk_level == "normal"
    assert plan.anchors[0].match_mode == "name"
    assert hit_at_1(snapshot, families["one_hop"][:10]) >= 0.6


def test_two_hop_questions_plan_a_chain_through_a_typed_variable(
    academic: tuple[Snapshot, dict],
) -> None:
    snapshot, families = academic
    plans = [planned(snapshot, row["query"]) for row in families["two_hop"][:10]]
    assert any(2 in chains(plan) for plan in plans)
    middle = next(h for plan in plans for h in plan.hops if h.to_var != TARGET_VAR)
    assert middle.to_label in snapshot.node_type_names


def test_intersection_questions_join_two_anchors_at_the_target(
    academic: tuple[Snapshot, dict],
) -> None:
    snapshot, families = academic
    rows = [r for r in families["multi_answer"] if len(planned(snapshot, r["query"]).anchors) == 2]
    assert rows, "the neighbour-set family names an author and a field"
    plan = planned(snapshot, rows[0]["query"])
    assert {h.to_var for h in plan.hops if h.from_var in ("A1", "A2")} <= {
        TARGET_VAR,
        "A1_via",
        "A2_via",
    }
    outcome = PlanExecutor(snapshot).run(plan)
    gold = set(rows[0]["answer_ids"])
    found = {c.node_id for c in outcome.ranking[:20]}
    assert len(found & gold) / len(gold) >= 0.5  # the intersection keeps the answers


def test_text_questions_plan_one_doc_anchor_and_no_trade(academic: tuple[Snapshot, dict]) -> None:
    snapshot, families = academic
    plan = planned(snapshot, families["text_only"][0]["query"])
    assert plan.hops == [] and plan.risk_level == "no_trade"
    assert plan.anchors[0].var == TARGET_VAR and plan.anchors[0].match_mode == "doc"
    assert hit_at_1(snapshot, families["text_only"][:10]) >= 0.6


def test_relevance_text_keeps_only_words_that_rank_nodes(academic: tuple[Snapshot, dict]) -> None:
    snapshot, families = academic
    plan = planned(snapshot, families["one_hop"][0]["query"])
    kept = plan.target.relevance_text.lower().split()
    freqs = snapshot.index.doc_freqs(snapshot.index.tokenize(" ".join(kept)))
    assert all(0 < f <= snapshot.num_nodes / 2 for f in freqs)
    # no node holds "which"; "papers" is kept only where the analyzer stems it to "paper"
    assert "which" not in kept
    assert ("papers" in kept) == (snapshot.manifest.analyzer == "english-stem")


def test_neighbour_set_questions_reach_the_whole_set(tiny_snapshot: Snapshot) -> None:
    plan = planned(tiny_snapshot, "Which papers did Charles Babbage write?")
    assert chains(plan) == [1] and plan.hops[0].rel == "writes"
    outcome = PlanExecutor(tiny_snapshot).run(plan)
    assert {c.node_id for c in outcome.ranking} == {"P2", "P3"}  # all he wrote, nothing else
    assert outcome.n_cand == 2 and outcome.bindings["A1"][0][:2] == ("A2", "Charles Babbage")
