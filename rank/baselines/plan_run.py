"""Plan runs: each question planned, executed on the snapshot, and written as a run directory.

A plan run is a run directory like any other (`ark eval report` compares it, `ark fuse` reads
it): its fused list is the executor's ranking, and each question's result config records the
plan, `n_cand`, `risk_level`, whether the plan was invalid and the planning latency. Its
config.json holds a "plan" section (what `ark fuse --mode dynamic` looks for) and a
"baseline" section naming the method, e.g. ``plan(rules)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.trajectory import QuestionResult
from evals.runs.executor import LOCAL, ExecutorConfig
from evals.runs.outcomes import OutcomeHandler
from evals.runs.request import RunRequest
from evals.runs.runner import RunPlan, StartHandler, execute
from tools.plans.execute import PlanExecutor, PlanOutcome

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent.events import EventHandler
    from agent.planner import Planned, Planner
    from graphs.snapshot import Snapshot
    from tools.dense import DenseSearch


def plan_record(planned: Planned, outcome: PlanOutcome) -> dict[str, Any]:
    """The per-question config of a plan run (what fusion and reports read)."""
    return {
        "scores": [c.score for c in outcome.ranking],
        "plan": planned.plan.model_dump(by_alias=True),
        "n_cand": outcome.n_cand,
        "risk_level": outcome.risk_level,
        "invalid_plan": planned.invalid,
        "plan_errors": planned.errors,
        "plan_asked_as": planned.asked_as,
        "plan_repaired": planned.repaired,
        "plan_s": round(planned.latency_s, 4),
        "bindings": {var: [row[0] for row in rows] for var, rows in outcome.bindings.items()},
    }


@dataclass
class PlanAsker:
    """Answers like an agent: plan the question, execute the plan, the ranking is the answer."""

    planner: Planner
    executor: PlanExecutor

    async def ask(
        self,
        question: str,
        *,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> QuestionResult:
        """The executed plan's ranking as a QuestionResult (no trajectories)."""
        started = time.perf_counter()
        planned = await self.planner.plan(question)
        outcome = self.executor.run(planned.plan)
        return QuestionResult(
            question_id=question_id,
            question=question,
            model=f"plan({self.planner.name})",
            config=plan_record(planned, outcome),
            fused=[c.node_id for c in outcome.ranking],
            wall_s=time.perf_counter() - started,
        )


def run_plans(
    request: RunRequest,
    make_planner: Callable[[Snapshot], Planner],
    *,
    planner_name: str,
    depth: int = 100,
    make_dense: Callable[[Snapshot], DenseSearch | None] | None = None,
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
    executor: ExecutorConfig = LOCAL,
    make_planner_at: Callable[[Snapshot, str], Planner] | None = None,
) -> RunPlan:
    """Plan and execute every question of `request` into `request.out` (resumable).

    Args:
        request: The questions and the run directory.
        make_planner: Builds the planner once the snapshot is open (in each Ray worker with
            the Ray executor, so it must pickle).
        planner_name: Recorded as the method.
        depth: Candidates ranked per plan.
        make_dense: Dense search for anchor linking (None: BM25).
        on_start: Called with the plan once the questions are loaded.
        on_outcome: Called after each question is on disk.
        executor: This process, or Ray tasks.
        make_planner_at: Builds the planner bound to one of `executor.endpoints`.

    Raises:
        RunStoreError, GraphError, QAError: as `evals.runs.runner.execute`.
    """

    def asker_with(snapshot: Snapshot, planner: Planner) -> PlanAsker:
        dense = make_dense(snapshot) if make_dense else None
        return PlanAsker(planner, PlanExecutor(snapshot, dense=dense, depth=depth))

    def make_asker(snapshot: Snapshot) -> PlanAsker:
        return asker_with(snapshot, make_planner(snapshot))

    def asker_at(snapshot: Snapshot, endpoint: str) -> PlanAsker:
        if make_planner_at is None:
            return make_asker(snapshot)
        return asker_with(snapshot, make_planner_at(snapshot, endpoint))

    method = {
        "plan": {"planner": planner_name, "depth": depth, "dense": make_dense is not None},
        "baseline": {"method": f"plan({planner_name})"},
    }
    return execute(
        request,
        config=request.run_config(method),
        make_asker=make_asker,
        on_start=on_start,
        on_outcome=on_outcome,
        executor=executor,
        asker_at=asker_at if make_planner_at is not None else None,
    )
