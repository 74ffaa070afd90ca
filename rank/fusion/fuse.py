"""Reciprocal rank fusion: static (weights + k) and dynamic (graph weight from agent metadata).

Static RRF generalises GRASP's two-input form to n rankings::

    score(c) = sum_i  w_i / (k + rank_i(c))          (a ranking that lacks c adds nothing)

Dynamic RRF (GRASP §3.2) sets the graph ranking's weight per question from that question's
metadata and keeps every other ranking at weight 1::

    w_graph(q) = bucket_weights[b(q)] * multipliers[l(q)]
    score(c)   = w_graph(q) / (k + rank_graph(c)) + sum_{i != graph} 1 / (k + rank_i(c))

Mode `dynamic` is GRASP's: the graph ranking is a plan run (`ark plan --qa`), b(q) buckets
the plan's candidate count n_cand into [1,10], [11,50], [51,100], [101,500], >500 (an empty
candidate set falls in the first) and l(q) is the plan's risk level (no_trade, weak, normal,
aggressive). Mode `agents` keys on an agent run's own signals instead (`AgentSignals`): b(q)
buckets the length of the agents' fused list and l(q) is a confidence level read from one
signal, chosen on validation among the agents' agreement on the top node, the vote entropy
and the number of neighbour calls (level 0: an empty fused list).

Ties are broken by first appearance in the rankings taken in order, so the result is
deterministic. The arithmetic lives in graphs/rrf.py, shared by fusion, the grid search and
the rule policy, so a tuned configuration scores exactly as it was tuned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from graphs.errors import ArkError
from graphs.rrf import reciprocal_rank_fusion
from rank.rankings import AgentSignals
from tools.plans.model import RISK_LEVELS

LevelFeature = Literal["agreement", "entropy", "neighbor_calls"]
LEVEL_FEATURES: tuple[LevelFeature, ...] = ("agreement", "entropy", "neighbor_calls")
BUCKET_EDGES: tuple[int, ...] = (1, 3, 10, 30)
"""Upper bounds of the fused-length buckets: [1,1], [2,3], [4,10], [11,30], >30."""
BUCKET_LABELS: tuple[str, ...] = ("1", "2-3", "4-10", "11-30", ">30")
LEVEL_LABELS: tuple[str, ...] = ("empty", "low", "mid", "high")
CAND_EDGES: tuple[int, ...] = (10, 50, 100, 500)
"""Upper bounds of GRASP's n_cand buckets: [1,10], [11,50], [51,100], [101,500], >500."""
CAND_LABELS: tuple[str, ...] = ("1-10", "11-50", "51-100", "101-500", ">500")
DEFAULT_K = 60.0
"""The usual RRF constant (Cormack et al.), used when nothing was tuned."""


class FusionError(ArkError, ValueError):
    """A fusion configuration does not fit the rankings it is applied to."""


@dataclass(frozen=True)
class PlanSignals:
    """What a plan run records per question for dynamic RRF: its candidate count and risk."""

    n_cand: int
    risk_level: str


def cand_bucket(signals: PlanSignals) -> int:
    """The 0..4 n_cand bucket (see `CAND_EDGES`; 0 candidates fall in the first)."""
    return int(np.searchsorted(CAND_EDGES, max(signals.n_cand, 1), side="left"))


def risk_index(signals: PlanSignals) -> int:
    """The 0..3 index of the risk level (no_trade .. aggressive).

    Raises:
        FusionError: an unknown risk level.
    """
    if signals.risk_level not in RISK_LEVELS:
        raise FusionError(
            f"risk level {signals.risk_level!r} is not one of {', '.join(RISK_LEVELS)}"
        )
    return RISK_LEVELS.index(signals.risk_level)  # type: ignore[arg-type,unused-ignore]


def confidence_level(signals: AgentSignals, feature: LevelFeature) -> int:
    """The 0..3 confidence level of one question under `feature` (0: empty fused list)."""
    if signals.fused_length == 0 or signals.agents == 0:
        return 0
    if feature == "agreement":
        share = signals.agreement
        return 1 if share < 0.5 else 2 if share < 1.0 else 3
    if feature == "entropy":
        entropy = signals.vote_entropy
        return 1 if entropy > 0.8 else 2 if entropy > 0.4 else 3
    calls = signals.neighbor_calls
    return 1 if calls == 0 else 2 if calls <= 2 else 3


def length_bucket(signals: AgentSignals) -> int:
    """The 0..4 bucket of the fused-list length (see `BUCKET_EDGES`)."""
    return int(np.searchsorted(BUCKET_EDGES, max(signals.fused_length, 1), side="left"))


@dataclass(frozen=True, kw_only=True)
class StaticRRF:
    """Fixed weights, one per ranking, and one constant k."""

    weights: tuple[float, ...]
    k: float = DEFAULT_K
    mode: Literal["static"] = "static"

    def weights_for(self, signals: Signals | None) -> np.ndarray:
        """The weight vector (the same for every question)."""
        return np.asarray(self.weights, dtype=np.float64)


