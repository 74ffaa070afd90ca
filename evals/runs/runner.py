"""The batch runner: questions run concurrently, each one recorded durably as it finishes.

A question whose agent raises, or whose agents all stop on a model error
(``QuestionResult.failed``), becomes a line in failures.jsonl and the run goes on; the next
``--resume`` retries it. Finished questions are never run twice. A Ctrl-C cancels the
questions in flight; what was written stays, and ``--resume`` continues from there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from evals.metrics import CandidateTest
from evals.qa.sets import QAItem
from evals.qa.splits import resolve_split, split_notes
from evals.runs.circuit import CircuitBreaker, stop_error
from evals.runs.executor import LOCAL, EndpointAsker, ExecutorConfig
from evals.runs.outcomes import Asker, Outcome, OutcomeHandler, attempt, record_outcome
from evals.runs.request import RunRequest
from evals.runs.store import RunStore
from graphs.errors import ConfigError
from tools.schemas import MAX_QUERY_CHARS

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from graphs.snapshot import Snapshot

logger = logging.getLogger(__name__)


async def run_questions(
    asker: Asker,
    items: Sequence[QAItem],
    store: RunStore,
    is_candidate: CandidateTest,
    *,
    concurrency: int = 4,
    on_outcome: OutcomeHandler | None = None,
    breaker: CircuitBreaker | None = None,
) -> list[Outcome]:
    """Run `items` with at most `concurrency` questions in flight, appending each as it ends.

    Once `breaker` trips (the endpoint unreachable for several questions in a row), no
    further question starts; those in flight finish and are recorded.

    Args:
        asker: Answers questions (ArkAgent, or a fake in tests).
        items: The questions still to run.
        store: The open run directory.
        is_candidate: STaRK-protocol candidate test.
        concurrency: Questions in flight at once (each runs its n agents in parallel).
        on_outcome: Called after each outcome is on disk (progress display).
        breaker: Stops the batch when the endpoint is down (None: never stop).

    Returns:
        The outcomes of the questions that ran, in the order of `items`.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    semaphore = asyncio.Semaphore(concurrency)

    async def run_one(item: QAItem) -> Outcome | None:
        async with semaphore:
            if breaker is not None and breaker.tripped:
                return None
            outcome = await attempt(asker, item, is_candidate)
        record_outcome(outcome, store, breaker=breaker, on_outcome=on_outcome)
        return outcome

    outcomes = await asyncio.gather(*(run_one(item) for item in items))
    return [outcome for outcome in outcomes if outcome is not None]


@dataclass(frozen=True)
class RunPlan:
    """What a run will do, reported before it starts.

    Attributes:
        total: Questions in the (limited) set.
        already_done: Questions already in results.jsonl (skipped).
        retrying: Pending questions that failed before.
        pending: Questions to run now.
        warnings: Problems found in the question set (e.g. gold ids the snapshot lacks).
        notes: Choices made for the user (e.g. the whole STaRK CSV, having no split files).
    """

    total: int
    already_done: int
    retrying: int
    pending: Sequence[QAItem]
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


StartHandler = Callable[[RunPlan], None]


def plan_run(items: Sequence[QAItem], store: RunStore, failed_ids: set[str]) -> RunPlan:
    """Split the question set into finished and pending questions (failed ones are retried)."""
    finished = store.finished_ids()
    pending = [item for item in items if item.id not in finished]
    retrying = sum(1 for item in pending if item.id in failed_ids)
    return RunPlan(len(items), len(items) - len(pending), retrying, pending)


def long_question_warnings(items: Sequence[QAItem]) -> tuple[str, ...]:
    """A warning when questions exceed the search query limit (searches for them are cut)."""
    long = [item.id for item in items if len(item.query) > MAX_QUERY_CHARS]
    if not long:
        return ()
    shown = ", ".join(long[:3]) + (", ..." if len(long) > 3 else "")
    return (
        f"{len(long)} question(s) are longer than the {MAX_QUERY_CHARS:,}-character search "
        f"limit ({shown}): every model's searches for them are cut to that length, with a "
        "note in the observation",
    )


