"""Each GME variant's formula on a hand-built graph with hand-computed vectors."""

from __future__ import annotations

import numpy as np
import pytest

from graphs.dense.gme import GMEParams, convex, hop1, hop2, louvain, normalised, walk
from graphs.dense.gme_graph import SimpleGraph, two_hop_pool


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


# Node 0 is a hub linked to 1..4; 5 hangs off 1 (distance 2 from 0); 6 is isolated.
X = np.stack(
    [
        unit(1, 0, 0),
        unit(1, 0.1, 0),  # very similar to 0
        unit(0, 1, 0),  # orthogonal to 0
        unit(0, 0, 1),  # orthogonal to 0
        unit(-1, 0.2, 0),  # least similar to 0
        unit(0, 1, 1),
        unit(1, 1, 1),
    ]
)
EDGES = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (1, 0)]  # (1, 0) repeats an edge


@pytest.fixture
def graph() -> SimpleGraph:
    rows, cols = zip(*EDGES, strict=True)
    return SimpleGraph.from_pairs(7, np.array(rows), np.array(cols))


def test_simple_graph_merges_duplicates_and_both_directions(graph: SimpleGraph) -> None:
    assert graph.degrees.tolist() == [4, 2, 1, 1, 1, 1, 0]
    assert graph.indices[graph.indptr[1] : graph.indptr[2]].tolist() == [0, 5]
    assert [a.tolist() for a in graph.edge_pairs()] == [[0, 0, 0, 0, 1], [1, 2, 3, 4, 5]]


def test_hop1_blends_the_two_least_similar_neighbours(graph: SimpleGraph) -> None:
    z, stats = hop1(X, graph, GMEParams())
    # node 0: 4 neighbours, 20% -> 1, raised to the minimum of 2: the least similar are 4 and
    # one of the two orthogonal ones (2 and 3 tie at cosine 0; the lower id sorts first).
    expected0 = 0.2 * X[0] + 0.8 * (X[4] + X[2]) / 2
    np.testing.assert_allclose(z[0], expected0, atol=1e-6)
    # node 1: neighbours 0 and 5, both kept (minimum of 2)
    np.testing.assert_allclose(z[1], 0.2 * X[1] + 0.8 * (X[0] + X[5]) / 2, atol=1e-6)
    # node 2: one neighbour only: that one
    np.testing.assert_allclose(z[2], 0.2 * X[2] + 0.8 * X[0], atol=1e-6)
    # the isolated node keeps its vector
    np.testing.assert_allclose(z[6], X[6])
    assert stats["blended_nodes"] == 6


def test_hop1_share_takes_a_fifth_of_a_large_neighbourhood() -> None:
    star = SimpleGraph.from_pairs(11, np.zeros(10, dtype=np.int64), np.arange(1, 11))
    rng = np.random.default_rng(0)
    x = normalised(rng.standard_normal((11, 8)).astype(np.float32))
    z, _ = hop1(x, star, GMEParams(blend_share=0.3))
    similarity = x[1:] @ x[0]
    least = 1 + np.argsort(similarity)[:3]  # 30% of 10
    np.testing.assert_allclose(z[0], 0.2 * x[0] + 0.8 * x[least].mean(axis=0), atol=1e-5)


def test_hop2_uses_nodes_at_distance_exactly_two(graph: SimpleGraph) -> None:
    anchors, pool = two_hop_pool(graph, 0, 7, max_paths=1000, rng=np.random.default_rng(0))
    pairs = set(zip(anchors.tolist(), pool.tolist(), strict=True))
    assert {p for p in pairs if p[0] == 0} == {(0, 5)}
    assert {p for p in pairs if p[0] == 5} == {(5, 0)}
    assert {p for p in pairs if p[0] == 2} == {(2, 1), (2, 3), (2, 4)}
    z, _ = hop2(X, graph, GMEParams())
    np.testing.assert_allclose(z[0], 0.2 * X[0] + 0.8 * X[5], atol=1e-6)
    # node 2: pool {1, 3, 4}: two least similar to x2 = (0,1,0): 3 (cos 0) and 1 (cos 0.0995)
    # vs 4 (cos 0.196)
    np.testing.assert_allclose(z[2], 0.2 * X[2] + 0.8 * (X[3] + X[1]) / 2, atol=1e-6)
    np.testing.assert_allclose(z[6], X[6])


