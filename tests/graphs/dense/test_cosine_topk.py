"""The exact two-level top-k of CosineIndex equals a full sort, ties and filters included."""

from __future__ import annotations

import numpy as np
import pytest

from graphs.dense.cosine import CosineIndex, block_top_k, top_of
from graphs.dense.gme import normalised


def _full_sort(scores: np.ndarray, ids: np.ndarray, k: int) -> tuple[list[int], list[float]]:
    order = np.lexsort((ids, -scores))[:k]
    return ids[order].tolist(), scores[order].tolist()


@pytest.mark.parametrize("seed", range(12))
def test_block_top_k_equals_a_full_sort_with_heavy_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 5_000))
    levels = int(rng.integers(1, 40))  # few distinct values: ties everywhere, at the cut too
    scores = (rng.integers(0, levels, count) / levels).astype(np.float32)
    k = int(rng.integers(1, 30))
    block = int(rng.choice([1, 3, 8, 17]))
    ids, found = block_top_k(scores, k, block=block)
    assert (ids.tolist(), found.tolist()) == _full_sort(scores, np.arange(count), k)


def test_block_top_k_takes_the_two_level_path_and_keeps_the_smallest_tied_positions() -> None:
    scores = np.zeros(10_000, dtype=np.float32)
    scores[[9_000, 7, 5_000, 3]] = 1.0  # four ties for the top, in blocks out of order
    ids, found = block_top_k(scores, 3, block=16)
    assert ids.tolist() == [3, 7, 5_000] and found.tolist() == [1.0, 1.0, 1.0]
    ids, _ = block_top_k(scores, 6, block=16)
    assert ids.tolist() == [3, 7, 5_000, 9_000, 0, 1]  # then the zeros, smallest first


def test_block_top_k_never_returns_masked_scores() -> None:
    scores = np.full(50_000, -np.inf, dtype=np.float32)
    scores[[40_000, 12]] = [0.5, 0.25]
    ids, found = block_top_k(scores, 10, block=64, drop_minus_inf=True)
    assert ids.tolist() == [40_000, 12] and found.tolist() == [0.5, 0.25]


def test_top_of_keeps_the_smallest_ids_among_ties_at_the_cut() -> None:
    scores = np.array([1.0, 2.0, 1.0, 1.0, 1.0], dtype=np.float32)
    ids = np.array([50, 60, 40, 10, 30])
    assert top_of(scores, ids, 3)[0].tolist() == [60, 10, 30]


def _tied_index(count: int, seed: int) -> CosineIndex:
    """Rows drawn from 40 prototypes: every score is shared by hundreds of nodes."""
    rng = np.random.default_rng(seed)
    prototypes = normalised(rng.standard_normal((40, 16)).astype(np.float32)).astype(np.float16)
    matrix = prototypes[rng.integers(0, 40, count)]
    return CosineIndex(matrix, rng.integers(0, 4, count).astype(np.int16), select_block=64)


@pytest.mark.parametrize("torch_kernel", [True, False])
@pytest.mark.parametrize(
    ("k", "node_types", "exclude"),
    [(1, None, ()), (20, None, ()), (20, [2], ()), (50, [0, 3], [5, 17, 900]), (7, None, [0, 1])],
)
def test_cosine_top_k_equals_a_full_sort_of_the_kept_nodes(
    torch_kernel: bool, k: int, node_types: list[int] | None, exclude: list[int]
) -> None:
    index = _tied_index(30_000, seed=k)  # > 4 * 64 * k: the two-level path
    if not torch_kernel:
        index._torch = None
    query = normalised(np.random.default_rng(9).standard_normal((1, 16)).astype(np.float32))[0]
    scores = index.scores(query)
    ids = np.arange(index.num_nodes)
    keep = np.ones(index.num_nodes, dtype=bool)
    if node_types is not None:
        keep &= np.isin(index.node_types, node_types)
    keep[np.asarray(exclude, dtype=np.int64)] = False
    expected = _full_sort(scores[keep], ids[keep], k)
    found_ids, found = index.top_k(query, k, node_types=node_types, exclude=exclude)
    assert (found_ids.tolist(), found.tolist()) == expected
    assert len(set(scores[keep][:2_000].tolist())) < 100  # the ties are real


def test_top_k_of_reuses_one_scan_without_changing_it() -> None:
    index = _tied_index(20_000, seed=1)
    query = normalised(np.random.default_rng(2).standard_normal((1, 16)).astype(np.float32))[0]
    scores = index.scores(query)
    before = scores.copy()
    first = index.top_k_of(scores, 10, node_types=[1], exclude=[3])
    again = index.top_k_of(scores, 10)
    np.testing.assert_array_equal(scores, before)
    assert first[0].tolist() == index.top_k(query, 10, node_types=[1], exclude=[3])[0].tolist()
    assert again[0].tolist() == index.top_k(query, 10)[0].tolist()


def test_a_filter_with_fewer_nodes_than_k_returns_only_those() -> None:
    index = _tied_index(20_000, seed=4)
    index.node_types[:] = 0
    index.node_types[[11, 19_999]] = 3
    query = normalised(np.random.default_rng(5).standard_normal((1, 16)).astype(np.float32))[0]
    ids, _ = index.top_k(query, 20, node_types=[3])
    assert sorted(ids.tolist()) == [11, 19_999]
