"""The LLM planner with a scripted model: prompt modules, a plan end to end, invalid plans."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent.models.base import ModelReply
from agent.models.scripted import ScriptedModel
from agent.planner import LLMPlanner, OfflinePlanner, PlannerConfig, load_examples, system_prompt
from graphs.snapshot import Snapshot
from tools.plans.errors import PlanError
from tools.plans.execute import PlanExecutor

PLAN = {
    "anchors": [{"var": "A1", "text": "Ada Lovelace", "label": "author", "match_mode": "name"}],
    "hops": [{"from": "A1", "rel": "writes", "to_var": "T", "to_label": "paper"}],
    "target": {"var": "T", "labels": ["paper"], "relevance_text": "graphs"},
    "risk_level": "aggressive",
}


def reply(content: str) -> ModelReply:
    return ModelReply({"role": "assistant", "content": content})


def test_the_prompt_holds_grasps_four_modules_and_the_snapshots_schema(
    tiny_snapshot: Snapshot,
) -> None:
    text = system_prompt(tiny_snapshot.manifest)
    assert "structural query parser" in text  # role
    assert "- author -[writes]-> paper" in text and "- institution (1)" in text  # schema
    assert '"match_mode": "name"' in text and "relevance_text" in text  # structure
    assert "## Fusion overlay allocator" in text and "no_trade" in text  # fusion control


def test_a_scripted_plan_runs_end_to_end(tiny_snapshot: Snapshot) -> None:
    model = ScriptedModel([reply("Plan:\n" + json.dumps(PLAN))])
    planned = asyncio.run(LLMPlanner(model, tiny_snapshot.manifest).plan("Ada's graph papers?"))
    assert not planned.invalid and planned.attempts == 1 and planned.errors == []
    assert model.remaining == 0
    outcome = PlanExecutor(tiny_snapshot).run(planned.plan)
    # Ada wrote p1, p2, p4; "graphs" ranks p1 (Graph retrieval with agents) first
    assert outcome.ranking[0].node_id == "p1"
    assert {c.node_id for c in outcome.ranking} == {"p1", "p2", "p4"}
    assert outcome.n_cand == 3 and outcome.risk_level == "aggressive"


def test_a_rejected_plan_is_asked_again_with_the_reason(tiny_snapshot: Snapshot) -> None:
    bad = {**PLAN, "hops": [{**PLAN["hops"][0], "rel": "authored"}]}
    seen: list[str] = []

    def second(messages: list[dict]) -> ModelReply:
        seen.append(messages[-1]["content"])
        return reply(json.dumps(PLAN))

    model = ScriptedModel([reply(json.dumps(bad)), second])
    planned = asyncio.run(LLMPlanner(model, tiny_snapshot.manifest).plan("Ada's papers?"))
    assert not planned.invalid and planned.attempts == 2
    assert "'authored' is not a relation" in planned.errors[0]
    assert "previous plan was rejected" in seen[0] and "'authored'" in seen[0]


def test_a_model_that_never_plans_falls_back_to_text_and_is_counted(
    tiny_snapshot: Snapshot,
) -> None:
    model = ScriptedModel([reply("no idea"), reply('{"anchors": "x"}')])
    planner = LLMPlanner(model, tiny_snapshot.manifest, PlannerConfig(retries=1))
    planned = asyncio.run(planner.plan("sparse retrieval baseline"))
    assert planned.invalid and len(planned.errors) == 2
    assert planned.plan.risk_level == "no_trade" and planned.plan.hops == []
    ranking = PlanExecutor(tiny_snapshot).run(planned.plan).ranking
    assert ranking[0].node_id == "p4"


def test_worked_examples_come_from_a_file(tiny_snapshot: Snapshot, tmp_path: Path) -> None:
    path = tmp_path / "examples.jsonl"
    path.write_text(json.dumps({"question": "Papers by Ada?", "plan": PLAN}) + "\n")
    examples = load_examples(path)
    assert "Question: Papers by Ada?" in system_prompt(tiny_snapshot.manifest, examples)
    path.write_text(json.dumps({"question": "x", "plan": {"anchors": []}}) + "\n")
    with pytest.raises(PlanError, match=r"examples\.jsonl:1"):
        load_examples(path)


def test_the_offline_planner_needs_no_model(tiny_snapshot: Snapshot) -> None:
    planned = asyncio.run(
        OfflinePlanner(tiny_snapshot).plan("Which papers has Ada Lovelace written?")
    )
    assert [a.text for a in planned.plan.anchors] == ["Ada Lovelace"]
    assert planned.attempts == 0 and not planned.invalid


def test_a_served_planner_sends_the_snapshots_schema_and_records_the_mode(
    tiny_snapshot: Snapshot,
) -> None:
    """A schema-taking endpoint gets the path shape, the snapshot's names as enums."""
    from rank.baselines.plan_run import plan_record
    from tests.agent.fake_openai_server import FakeOpenAIServer, served_model, text_reply
    from tools.plans.plan_schema import ANY

    path_reply = {
        "anchors": [{"text": "Ada Lovelace", "label": "author", "match_mode": "name",
                     "path": [{"rel": "writes", "to_label": "paper", "direction": ANY}]}],
        "target": {"labels": ["paper"], "relevance_text": "graphs"},
        "risk_level": "normal",
    }  # fmt: skip
    with FakeOpenAIServer([text_reply(json.dumps(path_reply))]) as server:
        planner = LLMPlanner(served_model(server), tiny_snapshot.manifest)
        planned = asyncio.run(planner.plan("Which papers did Ada Lovelace write?"))
        sent = server.requests[0].body
    schema = sent["response_format"]["json_schema"]["schema"]
    step = schema["properties"]["anchors"]["items"]["properties"]["path"]["items"]["properties"]
    assert step["rel"]["enum"] == [*tiny_snapshot.manifest.relations, ANY]
    assert step["to_label"]["enum"] == [*tiny_snapshot.manifest.node_types, ANY]
    assert '"path"' in sent["messages"][0]["content"]  # the prompt describes the same shape
    assert not planned.invalid and planned.asked_as == ["schema"]
    hop = planned.plan.hops[0]
    assert (hop.from_var, hop.rel, hop.to_var, hop.direction) == ("A1", "writes", "T", None)
    record = plan_record(planned, PlanExecutor(tiny_snapshot).run(planned.plan))
    assert record["plan_asked_as"] == ["schema"] and record["plan_repaired"] == 0
    assert planner.stats.by_mode == {"schema": 1}


def test_a_prompted_planner_counts_a_repaired_plan(tiny_snapshot: Snapshot) -> None:
    text = "Plan: " + json.dumps(PLAN)[:-1]  # the closing brace is missing
    planned = asyncio.run(
        LLMPlanner(ScriptedModel([reply(text)]), tiny_snapshot.manifest).plan("q")
    )
    assert not planned.invalid and planned.asked_as == ["prompt"] and planned.repaired == 1
