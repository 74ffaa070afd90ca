"""The dense baseline: GME's strategies over the snapshot's embeddings, scored like an agent run.

Like the BM25 baseline it answers through `ask` and writes the same run directory (a
QuestionResult per question, model `dense-<strategy>-<variant>`, no trajectories, the
retrieved nodes in stage order as the fused list), so `ark eval report` and rank fusion read
it with no special case.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any, Protocol

from evals.runs.outcomes import OutcomeHandler
from evals.runs.request import RunRequest
from evals.runs.runner import RunPlan, StartHandler, execute
from graphs.dense.search import SearchMode, open_snapshot_index
from rank.baselines.bm25 import RankingAsker
from rank.baselines.dense_strategies import StrategyConfig, retrieve

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from graphs.snapshot import Snapshot


class QueryEncoder(Protocol):
    """What the baseline needs of an encoder (graphs.dense.encoder.TextEncoder is one)."""

    name: str
    path: Path
    fingerprint: str

    def encode_query(self, query: str) -> np.ndarray:
        """float32[dim], L2-normalised."""
        ...


class DenseBaseline(RankingAsker):
    """Answers a question with one dense strategy over the snapshot's embeddings.

    Each matrix is searched through its own HNSW index when `ark graph embed --ann` built
    one (`search="auto"`), else exactly.

    Raises:
        EmbeddingsError: (at construction) no embeddings, another encoder, or the strategy's
            variant was not built.
    """

    def __init__(
        self,
        snapshot: Snapshot,
        encoder: QueryEncoder,
        config: StrategyConfig,
        *,
        search: SearchMode = "auto",
    ) -> None:
        self.snapshot = snapshot
        self.encoder = encoder
        self.config = config
        self.original = open_snapshot_index(snapshot, encoder=encoder, mode=search)
        self.modified = (
            open_snapshot_index(snapshot, encoder=encoder, variant=config.variant, mode=search)
            if config.needs_variant
            else None
        )

    def ranked(self, question: str) -> list[str]:
        """External ids retrieved for `question`, in stage order."""
        vector = self.encoder.encode_query(question)
        nodes = retrieve(vector, self.original, self.modified, self.config)
        return [self.snapshot.external_id(node) for node in nodes]

    def describe(self) -> tuple[str, dict[str, Any]]:
        """The model name and config recorded with each answer."""
        label = self.config.label
        return label, {**asdict(self.config), "method": label, "encoder": self.encoder.name}


def run_dense_baseline(
    request: RunRequest,
    strategy: StrategyConfig,
    encoder: QueryEncoder,
    *,
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
    search: SearchMode = "auto",
) -> RunPlan:
    """Score one dense strategy on a question set into `request.out` (resumable).

    Args:
        request: The same request an agent evaluation takes (questions, run directory).
        strategy: The dense retriever.
        encoder: Encodes the questions; must be the encoder of the snapshot's embeddings.
        on_start: Called with the plan once the questions are loaded.
        on_outcome: Called after each question is on disk.
        search: Through the HNSW indexes ("auto" when built, "ann") or the exact scan.

    Raises:
        RunStoreError, GraphError, QAError: as `evals.runs.runner.execute`.
    """
    request = replace(request, concurrency=1)  # one question at a time: encoding is the cost
    method = {
        **asdict(strategy),
        "method": strategy.label,
        "encoder": encoder.name,
        "encoder_hash": encoder.fingerprint,
    }
    return execute(
        request,
        config=request.run_config({"baseline": method}),
        make_asker=lambda snapshot: DenseBaseline(snapshot, encoder, strategy, search=search),
        on_start=on_start,
        on_outcome=on_outcome,
    )