@dataclass(frozen=True, kw_only=True)
class DynamicRRF:
    """GRASP's dynamic RRF: the graph weight from the plan's n_cand bucket and risk level.

    Attributes:
        k: RRF constant.
        bucket_weights: w_bucket, one weight per n_cand bucket (5, see `CAND_EDGES`).
        risk_multipliers: m_risk, one multiplier per risk level (4, no_trade .. aggressive).
        n_rankings: How many rankings are fused.
        graph_index: Which ranking is the plan run (the graph branch).
    """

    k: float
    bucket_weights: tuple[float, ...]
    risk_multipliers: tuple[float, ...]
    n_rankings: int = 2
    graph_index: int = 0
    mode: Literal["dynamic"] = "dynamic"

    def graph_weight(self, signals: PlanSignals) -> float:
        """w_graph(q) = w_bucket[b(q)] * m_risk[r(q)] for one question."""
        return (
            self.bucket_weights[cand_bucket(signals)] * self.risk_multipliers[risk_index(signals)]
        )

    def weights_for(self, signals: Signals | None) -> np.ndarray:
        """Weights for one question (raises when the graph ranking is not a plan run)."""
        if not isinstance(signals, PlanSignals):
            raise FusionError(
                "dynamic RRF keys on the plan's n_cand and risk_level, but the first source "
                "is not a plan run; put a run of `ark plan SNAPSHOT --qa ...` first, or use "
                "--mode agents (agent-run signals) or static"
            )
        weights = np.ones(self.n_rankings, dtype=np.float64)
        weights[self.graph_index] = self.graph_weight(signals)
        return weights


@dataclass(frozen=True, kw_only=True)
class AgentRRF:
    """Per-question graph weight from an agent run's own signals (mode `agents`).

    Attributes:
        k: RRF constant.
        feature: The signal that sets the confidence level.
        bucket_weights: One weight per fused-length bucket (5).
        level_multipliers: One multiplier per confidence level (4; level 0 = empty list).
        n_rankings: How many rankings are fused.
        graph_index: Which ranking is the agents' (the graph branch).
    """

    k: float
    feature: LevelFeature
    bucket_weights: tuple[float, ...]
    level_multipliers: tuple[float, ...]
    n_rankings: int = 2
    graph_index: int = 0
    mode: Literal["agents"] = "agents"

    def graph_weight(self, signals: AgentSignals) -> float:
        """w_graph(q) for one question."""
        bucket = self.bucket_weights[length_bucket(signals)]
        return bucket * self.level_multipliers[confidence_level(signals, self.feature)]

    def weights_for(self, signals: Signals | None) -> np.ndarray:
        """Weights for one question (raises when the graph ranking carries no agent metadata)."""
        if not isinstance(signals, AgentSignals):
            raise FusionError(
                "dynamic RRF needs the agents' metadata, but the graph ranking has none; "
                "put an agent run (from `ark eval`) first, or use static RRF"
            )
        weights = np.ones(self.n_rankings, dtype=np.float64)
        weights[self.graph_index] = self.graph_weight(signals)
        return weights


Signals = AgentSignals | PlanSignals
FusionSpec = StaticRRF | DynamicRRF | AgentRRF


def spec_record(spec: FusionSpec) -> dict[str, Any]:
    """JSON-ready form of a spec (`spec_from_record` reads it back)."""
    return asdict(spec)


def spec_from_record(record: Mapping[str, Any]) -> FusionSpec:
    """Rebuild a spec saved by `spec_record`.

    Raises:
        FusionError: an unknown mode or missing fields (the message lists them).
    """
    try:
        if record.get("mode") == "static":
            return StaticRRF(weights=tuple(record["weights"]), k=float(record["k"]))
        if record.get("mode") == "dynamic" and "risk_multipliers" in record:
            return DynamicRRF(
                k=float(record["k"]),
                bucket_weights=tuple(record["bucket_weights"]),
                risk_multipliers=tuple(record["risk_multipliers"]),
                n_rankings=int(record["n_rankings"]),
                graph_index=int(record.get("graph_index", 0)),
            )
        if record.get("mode") in ("agents", "dynamic"):  # "dynamic": specs before plan runs
            return AgentRRF(
                k=float(record["k"]),
                feature=record["feature"],
                bucket_weights=tuple(record["bucket_weights"]),
                level_multipliers=tuple(record["level_multipliers"]),
                n_rankings=int(record["n_rankings"]),
                graph_index=int(record.get("graph_index", 0)),
            )
    except (KeyError, TypeError, ValueError) as error:
        raise FusionError(f"incomplete fusion spec {dict(record)!r}: {error}") from error
    raise FusionError(
        f"fusion spec mode must be 'static', 'dynamic' or 'agents', got {record.get('mode')!r}"
    )


def fuse_rankings(
    rankings: Sequence[Sequence[str]], weights: np.ndarray, k: float, *, depth: int | None = None
) -> tuple[list[str], list[float]]:
    """Fuse ranked id lists by weighted RRF.

    Args:
        rankings: One ranked id list per input, in spec order.
        weights: One weight per input.
        k: RRF constant.
        depth: Keep the best `depth` ids (None: all).

    Returns:
        (ids, scores), best first; an id every weighted input lacks scores 0 and is dropped.
    """
    if len(weights) != len(rankings):
        raise FusionError(f"{len(weights)} weights for {len(rankings)} rankings")
    ids, scores = reciprocal_rank_fusion(rankings, weights, k)
    return ids[:depth], scores[:depth]


def apply_spec(
    spec: FusionSpec,
    rankings: Sequence[Sequence[str]],
    signals: Signals | None,
    *,
    depth: int | None = None,
) -> tuple[list[str], list[float]]:
    """Fuse one question's rankings under `spec` (see `fuse_rankings`)."""
    weights = spec.weights_for(signals)
    if len(weights) != len(rankings):
        raise FusionError(
            f"the fusion spec weighs {len(weights)} rankings but {len(rankings)} were given; "
            "pass the same sources, in the same order, as when it was tuned"
        )
    return fuse_rankings(rankings, weights, spec.k, depth=depth)
