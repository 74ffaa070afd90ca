"""The one RRF (graphs/rrf.py): exact against fractions, and every caller scores through it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from agent.models.rules.rank_fusion import RRF_K
from agent.models.rules.rank_fusion import reciprocal_rank_fusion as rule_rrf
from graphs.rrf import rank_matrix, reciprocal_rank_fusion, rrf_scores
from rank.fusion.fuse import fuse_rankings
from rank.fusion.grid import prepare_question, score_grid
from tools.listing_parse import ListedNode

RANKINGS = [["a", "b", "c", "d"], ["c", "e", "a"], ["e", "f", "b", "a", "c"]]


def exact(rankings: list[list[str]], weights: list[Fraction], k: int) -> dict[str, Fraction]:
    """sum_i w_i / (k + rank_i(c)) in exact arithmetic, ids in first-appearance order."""
    scores: dict[str, Fraction] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, node in enumerate(ranking, start=1):
            scores[node] = scores.get(node, Fraction(0)) + weight / (k + rank)
    return scores


def exact_order(scores: dict[str, Fraction]) -> list[str]:
    return sorted(scores, key=lambda node: -scores[node])  # stable: first appearance on ties


@pytest.mark.parametrize("k", [1, 10, 60])
@pytest.mark.parametrize(
    "weights", [(1, 1, 1), (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), (2, 0, 1)]
)
def test_scores_and_order_match_exact_arithmetic(k: int, weights: tuple[Fraction, ...]) -> None:
    reference = exact(RANKINGS, [Fraction(w) for w in weights], k)
    ids, scores = reciprocal_rank_fusion(RANKINGS, [float(w) for w in weights], float(k))
    kept = {node: score for node, score in reference.items() if score > 0}
    assert ids == exact_order(kept)
    assert scores == [pytest.approx(float(kept[node]), rel=1e-15) for node in ids]


def test_ties_keep_first_appearance() -> None:
    ids, scores = reciprocal_rank_fusion([["x", "y"], ["y", "x"]], [1.0, 1.0], 60.0)
    assert ids == ["x", "y"] and scores[0] == scores[1]


def test_rank_matrix_marks_absent_ids_infinite_and_keeps_a_repeat_first_rank() -> None:
    ids, ranks = rank_matrix([["a", "b", "a"], ["c"]])
    assert ids == ["a", "b", "c"]
    assert ranks.tolist() == [[1, 2, np.inf], [np.inf, np.inf, 1]]
    assert rrf_scores(ranks, np.array([1.0, 1.0]), 0.0).tolist() == [1.0, 0.5, 1.0]


def test_every_caller_fuses_through_the_one_function() -> None:
    weights = np.array([0.5, 0.25, 0.25])
    reference = reciprocal_rank_fusion(RANKINGS, weights, 60.0)
    assert fuse_rankings(RANKINGS, weights, 60.0) == reference

    nodes = [[ListedNode(node_id=i, name=i, type="t", score=None) for i in r] for r in RANKINGS]
    ones, _ = reciprocal_rank_fusion(RANKINGS, [1.0] * 3, float(RRF_K))
    assert [node.node_id for node in rule_rrf(nodes)] == ones

    best = reference[0][0]
    question = prepare_question(RANKINGS, [best], lambda _: True)
    hits, reciprocal = score_grid([question], weights[None, :], 60.0)
    assert hits.tolist() == [1.0] and reciprocal.tolist() == [1.0]
