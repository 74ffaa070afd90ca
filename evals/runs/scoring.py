"""The one way a finished question becomes a RunRecord: its answers scored against its gold."""

from __future__ import annotations

from agent.trajectory import QuestionResult
from evals.metrics import CandidateTest, score_question
from evals.qa.sets import QAItem
from evals.runs.store import RunRecord


def scored_record(item: QAItem, result: QuestionResult, is_candidate: CandidateTest) -> RunRecord:
    """A run record of `item` answered by `result`, under both metric protocols.

    The fused list is what `metrics` scores; each trajectory's own answers are scored the
    same way into `agent_metrics` (none for fusion, reranking and baselines without agents).
    """
    gold = list(item.answer_ids)
    return RunRecord(
        question_id=item.id,
        query=item.query,
        family=item.family,
        gold=gold,
        result=result,
        metrics=score_question(result.fused, gold, is_candidate),
        agent_metrics=[score_question(t.answers, gold, is_candidate) for t in result.trajectories],
    )
