"""The compiled neighbour-set passes against plain Python references."""

from __future__ import annotations

import numpy as np
import pytest

from tools import neighbor_kernels


@pytest.mark.parametrize("seed", range(5))
def test_smallest_keys_equals_a_stable_sort_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 30, 400).astype(np.int64)  # many ties
    positions = rng.permutation(400)[: rng.integers(1, 400)].astype(np.int64)
    for count in (1, 2, 7, 20, len(positions) - 1, len(positions), len(positions) + 5):
        if count <= 0:
            continue
        expected = sorted(positions.tolist(), key=lambda p: keys[p])[:count]  # stable
        got = neighbor_kernels.smallest_keys(keys, positions, count).tolist()
        assert got == expected


def test_nodes_per_code_counts_each_node_once_per_code() -> None:
    # three nodes: entries grouped by node via entry_order/starts
    codes = np.array([0, 1, 0, 2, 2, 0], dtype=np.int64)
    entry_order = np.array([0, 2, 1, 3, 4, 5], dtype=np.int64)  # node A: 0,2 B: 1,3,4 C: 5
    starts = np.array([0, 2, 5], dtype=np.int64)
    counts = neighbor_kernels.nodes_per_code(entry_order, starts, codes, 4)
    assert counts.tolist() == [2, 1, 1, 0]  # code 0: A (twice) and C; 1: B; 2: B (twice)