def execute(
    request: RunRequest,
    *,
    config: dict[str, Any],
    make_asker: Callable[[Snapshot], Asker],
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
    executor: ExecutorConfig = LOCAL,
    asker_at: EndpointAsker | None = None,
) -> RunPlan:
    """Load the snapshot and questions, open the run directory and run what is pending.

    Args:
        request: The snapshot, the questions (split, sample, limit) and the run directory.
        config: The content of config.json (`request.run_config(...)`).
        make_asker: Builds the agent (or baseline) once the snapshot is open. With the Ray
            executor it is shipped to (pickled for) each worker and called there.
        on_start: Called with the plan once the questions are loaded.
        on_outcome: Called after each question is on disk.
        executor: This process (default) or Ray tasks (evals/runs/ray_executor.py).
        asker_at: Builds an asker bound to one of `executor.endpoints` (needed with them).

    Returns:
        The plan that was executed; read the results with `evals.summary.summarize_run`.

    Raises:
        RunStoreError: `out` is not empty without `resume`, or holds another run.
        GraphError, QAError: the snapshot or question file cannot be read.
        EndpointDownError: the model endpoint could not be reached for several questions in
            a row; the batch stopped (what finished is saved; `resume` continues).
    """
    from evals.metrics import CandidateFilter
    from evals.qa.sets import load_qa, validate_against
    from evals.runs.store import read_failures
    from graphs.snapshot import Snapshot

    snapshot = Snapshot.open(request.snapshot)
    every = load_qa(request.qa, resolve_split(request.qa, request.split))
    items = request.select(every)
    validation = validate_against(snapshot, items)
    warnings: tuple[str, ...] = (
        () if validation.ok else (f"question set problems: {validation.summary()}",)
    )
    warnings += long_question_warnings(items)
    notes = split_notes(request.qa, request.split, len(every))
    if request.sample.active:
        notes += (f"running {request.sample.describe(len(every))} of the split",)
    if executor.endpoints and asker_at is None:
        raise ConfigError("this command cannot spread over --endpoints; pass one --base-url")
    # before the run dir exists: a bad model spec leaves no trace (Ray workers build their
    # own, so with Ray this one only checks the spec)
    asker = make_asker(snapshot)
    with RunStore.open(request.out, config, resume=request.resume) as store:
        failed_ids = {failure.question_id for failure in read_failures(request.out)}
        plan = replace(plan_run(items, store, failed_ids), warnings=warnings, notes=notes)
        if on_start is not None:
            on_start(plan)  # the handler shows warnings and notes; logging them too doubles them
        else:
            for message in (*warnings, *notes):
                logger.warning("%s", message)
        breaker = CircuitBreaker()
        if plan.pending:
            if executor.kind == "ray":
                from evals.runs.ray_executor import RayBatch, run_on_ray

                batch = RayBatch(
                    snapshot=snapshot.path,
                    make_asker=make_asker,
                    asker_at=asker_at,
                    concurrency=request.concurrency,
                )
                ran = run_on_ray(batch, plan.pending, store, executor, breaker, on_outcome)
            else:
                coroutine = run_questions(
                    asker,
                    plan.pending,
                    store,
                    CandidateFilter.from_snapshot(snapshot),
                    concurrency=request.concurrency,
                    on_outcome=on_outcome,
                    breaker=breaker,
                )
                ran = asyncio.run(coroutine)
            if breaker.tripped:
                answered = sum(1 for outcome in ran if outcome.record is not None)
                raise stop_error(breaker, request.out, remaining=len(plan.pending) - answered)
    return plan


def evaluate(
    request: RunRequest,
    agent: AgentConfig,
    *,
    asker: Asker | None = None,
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
    executor: ExecutorConfig = LOCAL,
) -> RunPlan:
    """Run (or resume) an agent evaluation into `request.out` (see `execute`).

    Args:
        request: What to run, over which questions, into which run directory.
        agent: The agent configuration (stored in config.json under "agent").
        asker: Use this instead of building an ArkAgent from `agent` (tests).
        on_start: Called with the plan once the questions are loaded.
        on_outcome: Called after each question is on disk.
        executor: This process, or Ray tasks (each builds its agent from `agent`, bound to
            one of `executor.endpoints` in turn when given).
    """
    return execute(
        request,
        config=request.run_config({"agent": agent.to_record()}),
        make_asker=AgentAsker(agent, asker),
        on_start=on_start,
        on_outcome=on_outcome,
        executor=executor,
        asker_at=AgentAsker(agent, asker).at,
    )


@dataclass(frozen=True)
class AgentAsker:
    """Builds the agent of a run from its config (picklable, so Ray workers can build it)."""

    agent: AgentConfig
    asker: Asker | None = None

    def __call__(self, snapshot: Snapshot) -> Asker:
        """The agent over `snapshot` (or the given asker)."""
        from agent.factory import make_agent

        return self.asker or make_agent(snapshot, self.agent)

    def at(self, snapshot: Snapshot, endpoint: str) -> Asker:
        """The agent calling the model server at base URL `endpoint`."""
        return AgentAsker(replace(self.agent, base_url=endpoint), self.asker)(snapshot)
