"""The batch runner with a scripted fake agent: success, raise, failed result, slow."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent.trajectory import QuestionResult, StopReason, Trajectory
from evals.qa.sets import QAItem
from evals.qa.splits import resolve_split
from evals.runs.outcomes import Outcome
from evals.runs.runner import plan_run, run_questions
from evals.runs.store import RunStore, read_failures, read_results
from evals.summary import summarize_run

CONFIG = {"agent": {"model": "fake"}, "snapshot": "s", "qa": "q", "split": "test"}


def Item(id: str, query: str, answer_ids: tuple[str, ...], family: str | None = None) -> QAItem:
    return QAItem(id=id, query=query, answer_ids=list(answer_ids), family=family)


@dataclass
class FakeAgent:
    """Behaviour per question id: ok | raise | fail | slow; answers are the gold first."""

    behaviour: dict[str, str]
    delay_s: float = 0.0
    in_flight: int = 0
    peak: int = 0
    calls: list[str] = field(default_factory=list)

    async def ask(self, question, *, question_id=None, on_event=None) -> QuestionResult:
        assert question_id is not None
        self.calls.append(question_id)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            kind = self.behaviour.get(question_id, "ok")
            await asyncio.sleep(self.delay_s if kind != "slow" else 0.2)
            if kind == "raise":
                raise RuntimeError(f"boom on {question_id}")
            stop: StopReason = "error" if kind == "fail" else "finish"
            trajectory = Trajectory(
                question=question,
                model="fake",
                stop_reason=stop,
                error="endpoint down" if kind == "fail" else None,
                answers=["x", "a"] if stop == "finish" else [],
            )
            return QuestionResult(
                question_id=question_id,
                question=question,
                model="fake",
                trajectories=[trajectory],
                fused=trajectory.answers,
                wall_s=0.1,
            )
        finally:
            self.in_flight -= 1


ITEMS = [
    Item("q1", "first?", ("a",), "text"),
    Item("q2", "second?", ("x",), "one_hop"),
    Item("q3", "third?", ("a",), "one_hop"),
    Item("q4", "fourth?", ("zz",), "text"),
]


def everything(_: str) -> bool:
    return True


def run(
    agent: FakeAgent,
    run_dir: Path,
    items=ITEMS,
    *,
    resume=False,
    concurrency=2,
    seen: list[Outcome] | None = None,
) -> list[Outcome]:
    with RunStore.open(run_dir, CONFIG, resume=resume) as store:
        failed = {f.question_id for f in read_failures(run_dir)}
        plan = plan_run(items, store, failed)

        def on_outcome(outcome: Outcome) -> None:
            # The outcome is on disk before anyone hears of it.
            ids = {r.question_id for r in read_results(run_dir)}
            ids |= {f.question_id for f in read_failures(run_dir)}
            assert outcome.question_id in ids
            if seen is not None:
                seen.append(outcome)

        return asyncio.run(
            run_questions(
                agent,
                plan.pending,
                store,
                everything,
                concurrency=concurrency,
                on_outcome=on_outcome,
            )
        )


def test_failures_are_recorded_and_the_run_goes_on(tmp_path: Path, caplog) -> None:
    agent = FakeAgent({"q2": "raise", "q3": "fail"})
    outcomes = run(agent, tmp_path)
    assert [o.record is not None for o in outcomes] == [True, False, False, True]
    results = read_results(tmp_path)
    assert sorted(r.question_id for r in results) == ["q1", "q4"]
    q1 = next(r for r in results if r.question_id == "q1")
    assert q1.metrics["ark"]["mrr"] == 0.5 and q1.metrics["stark"]["hit@5"] == 1.0
    failures = {f.question_id: f for f in read_failures(tmp_path)}
    assert failures["q2"].error_type == "RuntimeError" and "boom on q2" in failures["q2"].error
    assert failures["q3"].error_type == "ModelError" and failures["q3"].error == "endpoint down"
    assert "RuntimeError: boom on q2" in (failures["q2"].traceback or "")
    assert "q2" in caplog.text  # the failure is logged

    summary = summarize_run(tmp_path)
    assert (summary.overall.questions, summary.overall.failures) == (2, 2)
    assert summary.failed_ids == ["q2", "q3"]
    assert summary.groups["one_hop"].failures == 2
    assert summary.overall.means()["ark"]["hit@5"] == 0.25  # q1 hit; q4 and failures miss
    assert summary.overall.means_successful()["ark"]["hit@5"] == 0.5


def test_resume_retries_failures_and_never_duplicates(tmp_path: Path) -> None:
    run(FakeAgent({"q2": "raise", "q3": "fail"}), tmp_path)
    healed = FakeAgent({})
    run(healed, tmp_path, resume=True)
    assert sorted(healed.calls) == ["q2", "q3"]
    ids = [r.question_id for r in read_results(tmp_path)]
    assert sorted(ids) == ["q1", "q2", "q3", "q4"] and len(ids) == len(set(ids))
    summary = summarize_run(tmp_path)
    assert summary.overall.failures == 0 and summary.failed_ids == []
    # Nothing left: a third resume asks nothing.
    idle = FakeAgent({})
    assert run(idle, tmp_path, resume=True) == [] and idle.calls == []


def test_plan_counts_done_and_retrying(tmp_path: Path) -> None:
    run(FakeAgent({"q3": "fail"}), tmp_path)
    with RunStore.open(tmp_path, CONFIG, resume=True) as store:
        plan = plan_run(ITEMS, store, {"q3"})
    assert (plan.total, plan.already_done, plan.retrying) == (4, 3, 1)
    assert [item.id for item in plan.pending] == ["q3"]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_is_bounded_and_used(tmp_path: Path, concurrency: int) -> None:
    items = [Item(f"q{i}", "?", ("a",)) for i in range(8)]
    agent = FakeAgent({}, delay_s=0.02)
    run(agent, tmp_path, items, concurrency=concurrency)
    assert agent.peak == concurrency
    assert len(read_results(tmp_path)) == 8


def test_slow_question_does_not_block_others(tmp_path: Path) -> None:
    seen: list[Outcome] = []
    agent = FakeAgent({"q1": "slow"})
    run(agent, tmp_path, concurrency=4, seen=seen)
    assert seen[-1].question_id == "q1"
    assert [r.question_id for r in read_results(tmp_path)][-1] == "q1"


def test_bad_concurrency(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="concurrency"):
        run(FakeAgent({}), tmp_path, concurrency=0)


@dataclass
class SameErrorAgent:
    """Every agent of the question stops on a model error; `errors` gives each agent's."""

    errors: list[str]

    async def ask(self, question, *, question_id=None, on_event=None) -> QuestionResult:
        trajectories = [
            Trajectory(question=question, model="fake", stop_reason="error", error=error)
            for error in self.errors
        ]
        return QuestionResult(
            question_id=question_id or "",
            question=question,
            model="fake",
            trajectories=trajectories,
            fused=[],
            wall_s=0.1,
        )


