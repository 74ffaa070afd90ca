"""scored_record: the one builder of run records (eval, fuse and rerank all use it)."""

from __future__ import annotations

from agent.trajectory import QuestionResult, Trajectory
from evals.qa.sets import QAItem
from evals.runs.scoring import scored_record


def test_the_fused_list_and_each_agent_are_scored_against_the_gold() -> None:
    item = QAItem(id="q1", query="which one", answer_ids=("b",), family="one_hop")
    agents = [
        Trajectory(question="which one", model="m", answers=["b", "a"]),
        Trajectory(question="which one", model="m", answers=["c"]),
    ]
    result = QuestionResult(question="which one", model="m", trajectories=agents, fused=["a", "b"])
    record = scored_record(item, result, lambda node: node != "a")
    assert (record.question_id, record.query, record.family, record.gold) == (
        "q1", "which one", "one_hop", ["b"],
    )  # fmt: skip
    assert record.metrics["ark"]["hit@1"] == 0.0  # "a" is first under ARK's protocol
    assert record.metrics["stark"]["hit@1"] == 1.0  # non-candidate "a" dropped under STaRK
    assert [m["ark"]["hit@1"] for m in record.agent_metrics] == [1.0, 0.0]


def test_a_ranking_without_agents_has_no_agent_metrics() -> None:
    item = QAItem(id="q2", query="q", answer_ids=("x",))
    record = scored_record(item, QuestionResult(question="q", model="rrf", fused=["x"]), bool)
    assert record.agent_metrics == [] and record.metrics["stark"]["mrr"] == 1.0
