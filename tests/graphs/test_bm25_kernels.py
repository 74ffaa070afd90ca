"""The compiled node-set scorer against a plain dictionary reference, on awkward posting lists."""

from __future__ import annotations

import numpy as np
import pytest

from graphs import bm25_kernels


def _reference(
    lists: list[np.ndarray], impacts: list[np.ndarray], weights: list[float], nodes: np.ndarray
) -> np.ndarray:
    scores = np.zeros(nodes.size, np.float64)
    for docs, impact, weight in zip(lists, impacts, weights, strict=True):
        held = dict(zip(docs.tolist(), impact.tolist(), strict=True))
        scores += [weight * held.get(node, 0.0) for node in nodes.tolist()]
    return scores


@pytest.mark.parametrize("seed", range(6))
def test_score_sorted_equals_reference_on_skewed_and_dense_lists(seed: int) -> None:
    """Lists longer and shorter than the node set, clustered ids (a poor interpolation guess),
    nearly every doc, ids at both ends, and node sets of every size all score exactly."""
    rng = np.random.default_rng(seed)
    num_docs = 5_000
    shapes = [
        np.sort(rng.choice(num_docs, 4_900, replace=False)),  # nearly every doc
        np.concatenate([np.arange(0, 40), np.arange(4_000, 4_900)]),  # two far-apart clusters
        np.sort(rng.choice(num_docs, 30, replace=False)),  # rare
        np.array([0, num_docs - 1]),  # both ends only
        np.sort(np.unique((rng.pareto(1.0, 2_000) * 50).astype(np.int64) % num_docs)),  # skewed
    ]
    impacts = [rng.random(docs.size).astype(np.float32) for docs in shapes]
    weights = rng.random(len(shapes)).astype(np.float32) + 0.5
    ends = np.cumsum([docs.size for docs in shapes]).astype(np.int64)
    starts = ends - [docs.size for docs in shapes]
    all_docs, all_impacts = np.concatenate(shapes), np.concatenate(impacts)
    for size in (1, 7, 100, 1_000, num_docs):
        nodes = np.sort(rng.choice(num_docs, size, replace=False)).astype(np.int64)
        got = bm25_kernels.score_sorted(
            starts, ends, weights, all_docs.astype(np.int64), all_impacts, nodes
        )
        expected = _reference(shapes, impacts, weights.tolist(), nodes)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
