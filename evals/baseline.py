"""The BM25 baseline: plain global search for the raw question, scored like an agent run.

It answers through the same `ask` interface as ArkAgent and writes the same run directory
(a QuestionResult per question with model "bm25", no trajectories, the top-k hits as the
fused list), so reports and the demo put it next to agent runs with no special case.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.trajectory import QuestionResult
from evals.qa_splits import resolve_split
from evals.runner import OutcomeHandler, RunPlan, StartHandler, execute

if TYPE_CHECKING:
    from agent.events import EventHandler
    from graphs.snapshot import Snapshot

BASELINE_MODEL = "bm25"
DEFAULT_K = 100


class BM25Baseline:
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

    async def ask(
        self,
        question: str,
        *,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> QuestionResult:
        """The top-k hits as a QuestionResult (model "bm25", no trajectories)."""
        started = time.perf_counter()
        fused = self.ranked(question)
        return QuestionResult(
            question_id=question_id,
            question=question,
            model=BASELINE_MODEL,
            config={"method": BASELINE_MODEL, "k": self.k},
            fused=fused,
            wall_s=time.perf_counter() - started,
        )


@dataclass(frozen=True, kw_only=True)
class BaselineRequest:
    """One `ark baseline bm25` invocation (fields as in evals.runner.EvalRequest)."""

    snapshot: Path
    qa: Path
    split: str | None = None
    out: Path
    limit: int | None = None
    k: int = DEFAULT_K
    resume: bool = False

    def run_config(self) -> dict[str, Any]:
        """The content of config.json."""
        return {
            "baseline": {"method": BASELINE_MODEL, "k": self.k},
            "snapshot": str(Path(self.snapshot).resolve()),
            "qa": str(Path(self.qa).resolve()),
            "split": resolve_split(self.qa, self.split),
            "limit": self.limit,
        }


def run_baseline(
    request: BaselineRequest,
    *,
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
) -> RunPlan:
    """Score BM25 on a question set into `request.out` (resumable like an agent run).

    Raises:
        RunStoreError, GraphError, QAError: as `evals.runner.execute`.
    """
    return execute(
        snapshot_path=request.snapshot,
        qa=request.qa,
        split=request.split,
        limit=request.limit,
        out=request.out,
        resume=request.resume,
        config=request.run_config(),
        make_asker=lambda snapshot: BM25Baseline(snapshot, request.k),
        concurrency=1,
        on_start=on_start,
        on_outcome=on_outcome,
    )