@pytest.mark.parametrize(
    ("errors", "expected"),
    [
        (["429 too many", "429 too many", "429 too many"], "429 too many"),
        (["429 too many", "timeout", "429 too many"], "429 too many; timeout"),
    ],
)
def test_failure_error_joins_each_distinct_message_once(
    tmp_path: Path, errors: list[str], expected: str
) -> None:
    outcomes = run(SameErrorAgent(errors), tmp_path, ITEMS[:1])
    assert outcomes[0].failure is not None
    assert [f.error for f in read_failures(tmp_path)] == [expected]


def test_resolve_split_defaults(tmp_path: Path) -> None:
    csv_text = 'id,query,answer_ids\n0,q,"[1]"\n'
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "q.csv").write_text(csv_text)
    stark = tmp_path / "stark"
    (stark / "stark_qa").mkdir(parents=True)
    (stark / "split").mkdir()
    (stark / "stark_qa" / "stark_qa.csv").write_text(csv_text)
    (stark / "split" / "test.index").write_text("0\n")
    (tmp_path / "q.jsonl").write_text("")
    assert resolve_split(bare / "q.csv", None) == "all"  # no split files: the whole CSV
    assert resolve_split(bare, None) == "test"  # not a STaRK layout: a directory of splits
    assert resolve_split(stark, None) == "test"
    assert resolve_split(stark / "stark_qa" / "stark_qa.csv", None) == "test"
    assert resolve_split(tmp_path / "q.jsonl", None) is None
    assert resolve_split(bare / "q.csv", "val") == "val"
