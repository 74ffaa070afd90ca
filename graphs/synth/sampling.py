"""Vectorised edge sampling: skewed popularity, per-source fan-out, draws within groups."""

from __future__ import annotations

import numpy as np


def distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort and a neighbour compare: much faster than hashing here)."""
    ordered = np.sort(values, kind="stable")
    keep = np.ones(ordered.size, dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def popularity(rng: np.random.Generator, n: int, *, shape: float = 1.3) -> np.ndarray:
    """Heavy-tailed weights (Pareto), so a few nodes collect many edges as in real graphs."""
    return rng.pareto(shape, size=n) + 1.0


def fan_out(rng: np.random.Generator, n: int, *, mean: float, low: int, high: int) -> np.ndarray:
    """How many edges each of `n` sources draws: log-normal around `mean`, clipped to a range."""
    raw = rng.lognormal(mean=np.log(max(mean, 1e-9)), sigma=0.6, size=n)
    return np.clip(np.rint(raw), low, high).astype(np.int64)


def draw_weighted(rng: np.random.Generator, weights: np.ndarray, size: int) -> np.ndarray:
    """Draw `size` positions of `weights` with probability proportional to the weight."""
    cumulative = np.cumsum(weights, dtype=np.float64)
    picks = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
    return np.minimum(picks, len(weights) - 1)


def draw_in_groups(
    rng: np.random.Generator, pool_groups: np.ndarray, weights: np.ndarray, wanted: np.ndarray
) -> np.ndarray:
    """For every wanted group, draw one pool position of that group, proportionally to weight.

    Args:
        rng: The graph's random generator.
        pool_groups: int[P] group of every pool member.
        weights: float[P] positive weight of every pool member.
        wanted: int[M] the group each draw must come from.

    Returns:
        int64[M] pool positions; -1 where the wanted group has no member.
    """
    order = np.argsort(pool_groups, kind="stable")
    sorted_groups = pool_groups[order]
    cumulative = np.cumsum(weights[order], dtype=np.float64)
    starts = np.searchsorted(sorted_groups, wanted, side="left")
    ends = np.searchsorted(sorted_groups, wanted, side="right")
    low = np.where(starts > 0, cumulative[np.maximum(starts - 1, 0)], 0.0)
    high = np.where(ends > 0, cumulative[np.maximum(ends - 1, 0)], 0.0)
    positions = np.searchsorted(cumulative, low + rng.random(wanted.size) * (high - low), "right")
    positions = np.clip(positions, starts, np.maximum(ends - 1, starts))
    picked = order[np.minimum(positions, order.size - 1)].astype(np.int64)
    picked[ends == starts] = -1
    return picked


def bipartite(
    rng: np.random.Generator,
    sources: np.ndarray,
    targets: np.ndarray,
    counts: np.ndarray,
    target_weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Link each source to `counts[i]` targets drawn by weight (repeats are removed later).

    Args:
        rng: The graph's random generator.
        sources: Node indices of the sources.
        targets: Node indices of the targets.
        counts: Edges to draw per source.
        target_weights: Popularity of every target; uniform when None.

    Returns:
        (src, dst) node index arrays.
    """
    weights = np.ones(targets.size) if target_weights is None else target_weights
    src = np.repeat(sources, counts)
    dst = targets[draw_weighted(rng, weights, int(src.size))]
    return src, dst


def grouped(
    rng: np.random.Generator,
    sources: np.ndarray,
    source_groups: np.ndarray,
    targets: np.ndarray,
    target_groups: np.ndarray,
    counts: np.ndarray,
    *,
    same_group: float,
    target_weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`bipartite`, but a share of the draws stays within the source's group.

    Draws outside the source's group go to a uniformly drawn other group, weighted by popularity
    inside it, so neighbourhoods are topical but not closed.
    """
    weights = np.ones(targets.size) if target_weights is None else target_weights
    src_pos = np.repeat(np.arange(sources.size), counts)
    groups = source_groups[src_pos].copy()
    n_groups = int(max(source_groups.max(), target_groups.max())) + 1
    leave = rng.random(src_pos.size) >= same_group
    groups[leave] = rng.integers(0, n_groups, size=int(leave.sum()))
    picked = draw_in_groups(rng, target_groups, weights, groups)
    ok = picked >= 0
    return sources[src_pos[ok]], targets[picked[ok]]
