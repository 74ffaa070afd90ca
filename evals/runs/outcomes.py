"""One question's attempt and its durable record: what the local and the Ray executor share.

`attempt` asks and scores one question (any failure becomes a FailureRecord, never a raise);
`record_outcome` appends it to the run directory, feeds the circuit breaker and reports it.
The local runner (runs/runner.py) and the Ray driver (runs/ray_executor.py) both use these,
so a question is recorded the same way whichever ran it.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.models.base import EndpointUnreachableError
from agent.trajectory import QuestionResult
from evals.metrics import CandidateTest
from evals.qa.sets import QAItem
from evals.runs.circuit import UNREACHABLE, CircuitBreaker
from evals.runs.scoring import scored_record
from evals.runs.store import FailureRecord, RunRecord, RunStore

if TYPE_CHECKING:
    from agent.events import EventHandler

logger = logging.getLogger(__name__)


class Asker(Protocol):
    """Anything that answers a question like ArkAgent.ask (tests pass fakes)."""

    async def ask(
        self,
        question: str,
        *,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> QuestionResult:
        """Answer one question with n agents and their fused list."""
        ...


@dataclass(frozen=True)
class Outcome:
    """One finished attempt: exactly one of `record` and `failure` is set."""

    question_id: str
    record: RunRecord | None = None
    failure: FailureRecord | None = None


OutcomeHandler = Callable[[Outcome], None]


def _failure(item: QAItem, error_type: str, error: str, trace: str | None = None) -> Outcome:
    failure = FailureRecord(
        question_id=item.id,
        query=item.query,
        family=item.family,
        error_type=error_type,
        error=error,
        traceback=trace,
    )
    return Outcome(item.id, failure=failure)


async def attempt(asker: Asker, item: QAItem, is_candidate: CandidateTest) -> Outcome:
    """Ask one question and score it; any failure becomes a FailureRecord, never a raise."""
    try:
        result = await asker.ask(item.query, question_id=item.id)
    except Exception as error:  # one question must never stop the run; the traceback is kept
        logger.debug("question %s raised", item.id, exc_info=True)
        trace = "".join(traceback.format_exception(error))
        return _failure(item, type(error).__name__, str(error) or repr(error), trace)
    if result.failed:
        messages = "; ".join(dict.fromkeys(result.errors))  # n agents often fail alike
        kinds = {t.steps[-1].error_kind for t in result.trajectories if t.steps}
        error_type = UNREACHABLE if kinds == {EndpointUnreachableError.kind} else "ModelError"
        return _failure(item, error_type, messages or "every agent failed")
    record = scored_record(item, result, is_candidate)
    return Outcome(item.id, record=record)


def record_outcome(
    outcome: Outcome,
    store: RunStore,
    *,
    breaker: CircuitBreaker | None = None,
    on_outcome: OutcomeHandler | None = None,
) -> None:
    """Append one finished attempt to the run directory, feed the breaker, report it."""
    if outcome.record is not None:
        store.append_result(outcome.record)
    elif outcome.failure is not None:
        failure = outcome.failure
        # An unreachable endpoint is reported once, by the breaker, not per question.
        level = logging.INFO if failure.error_type == UNREACHABLE else logging.WARNING
        logger.log(
            level,
            "question %s failed (%s: %s)",
            outcome.question_id,
            failure.error_type,
            failure.error,
        )
        store.append_failure(failure)
    if breaker is not None:
        failed = outcome.failure
        breaker.record(
            failed is not None and failed.error_type == UNREACHABLE,
            failed.error if failed else "",
        )
    if on_outcome is not None:
        on_outcome(outcome)
