"""The BM25 baseline: plain global search for the raw question, scored like an agent run.

It answers through the same `ask` interface as ArkAgent and writes the same run directory
(a QuestionResult per question with model "bm25", no trajectories, the top-k hits as the
fused list), so reports and the demo put it next to agent runs with no special case.

Two presets: ``ark`` (the snapshot's own index over every node, the index agents search) and
``stark``, STaRK's own BM25 baseline (candidate nodes only, `get_doc_info` documents, `bm25s`
defaults; rank/baselines/stark_bm25.py), to check that a STaRK import reproduces Table 1's BM25 row
before running agents.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from agent.trajectory import QuestionResult
from evals.runs.outcomes import OutcomeHandler
from evals.runs.request import RunRequest
from evals.runs.runner import RunPlan, StartHandler, execute
from rank.baselines.stark_bm25 import StarkBM25, StarkBM25Params

if TYPE_CHECKING:
    from agent.events import EventHandler
    from graphs.snapshot import Snapshot

BASELINE_MODEL = "bm25"
DEFAULT_K = 100
Preset = Literal["ark", "stark"]
PRESETS: tuple[str, ...] = ("ark", "stark")


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


class StarkBM25Baseline(RankingAsker):
    """STaRK's BM25 baseline: candidate nodes only, their `get_doc_info` text, `bm25s` defaults.

    The candidates are the nodes of the manifest's candidate types (every node when none are
    declared), in internal id order (STaRK's ``candidate_ids`` order for an imported SKB).
    """

    def __init__(self, snapshot: Snapshot, k: int = DEFAULT_K) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.snapshot = snapshot
        self.k = k
        self.candidates = candidate_nodes(snapshot)
        self.index = StarkBM25(snapshot.texts(self.candidates), StarkBM25Params())

    def ranked(self, question: str) -> list[str]:
        """External ids of the top-k candidates for `question`, best first."""
        positions = self.index.top(question, self.k)
        return [self.snapshot.external_id(int(node)) for node in self.candidates[positions]]

    def describe(self) -> tuple[str, dict[str, Any]]:
        """The model name and config recorded with each answer."""
        params = self.index.params
        config = {"method": BASELINE_MODEL, "preset": "stark", "k": self.k}
        return BASELINE_MODEL, {**config, "k1": params.k1, "b": params.b, "idf": "lucene"}


def candidate_nodes(snapshot: Snapshot) -> np.ndarray:
    """Internal ids of the nodes of the manifest's candidate types (all nodes without any)."""
    types = snapshot.manifest.candidate_types
    codes = np.asarray(snapshot.node_type_codes)
    if not types:
        return np.arange(len(codes), dtype=np.int64)
    wanted = [snapshot.type_code(name) for name in types]
    return np.flatnonzero(np.isin(codes, wanted)).astype(np.int64)


def run_baseline(
    request: RunRequest,
    *,
    k: int = DEFAULT_K,
    preset: Preset = "ark",
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
) -> RunPlan:
    """Score BM25 on a question set into `request.out` (resumable like an agent run).

    Args:
        request: The same request an agent evaluation takes (questions, run directory).
        k: Hits kept per question.
        preset: ``ark`` (the snapshot's index, every node) or ``stark`` (STaRK's baseline:
            candidates only, `bm25s` defaults; see the module docstring).
        on_start: Called with the plan once the questions are loaded.
        on_outcome: Called after each question is on disk.

    Raises:
        RunStoreError, GraphError, QAError: as `evals.runs.runner.execute`.
        ValueError: `k` < 1 or an unknown preset.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if preset not in PRESETS:
        raise ValueError(f"unknown BM25 preset {preset!r}; choose one of {', '.join(PRESETS)}")
    baseline: dict[str, Any] = {"method": BASELINE_MODEL, "k": k}
    if preset == "stark":
        baseline["preset"] = "stark"
    asker = StarkBM25Baseline if preset == "stark" else BM25Baseline
    return execute(
        request,
        config=request.run_config({"baseline": baseline}),
        make_asker=lambda snapshot: asker(snapshot, k),
        on_start=on_start,
        on_outcome=on_outcome,
    )
