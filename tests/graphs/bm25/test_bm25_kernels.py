"""The compiled node-set scorer against a plain dictionary reference, on awkward posting lists."""

from __future__ import annotations

import numpy as np
import pytest

from graphs.bm25 import kernels as bm25_kernels


def _reference(
    lists: list[np.ndarray], impacts: list[np.ndarray], weights: list[float], nodes: np.ndarray
) -> np.ndarray:
    scores = np.zeros(nodes.size, np.float64)
    for docs, impact, weight in zip(lists, impacts, weights, strict=True):
        held = dict(zip(docs.tolist(), impact.tolist(), strict=True))
        scores += [weight * held.get(node, 0.0) for node in nodes.tolist()]
    return scores


@pytest.mark.parametrize("seed", range(6))
def test_node_set_scores_equal_reference_on_skewed_and_dense_lists(seed: int) -> None:
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
        got = np.zeros(nodes.size, np.float32)
        for start, end, weight in zip(starts, ends, weights, strict=True):
            bm25_kernels.add_entry_scores(
                int(start), int(end), weight, all_docs.astype(np.int64), all_impacts, nodes, got
            )
        expected = _reference(shapes, impacts, weights.tolist(), nodes)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
        for start, end, weight, docs in zip(starts, ends, weights, shapes, strict=True):
            bits, ranks = bm25_kernels.posting_bitmap(
                all_docs.astype(np.int64), int(start), int(end), num_docs
            )
            held = np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))
            np.testing.assert_array_equal(held, docs)  # the bitmap holds exactly the list
            by_bitmap = np.zeros(nodes.size, np.float32)
            bm25_kernels.add_bitmap_scores(
                bits, ranks, int(start), weight, all_impacts, nodes, by_bitmap
            )
            by_search = np.zeros(nodes.size, np.float32)
            bm25_kernels.add_entry_scores(
                int(start), int(end), weight, all_docs.astype(np.int64), all_impacts, nodes,
                by_search,
            )  # fmt: skip
            np.testing.assert_array_equal(by_bitmap, by_search)  # the same float32 values


def test_a_bitmap_covers_the_last_word_and_docs_at_word_edges() -> None:
    num_docs = 130  # three words, the last one partial
    docs = np.array([0, 63, 64, 127, 128, 129], dtype=np.int64)
    bits, ranks = bm25_kernels.posting_bitmap(docs, 0, docs.size, num_docs)
    assert bits.size == ranks.size == 3
    assert ranks.tolist() == [0, 2, 4]
    impacts = np.arange(1, docs.size + 1, dtype=np.float32)
    nodes = np.arange(num_docs, dtype=np.int64)
    scores = np.zeros(num_docs, np.float32)
    bm25_kernels.add_bitmap_scores(bits, ranks, 0, 2.0, impacts, nodes, scores)
    assert {int(d): float(scores[d]) for d in np.flatnonzero(scores)} == {
        0: 2.0, 63: 4.0, 64: 6.0, 127: 8.0, 128: 10.0, 129: 12.0,
    }  # fmt: skip
