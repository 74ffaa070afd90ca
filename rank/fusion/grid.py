"""Grid search of static and dynamic RRF on validation questions (GRASP's Appendix 7 grids).

Static: the weights range over the simplex in steps of 0.05 (for two rankings exactly
GRASP's w ∈ {0, 0.05, ..., 1} with 1 - w on the other) and k over {1, 2, 5, 10, 20, 40, 60,
80, 100}. Dynamic (a plan run first): k over {5, 10, 20, 40, 80, 150, 300}, w_bucket per
n_cand bucket in {1.0, 1.2, 1.4, 1.6, 2.0} x {0.8, 1.0, 1.2, 1.4} x {0.2, 0.4, 0.6, 0.8} x
{0, 0.05, 0.1} x {0, 0.05, 0.1} and m_risk per risk level (no_trade, weak, normal,
aggressive) in {0, 0.25, 0.5, 0.75} x {0.5, 0.75, 1.0, 1.25} x {0.75, 1.0, 1.25, 1.5} x
{1.0, 1.25, 1.5, 2.0}: GRASP's Appendix 7 grids exactly. Agents (an agent run first): the
same k, one weight per fused-length bucket and one multiplier per confidence level (see
rank/fusion/fuse.py), for each confidence signal.
A configuration is chosen by validation Hit@1, ties by MRR, under the chosen protocol.

Every dynamic configuration is scored without re-fusing: a question's top node depends only
on its own graph weight, so each question is fused once per distinct weight value and the
per-cell hit counts are summed over the lookup-table combinations with numpy.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphs.rrf import rank_matrix, rrf_scores
from rank.fusion.fuse import (
    LEVEL_FEATURES,
    AgentRRF,
    DynamicRRF,
    FusionSpec,
    PlanSignals,
    Signals,
    StaticRRF,
    cand_bucket,
    confidence_level,
    length_bucket,
    risk_index,
)
from rank.rankings import AgentSignals

WEIGHT_STEP = 0.05
STATIC_KS: tuple[float, ...] = (1, 2, 5, 10, 20, 40, 60, 80, 100)
DYNAMIC_KS: tuple[float, ...] = (5, 10, 20, 40, 80, 150, 300)
BUCKET_CHOICES: tuple[tuple[float, ...], ...] = ((0.25, 0.5, 1.0, 2.0),) * 5
LEVEL_CHOICES: tuple[tuple[float, ...], ...] = (
    (0.0,),
    (0.0, 0.25, 0.5, 0.75),
    (0.5, 0.75, 1.0, 1.25),
    (0.75, 1.0, 1.25, 1.5, 2.0),
)
"""Multiplier choices per level (empty, low, mid, high), after GRASP's m_risk ranges."""
W_BUCKET_CHOICES: tuple[tuple[float, ...], ...] = (
    (1.0, 1.2, 1.4, 1.6, 2.0),
    (0.8, 1.0, 1.2, 1.4),
    (0.2, 0.4, 0.6, 0.8),
    (0.0, 0.05, 0.1),
    (0.0, 0.05, 0.1),
)
"""GRASP's w_bucket grid, per n_cand bucket [1,10], [11,50], [51,100], [101,500], >500."""
M_RISK_CHOICES: tuple[tuple[float, ...], ...] = (
    (0.0, 0.25, 0.5, 0.75),
    (0.5, 0.75, 1.0, 1.25),
    (0.75, 1.0, 1.25, 1.5),
    (1.0, 1.25, 1.5, 2.0),
)
"""GRASP's m_risk grid, per risk level no_trade, weak, normal, aggressive."""


@dataclass(frozen=True)
class Question:
    """One validation question ready for scoring.

    Attributes:
        ranks: (n_rankings, n_ids) ranks, +inf where absent.
        eligible: Ids that count under the protocol (candidate types under STaRK).
        gold: Ids that are correct answers.
        signals: The graph ranking's metadata (plan or agent run), if any.
    """

    ranks: np.ndarray
    eligible: np.ndarray
    gold: np.ndarray
    signals: Signals | None = None


def prepare_question(
    rankings: Sequence[Sequence[str]],
    gold: Sequence[str],
    is_eligible: Callable[[str], bool],
    signals: Signals | None = None,
) -> Question:
    """Build the scoring arrays of one question."""
    ids, ranks = rank_matrix(rankings)
    gold_set = set(gold)
    eligible = np.array([is_eligible(node) for node in ids], dtype=bool)
    golden = np.array([node in gold_set for node in ids], dtype=bool) & eligible
    return Question(ranks, eligible, golden, signals)


