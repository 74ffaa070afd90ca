"""GME's retrieval strategies over plain and graph-modified embeddings, cosine only, no graph.

Every strategy returns at most `budget` distinct internal ids in stage order (no global
rerank); later stages exclude earlier results. At the paper's budget of 40 the schedules are
plain 40; modified 40; alternate 20 + 20 interleaved; two-stage 20 seeds + 20 fused;
requery 16/12/12; chained-requery 6/6/14/14. Other budgets scale the quotas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from graphs.dense.cosine import top_of
from graphs.dense.search import QueryScan, VectorIndex
from graphs.errors import ConfigError

Strategy = Literal["plain", "modified", "alternate", "two-stage", "requery", "chained-requery"]
Control = Literal["none", "alpha0", "original"]
STRATEGIES: tuple[Strategy, ...] = (
    "plain",
    "modified",
    "alternate",
    "two-stage",
    "requery",
    "chained-requery",
)
CONTROLS: tuple[Control, ...] = ("none", "alpha0", "original")
PAPER_BUDGET = 40
SCHEDULES: dict[str, tuple[tuple[str, int], ...]] = {
    "two-stage": (("original", 20), ("fused", 20)),
    "requery": (("original", 16), ("fused", 12), ("shifted", 12)),
    "chained-requery": (("original", 6), ("fused", 6), ("shifted", 14), ("shifted", 14)),
}


@dataclass(frozen=True, kw_only=True)
class StrategyConfig:
    """One dense retriever (paper section 3.4 and appendix C).

    Attributes:
        strategy: Which schedule.
        variant: The graph-modified matrix used by every strategy but plain.
        control: "alpha0" sets the fusion weight to 0; "original" fuses in the original
            space (seed mean and candidates both original): the controls without graph
            conditioning. Only multi-stage strategies accept a control.
        budget: Nodes returned (paper: 40).
        alpha: Fusion weight of the seed-mean similarity (paper: 0.5).
        query_shift: Weight of the previous stage's mean in a shifted query (paper: 0.3).
        pool_factor: A fused stage pools this many times the budget from each space.
    """

    strategy: Strategy = "plain"
    variant: str = "walk"
    control: Control = "none"
    budget: int = PAPER_BUDGET
    alpha: float = 0.5
    query_shift: float = 0.3
    pool_factor: int = 4

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ConfigError(
                f"unknown strategy {self.strategy!r}; choose from {', '.join(STRATEGIES)}"
            )
        if self.control not in CONTROLS:
            choices = ", ".join(CONTROLS)
            raise ConfigError(f"unknown control {self.control!r}; choose from {choices}")
        if self.control != "none" and self.strategy not in SCHEDULES:
            raise ConfigError(
                f"--control {self.control} applies to two-stage, requery and chained-requery "
                f"(the strategies with a fused stage), not {self.strategy}"
            )
        if self.budget < 1:
            raise ConfigError(f"budget must be >= 1, got {self.budget}")

    @property
    def label(self) -> str:
        """A short run name, e.g. `dense-requery-walk` or `dense-requery-walk-alpha0`."""
        parts = ["dense", self.strategy]
        if self.strategy != "plain" and self.control != "original":
            parts.append(self.variant)
        if self.control != "none":
            parts.append(self.control)
        return "-".join(parts)

    @property
    def needs_variant(self) -> bool:
        """Whether the strategy reads a graph-modified matrix."""
        return self.strategy != "plain" and self.control != "original"


def quotas(schedule: tuple[tuple[str, int], ...], budget: int) -> list[tuple[str, int]]:
    """The stage quotas scaled from the paper's 40 to `budget` (they sum to `budget`)."""
    cuts = np.round(np.cumsum([size for _, size in schedule]) * budget / PAPER_BUDGET)
    sizes = np.diff(np.r_[0, cuts]).astype(int)
    return [(stage, int(size)) for (stage, _), size in zip(schedule, sizes, strict=True)]


def retrieve(
    query: np.ndarray,
    original: VectorIndex,
    modified: VectorIndex | None,
    config: StrategyConfig,
) -> list[int]:
    """Internal ids for unit query vector `query`, in stage order.

    Args:
        query: float32[dim], L2-normalised.
        original: The plain embeddings.
        modified: The graph-modified embeddings (None only when config.needs_variant is False).
        config: The strategy.
    """
    budget = config.budget
    if config.strategy == "plain":
        return original.top_k(query, budget)[0].tolist()
    if not config.needs_variant:
        modified = original  # the original-space control never reads a modified matrix
    if modified is None:
        raise ConfigError(f"strategy {config.strategy} needs the {config.variant} embeddings")
    if config.strategy == "modified":
        return modified.top_k(query, budget)[0].tolist()
    if config.strategy == "alternate":
        return _alternate(
            original.top_k(query, 2 * budget)[0], modified.top_k(query, 2 * budget)[0], budget
        )
    return _staged(query, original, modified, config)


def _alternate(first: np.ndarray, second: np.ndarray, budget: int) -> list[int]:
    taken: dict[int, None] = {}
    for a, b in zip(first.tolist(), second.tolist(), strict=False):
        for node in (a, b):
            if len(taken) < budget:
                taken.setdefault(node)
    return list(taken)


def _staged(
    query: np.ndarray, original: VectorIndex, modified: VectorIndex, config: StrategyConfig
) -> list[int]:
    base = original.query_scan(query)  # exact: one scan of the original space serves every stage
    taken: list[int] = []
    previous: list[int] = []
    seeds: list[int] = []
    for stage, size in quotas(SCHEDULES[config.strategy], config.budget):
        if stage == "original":
            found = base.top_k(size, exclude=taken)[0].tolist()
            seeds = found
        elif stage == "fused":
            found = _fused(query, base, seeds, taken, size, original, modified, config)
        else:
            shifted = (1 - config.query_shift) * query + config.query_shift * _mean(
                original, previous
            )
            found = original.top_k(_unit(shifted), size, exclude=taken)[0].tolist()
        taken += found
        previous = found
    return taken


def _fused(
    query: np.ndarray,
    base: QueryScan,
    seeds: list[int],
    taken: list[int],
    size: int,
    original: VectorIndex,
    modified: VectorIndex,
    config: StrategyConfig,
) -> list[int]:
    """s(n) = (1 - a) cos(q, x_n) + a cos(m, z_n), m the mean of the seeds' z (paper eq. 4).

    `base` selects by cos(q, x) (`original.query_scan(query)`); the pool is the best of both
    spaces, rescored exactly.
    """
    space = original if config.control == "original" else modified
    alpha = 0.0 if config.control == "alpha0" else config.alpha
    seed_mean = _unit(_mean(space, seeds))
    depth = config.pool_factor * config.budget
    pool = np.union1d(
        base.top_k(depth, exclude=taken)[0],
        space.top_k(seed_mean, depth, exclude=taken)[0],
    )
    scores = (1 - alpha) * original.scores_of(query, pool) + alpha * space.scores_of(
        seed_mean, pool
    )
    return top_of(scores.astype(np.float32), pool, size)[0].tolist()


def _mean(index: VectorIndex, nodes: list[int]) -> np.ndarray:
    if not nodes:
        return np.zeros(index.matrix.shape[1], dtype=np.float32)
    return index.matrix[np.asarray(nodes, dtype=np.int64)].astype(np.float32).mean(axis=0)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)