def test_hop2_samples_walks_at_hubs_and_still_excludes_direct_neighbours(
    graph: SimpleGraph,
) -> None:
    anchors, pool = two_hop_pool(graph, 0, 7, max_paths=1, rng=np.random.default_rng(1))
    for anchor, node in zip(anchors.tolist(), pool.tolist(), strict=True):
        direct = graph.indices[graph.indptr[anchor] : graph.indptr[anchor + 1]].tolist()
        assert node != anchor and node not in direct


def test_convex_solves_the_retrofitting_system(graph: SimpleGraph) -> None:
    z, stats = convex(X, graph, GMEParams())
    # stationarity (paper eq. 8): a (z_i - x_i) + b sum_j (z_i - z_j) = 0 for every node
    for node in range(7):
        neighbours = graph.indices[graph.indptr[node] : graph.indptr[node + 1]]
        gradient = (z[node] - X[node]) + sum(z[node] - z[j] for j in neighbours)
        np.testing.assert_allclose(gradient, 0, atol=1e-5)
    # path 0 - 1 by hand: z0 = (2 x0 + x1) / 3, z1 = (x0 + 2 x1) / 3
    pair = SimpleGraph.from_pairs(2, np.array([0]), np.array([1]))
    zp, _ = convex(X[:2], pair, GMEParams())
    np.testing.assert_allclose(zp[0], (2 * X[0] + X[1]) / 3, atol=1e-6)
    np.testing.assert_allclose(zp[1], (X[0] + 2 * X[1]) / 3, atol=1e-6)
    np.testing.assert_allclose(z[6], X[6], atol=1e-7)
    assert stats["final_displacement"] < 1e-6 and stats["sweeps"] < 200


def test_walk_is_the_mean_of_two_step_endpoints(graph: SimpleGraph) -> None:
    # two nodes: every 2-step walk returns to its start
    pair = SimpleGraph.from_pairs(2, np.array([0]), np.array([1]))
    z, _ = walk(X[:2], pair, GMEParams())
    np.testing.assert_allclose(z, X[:2], atol=1e-6)
    # leaf 2 -> 0 -> uniform over {1, 2, 3, 4}: with many walks the mean approaches theirs
    z, stats = walk(X, graph, GMEParams(walk_count=40_000))
    np.testing.assert_allclose(z[2], X[[1, 2, 3, 4]].mean(axis=0), atol=0.01)
    # node 5 -> 1 -> {0, 5} half each
    np.testing.assert_allclose(z[5], (X[0] + X[5]) / 2, atol=0.01)
    np.testing.assert_allclose(z[6], X[6])
    assert stats["walked_nodes"] == 6


def test_walk_alpha_keeps_part_of_the_original(graph: SimpleGraph) -> None:
    pair = SimpleGraph.from_pairs(3, np.array([0, 1]), np.array([1, 2]))
    z, _ = walk(X[:3], pair, GMEParams(walk_alpha=0.5, walk_count=20_000))
    # 1 -> {0, 2} -> 1 always
    np.testing.assert_allclose(z[1], X[1], atol=1e-6)


def test_louvain_moves_each_node_halfway_to_its_community_centroid() -> None:
    # two triangles joined by one edge: Louvain finds the two triangles
    rows = np.array([0, 1, 2, 3, 4, 5, 2])
    cols = np.array([1, 2, 0, 4, 5, 3, 3])
    two = SimpleGraph.from_pairs(6, rows, cols)
    z, stats = louvain(X[:6], two, GMEParams(louvain_resolution=1.0))
    assert stats["communities"] == 2
    left, right = X[:3].mean(axis=0), X[3:6].mean(axis=0)
    for node in range(3):
        np.testing.assert_allclose(z[node], 0.5 * X[node] + 0.5 * left, atol=1e-6)
    for node in range(3, 6):
        np.testing.assert_allclose(z[node], 0.5 * X[node] + 0.5 * right, atol=1e-6)


def test_params_reject_bad_values() -> None:
    with pytest.raises(ValueError, match="convex_anchor"):
        GMEParams(convex_anchor=0)
    with pytest.raises(ValueError, match="blend_share"):
        GMEParams(blend_share=0)
