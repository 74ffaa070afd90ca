"""The BM25 baseline: plain global search for the raw question, scored like an agent run.

It answers through the same `ask` interface as ArkAgent and writes the same run directory
(a QuestionResult per question with model "bm25", no trajectories, the top-k hits as the
fused list), so reports and the demo put it next to agent runs with no special case.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from agent.trajectory import QuestionResult
from evals.request import RunRequest
from evals.runner import OutcomeHandler, RunPlan, StartHandler, execute

if TYPE_CHECKING:
    from agent.events import EventHandler
    from graphs.snapshot import Snapshot

BASELINE_MODEL = "bm25"
DEFAULT_K = 100


class RankingAsker(ABC):
    """A retriever that answers through ArkAgent's `ask`: its ranking is the fused list."""

    @abstractmethod
    def ranked(self, question: str) -> list[str]:
        """External ids retrieved for `question`, best first."""

    @abstractmethod
    def describe(self) -> tuple[str, dict[str, Any]]:
        """The model name and config recorded with each answer."""

    async def ask(
        self,
        question: str,
        *,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> QuestionResult:
        """The ranking as a QuestionResult (no trajectories)."""
        started = time.perf_counter()
        fused = self.ranked(question)
        model, config = self.describe()
        return QuestionResult(
            question_id=question_id,
            question=question,
            model=model,
            config=config,
            fused=fused,
            wall_s=time.perf_counter() - started,
        )


class BM25Baseline(RankingAsker):
    """Answers a question with the top `k` nodes of the snapshot's BM25 index, all types."""

    def __init__(self, snapshot: Snapshot, k: int = DEFAULT_K) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.snapshot = snapshot
        self.k = k

    def ranked(self, question: str) -> list[str]:
        """External ids of the top-k hits for `question`, best first."""
        nodes, _ = self.snapshot.index.search(question, self.k)
        return [self.snapshot.external_id(int(node)) for node in nodes]

    def describe(self) -> tuple[str, dict[str, Any]]:
        """The model name and config recorded with each answer."""
        return BASELINE_MODEL, {"method": BASELINE_MODEL, "k": self.k}


def run_baseline(
    request: RunRequest,
    *,
    k: int = DEFAULT_K,
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
) -> RunPlan:
    """Score BM25 on a question set into `request.out` (resumable like an agent run).

    Args:
        request: The same request an agent evaluation takes (questions, run directory).
        k: Hits kept per question.
        on_start: Called with the plan once the questions are loaded.
        on_outcome: Called after each question is on disk.

    Raises:
        RunStoreError, GraphError, QAError: as `evals.runner.execute`.
        ValueError: `k` < 1.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return execute(
        request,
        config=request.run_config({"baseline": {"method": BASELINE_MODEL, "k": k}}),
        make_asker=lambda snapshot: BM25Baseline(snapshot, k),
        on_start=on_start,
        on_outcome=on_outcome,
    )
