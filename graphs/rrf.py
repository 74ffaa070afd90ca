"""Reciprocal rank fusion: the one formula every fused ranking in ARK is scored by.

    score(c) = sum_i  w_i / (k + rank_i(c))          (a ranking that lacks c adds nothing)

It sits at the bottom of the layers so that `ark fuse`, its grid search (rank/) and the rule
policy's keyword + dense merge (agent/models/rules/) all import it: a tuned configuration
scores exactly as it was tuned, and the rule policy's RRF is the same arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def rank_matrix(rankings: Sequence[Sequence[str]]) -> tuple[list[str], np.ndarray]:
    """The union of ids (first-appearance order) and their 1-based ranks per ranking.

    An id listed twice in one ranking keeps its first (best) rank there.

    Returns:
        (ids, ranks) with ranks of shape (len(rankings), len(ids)); +inf where absent.
    """
    position: dict[str, int] = {}
    for ranking in rankings:
        for node in ranking:
            position.setdefault(node, len(position))
    ranks = np.full((len(rankings), len(position)), np.inf)
    for row, ranking in enumerate(rankings):
        for rank, node in enumerate(dict.fromkeys(ranking), start=1):
            ranks[row, position[node]] = rank
    return list(position), ranks


def rrf_scores(ranks: np.ndarray, weights: np.ndarray, k: float) -> np.ndarray:
    """RRF scores of every id: ``weights @ 1 / (k + ranks)`` (absent ids add 0).

    Args:
        ranks: (n_rankings, n_ids) ranks, +inf where absent.
        weights: (n_rankings,) or (n_configs, n_rankings).
        k: RRF constant.

    Returns:
        (n_ids,) or (n_configs, n_ids) scores.
    """
    return np.asarray(weights @ (1.0 / (k + ranks)))


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], weights: Sequence[float] | np.ndarray, k: float
) -> tuple[list[str], list[float]]:
    """Fuse ranked id lists by weighted RRF, best first, ties by first appearance.

    Args:
        rankings: One ranked id list per input.
        weights: One weight per input (the caller checks the count).
        k: RRF constant.

    Returns:
        (ids, scores); an id every weighted input lacks scores 0 and is dropped.
    """
    ids, ranks = rank_matrix(rankings)
    if not ids:
        return [], []
    scores = rrf_scores(ranks, np.asarray(weights, dtype=float), k)
    order = np.argsort(-scores, kind="stable")
    kept = [int(i) for i in order if scores[i] > 0]
    return [ids[i] for i in kept], [float(scores[i]) for i in kept]