def score_grid(
    questions: Sequence[Question], weights: np.ndarray, k: float
) -> tuple[np.ndarray, np.ndarray]:
    """Hit@1 and MRR sums over `questions` for every weight vector of `weights`.

    Args:
        questions: Prepared questions.
        weights: (n_configs, n_rankings).
        k: RRF constant.

    Returns:
        (hits, reciprocal ranks), each (n_configs,), summed over the questions.
    """
    hits = np.zeros(len(weights))
    reciprocal = np.zeros(len(weights))
    for question in questions:
        if not question.gold.any():
            continue
        scores = rrf_scores(question.ranks, weights, k)
        valid = (scores > 0) & question.eligible
        order = np.argsort(-scores, axis=1, kind="stable")
        valid_sorted = np.take_along_axis(valid, order, axis=1)
        gold_sorted = question.gold[order] & valid_sorted
        position = np.cumsum(valid_sorted, axis=1)
        found = gold_sorted.any(axis=1)
        first = np.argmax(gold_sorted, axis=1)
        rank = position[np.arange(len(weights)), first]
        reciprocal += np.where(found, 1.0 / np.maximum(rank, 1), 0.0)
        hits += found & (rank == 1)
    return hits, reciprocal


def simplex(n: int, step: float = WEIGHT_STEP) -> np.ndarray:
    """Every weight vector of `n` non-negative multiples of `step` summing to 1."""
    units = round(1 / step)
    rows = [c for c in itertools.product(range(units + 1), repeat=n - 1) if sum(c) <= units]
    return np.array([[units - sum(c), *c] for c in rows], dtype=np.float64) / units


@dataclass
class GridResult:
    """The outcome of a grid search.

    Attributes:
        best: The chosen configuration.
        static: The best static configuration and its (Hit@1, MRR) on validation.
        dynamic: The best dynamic configuration and its scores (None without a plan run).
        agents: The best agent-signal configuration and its scores (None without an agent run).
        heatmap: Hit@1 per (graph weight, k): the best over the other weights when n > 2.
        weights_axis: The graph weights of the heatmap's rows.
        ks: The k values of its columns.
        questions: Validation questions scored.
    """

    best: FusionSpec
    static: tuple[StaticRRF, float, float]
    dynamic: tuple[DynamicRRF, float, float] | None
    agents: tuple[AgentRRF, float, float] | None
    heatmap: np.ndarray
    weights_axis: list[float]
    ks: list[float]
    questions: int
    notes: list[str] = field(default_factory=list)


def _key(hits: np.ndarray, reciprocal: np.ndarray, n: int) -> np.ndarray:
    return hits + reciprocal / (n + 1)


def search_static(
    questions: Sequence[Question], n_rankings: int, graph_index: int = 0
) -> tuple[StaticRRF, float, float, np.ndarray, list[float]]:
    """Best static (weights, k); also the Hit@1 heatmap over (graph weight, k)."""
    grid = simplex(n_rankings)
    axis = sorted({round(float(w), 4) for w in grid[:, graph_index]})
    heat = np.zeros((len(axis), len(STATIC_KS)))
    best: tuple[float, StaticRRF, float, float] | None = None
    count = max(len(questions), 1)
    for column, k in enumerate(STATIC_KS):
        hits, reciprocal = score_grid(questions, grid, k)
        keys = _key(hits, reciprocal, len(questions))
        for row, w in enumerate(axis):
            heat[row, column] = hits[np.isclose(grid[:, graph_index], w)].max() / count
        top = int(np.argmax(keys))
        if best is None or keys[top] > best[0]:
            spec = StaticRRF(weights=tuple(round(float(x), 4) for x in grid[top]), k=k)
            best = (keys[top], spec, hits[top] / count, reciprocal[top] / count)
    assert best is not None  # STATIC_KS is not empty
    return best[1], best[2], best[3], heat, axis


Cell = Callable[[Signals], tuple[int, int]]


def _cell_sums(
    questions: Sequence[Question],
    cell: Cell,
    shape: tuple[int, int],
    k: float,
    values: np.ndarray,
    graph_index: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Hits and reciprocal ranks per (bucket, level, graph weight value)."""
    hits, reciprocal = np.zeros((*shape, len(values))), np.zeros((*shape, len(values)))
    for question in questions:
        assert question.signals is not None  # the searches check every question has them
        n = question.ranks.shape[0]
        weights = np.ones((len(values), n))
        weights[:, graph_index] = values
        h, r = score_grid([question], weights, k)
        where = cell(question.signals)
        hits[where] += h
        reciprocal[where] += r
    return hits, reciprocal


def _best_tables(
    questions: Sequence[Question],
    cell: Cell,
    buckets: tuple[tuple[float, ...], ...],
    levels: tuple[tuple[float, ...], ...],
    graph_index: int,
) -> tuple[float, float, tuple[float, ...], tuple[float, ...], float, float]:
    """(key, k, bucket weights, level multipliers, Hit@1, MRR) of the best lookup tables."""
    values = np.unique([b * m for bs in buckets for b in bs for ms in levels for m in ms])
    bucket_combos = np.array(list(itertools.product(*buckets)))
    level_combos = np.array(list(itertools.product(*levels)))
    count = len(questions)
    best: tuple[float, float, tuple[float, ...], tuple[float, ...], float, float] | None = None
    for k in DYNAMIC_KS:
        shape = (len(buckets), len(levels))
        hits, reciprocal = _cell_sums(questions, cell, shape, k, values, graph_index)
        total_h = np.zeros((len(bucket_combos), len(level_combos)))
        total_r = np.zeros_like(total_h)
        for b in range(len(buckets)):
            for level in range(len(levels)):
                if not hits[b, level].any() and not reciprocal[b, level].any():
                    continue
                index = np.searchsorted(
                    values, np.outer(bucket_combos[:, b], level_combos[:, level])
                )
                total_h += hits[b, level][index]
                total_r += reciprocal[b, level][index]
        keys = _key(total_h, total_r, count)
        i, j = np.unravel_index(int(np.argmax(keys)), keys.shape)
        if best is None or keys[i, j] > best[0]:
            best = (
                float(keys[i, j]),
                k,
                tuple(float(x) for x in bucket_combos[i]),
                tuple(float(x) for x in level_combos[j]),
                float(total_h[i, j] / count),
                float(total_r[i, j] / count),
            )
    assert best is not None  # DYNAMIC_KS is not empty
    return best


def search_dynamic(
    questions: Sequence[Question], graph_index: int = 0
) -> tuple[DynamicRRF, float, float] | None:
    """Best GRASP dynamic configuration, or None unless every question has plan metadata."""
    if not questions or not all(isinstance(q.signals, PlanSignals) for q in questions):
        return None

    def cell(signals: Signals) -> tuple[int, int]:
        assert isinstance(signals, PlanSignals)
        return cand_bucket(signals), risk_index(signals)

    _, k, buckets, risks, hit, mrr = _best_tables(
        questions, cell, W_BUCKET_CHOICES, M_RISK_CHOICES, graph_index
    )
    spec = DynamicRRF(
        k=k,
        bucket_weights=buckets,
        risk_multipliers=risks,
        n_rankings=questions[0].ranks.shape[0],
        graph_index=graph_index,
    )
    return spec, hit, mrr


def search_agents(
    questions: Sequence[Question], graph_index: int = 0
) -> tuple[AgentRRF, float, float] | None:
    """Best agent-signal configuration, or None unless every question has agent metadata."""
    if not questions or not all(isinstance(q.signals, AgentSignals) for q in questions):
        return None
    best: tuple[float, AgentRRF, float, float] | None = None
    for feature in LEVEL_FEATURES:

        def cell(signals: Signals, feature: str = feature) -> tuple[int, int]:
            assert isinstance(signals, AgentSignals)
            return length_bucket(signals), confidence_level(signals, feature)  # type: ignore[arg-type]

        key, k, buckets, levels, hit, mrr = _best_tables(
            questions, cell, BUCKET_CHOICES, LEVEL_CHOICES, graph_index
        )
        if best is None or key > best[0]:
            spec = AgentRRF(
                k=k,
                feature=feature,
                bucket_weights=buckets,
                level_multipliers=levels,
                n_rankings=questions[0].ranks.shape[0],
                graph_index=graph_index,
            )
            best = (key, spec, hit, mrr)
    assert best is not None
    return best[1], best[2], best[3]


def grid_search(
    questions: Sequence[Question],
    n_rankings: int,
    *,
    graph_index: int = 0,
    modes: Sequence[str] = ("static", "dynamic", "agents"),
) -> GridResult:
    """Tune static, dynamic and agent-signal RRF on `questions`; the best on validation wins.

    Args:
        questions: Validation questions.
        n_rankings: Rankings fused per question.
        graph_index: The agents' ranking (dynamic RRF weighs it per question).
        modes: Which variants may be chosen ("static", "dynamic", "agents").
    """
    static, s_hit, s_mrr, heat, axis = search_static(questions, n_rankings, graph_index)
    dynamic = search_dynamic(questions, graph_index) if "dynamic" in modes else None
    agents = search_agents(questions, graph_index) if "agents" in modes else None
    notes = []
    if "dynamic" in modes and dynamic is None:
        notes.append("dynamic RRF skipped: the first source is not a plan run (`ark plan --qa`)")
    if "agents" in modes and agents is None and len(modes) == 1:
        notes.append("agent-signal RRF skipped: the first source is not an agent run")
    scored: list[tuple[float, float, FusionSpec]] = []
    if "static" in modes:
        scored.append((s_hit, s_mrr, static))
    for found in (dynamic, agents):
        if found is not None:
            scored.append((found[1], found[2], found[0]))
    best: FusionSpec = max(scored, key=lambda row: (row[0], row[1]))[2] if scored else static
    return GridResult(
        best=best,
        static=(static, s_hit, s_mrr),
        dynamic=dynamic,
        agents=agents,
        heatmap=heat,
        weights_axis=axis,
        ks=list(STATIC_KS),
        questions=len(questions),
        notes=notes,
    )
