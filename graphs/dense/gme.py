"""The five graph-modified embedding variants of GME (Santi et al.), vectorised over the CSR.

Each function takes the original embeddings X (float32[n, d], rows L2-normalised) and the
simple undirected graph, and returns (Z, stats): Z float32[n, d] before normalisation, stats a
small dict of solver facts recorded in the sidecar manifest. Definitions (paper section 3.3):

- hop1: z_i = a x_i + (1 - a) mean(x_j, j in S_i), S_i the `share` least cosine-similar one-hop
  neighbours (at least `min_neighbors` when available), a = 0.2, share = 0.2.
- hop2: the same over nodes at distance exactly 2.
- convex: argmin_Z sum_i |z_i - x_i|^2 + b sum_(i,j) in E |z_i - z_j|^2 (a = b = 1), solved to
  convergence (largest row displacement < tol) by Jacobi-preconditioned conjugate gradients.
- walk: the frequency-weighted mean of the endpoints of 100 two-step random walks per node.
- louvain: z_i = a x_i + (1 - a) mu_c(i), communities by Louvain at resolution 0.5, a = 0.5.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from graphs.dense.gme_graph import SimpleGraph, two_hop_pool, walk_endpoints
from graphs.errors import ConfigError

VARIANTS = ("hop1", "hop2", "convex", "walk", "louvain")
_BLOCK_PAIRS = 1_000_000
_SLICE = 32_768


@dataclass(frozen=True, kw_only=True)
class GMEParams:
    """The paper's selected settings for every variant (fields are recorded per matrix).

    Attributes:
        blend_alpha: hop1/hop2: weight kept on the original vector.
        blend_share: hop1/hop2: fraction of the pool averaged in (least similar first).
        blend_min_neighbors: hop1/hop2: at least this many when the pool has them.
        hop2_max_paths: hop2: above this many two-step paths a node's distance-2 pool is
            sampled from this many walks (not in the paper; bounds memory at hubs).
        convex_anchor: convex: weight of the fidelity term (a).
        convex_edge: convex: weight of the edge attraction term (b).
        convex_tol: convex: stop when the largest row displacement of an iteration is below.
        convex_max_sweeps: convex: iteration cap.
        walk_count: walk: walks launched per node.
        walk_steps: walk: transitions per walk.
        walk_alpha: walk: weight kept on the original vector (the paper's walk is 0).
        louvain_resolution: louvain: community granularity.
        louvain_alpha: louvain: weight kept on the original vector.
        seed: seed of the walks, the hop2 sampling and Louvain.
    """

    blend_alpha: float = 0.2
    blend_share: float = 0.2
    blend_min_neighbors: int = 2
    hop2_max_paths: int = 2_000
    convex_anchor: float = 1.0
    convex_edge: float = 1.0
    convex_tol: float = 1e-6
    convex_max_sweeps: int = 200
    walk_count: int = 100
    walk_steps: int = 2
    walk_alpha: float = 0.0
    louvain_resolution: float = 0.5
    louvain_alpha: float = 0.5
    seed: int = 42

    def __post_init__(self) -> None:
        if self.convex_anchor <= 0:
            raise ConfigError("GMEParams.convex_anchor must be > 0 (it makes the minimiser unique)")
        if not 0 < self.blend_share <= 1:
            raise ConfigError(f"GMEParams.blend_share must be in (0, 1], got {self.blend_share}")
        if self.walk_count < 1 or self.walk_steps < 1:
            raise ConfigError("GMEParams.walk_count and walk_steps must be >= 1")

    def for_variant(self, variant: str) -> dict[str, Any]:
        """The fields that shape `variant` (recorded in the sidecar manifest)."""
        prefix = {"hop1": "blend_", "hop2": "blend_", "convex": "convex_", "walk": "walk_"}
        wanted = prefix.get(variant, f"{variant}_")
        fields = {k: v for k, v in asdict(self).items() if k.startswith(wanted)}
        if variant == "hop2":
            fields["hop2_max_paths"] = self.hop2_max_paths
        if variant in ("hop2", "walk", "louvain"):
            fields["seed"] = self.seed
        return fields


Variant = Callable[[np.ndarray, SimpleGraph, GMEParams], tuple[np.ndarray, dict[str, Any]]]


def least_similar_mean(
    x: np.ndarray, anchors: np.ndarray, pool: np.ndarray, params: GMEParams, span: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Per anchor of `span` (start, stop), the sum and count of its `share` least similar pool.

    `anchors` hold ids in start..stop-1, sorted. Returns (sums float32[stop - start, d],
    counts int64[stop - start]); dividing gives the mean the blend uses.
    """
    start, stop = span
    similarity = np.empty(len(anchors), dtype=np.float32)
    for low in range(0, len(anchors), _SLICE):
        high = low + _SLICE
        similarity[low:high] = np.einsum("ij,ij->i", x[anchors[low:high]], x[pool[low:high]])
    order = np.lexsort((similarity, anchors))
    local, pool = anchors[order] - start, pool[order]
    sizes = np.bincount(local, minlength=stop - start)
    first = np.cumsum(sizes) - sizes
    wanted = np.maximum(params.blend_min_neighbors, np.round(params.blend_share * sizes))
    wanted = np.minimum(wanted, sizes).astype(np.int64)
    keep = np.arange(len(local)) - first[local] < wanted[local]
    sums = np.zeros((stop - start, x.shape[1]), dtype=np.float32)
    chosen_local, chosen = local[keep], pool[keep]
    for low in range(0, len(chosen), _SLICE):
        # anchors cut across slices simply add their two partial sums
        piece, rows = chosen[low : low + _SLICE], chosen_local[low : low + _SLICE]
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        sums[rows[starts]] += np.add.reduceat(x[piece], starts, axis=0)
    return sums, wanted


def _blend(x: np.ndarray, sums: np.ndarray, counts: np.ndarray, alpha: float) -> np.ndarray:
    z = x.copy()
    has = counts > 0
    z[has] = alpha * x[has] + (1 - alpha) * sums[has] / counts[has, None]
    return z


def _blocks(graph: SimpleGraph, cost: np.ndarray) -> list[tuple[int, int]]:
    """Node ranges whose summed `cost` stays near _BLOCK_PAIRS (at least one node each)."""
    bounds = np.searchsorted(
        np.cumsum(cost), np.arange(1, 1 + int(cost.sum()) // _BLOCK_PAIRS) * _BLOCK_PAIRS
    )
    edges = sorted({0, *[int(b) + 1 for b in bounds], graph.num_nodes})
    return [(a, b) for a, b in itertools.pairwise(edges) if b > a]


def hop1(x: np.ndarray, graph: SimpleGraph, params: GMEParams) -> tuple[np.ndarray, dict]:
    """One-hop neighbour blend (paper eq. 1)."""
    sums = np.zeros_like(x)
    counts = np.zeros(graph.num_nodes, dtype=np.int64)
    for start, stop in _blocks(graph, graph.degrees):
        anchors, pool = graph.rows_of(start, stop)
        sums[start:stop], counts[start:stop] = least_similar_mean(
            x, anchors, pool, params, (start, stop)
        )
    return _blend(x, sums, counts, params.blend_alpha), {"blended_nodes": int((counts > 0).sum())}


def hop2(x: np.ndarray, graph: SimpleGraph, params: GMEParams) -> tuple[np.ndarray, dict]:
    """Two-hop-only neighbour blend: hop1's rule over nodes at distance exactly 2."""
    rng = np.random.default_rng(params.seed)
    paths = np.bincount(
        np.repeat(np.arange(graph.num_nodes), graph.degrees),
        weights=graph.degrees[graph.indices],
        minlength=graph.num_nodes,
    )
    cost = np.minimum(paths, params.hop2_max_paths).astype(np.int64) + 1
    sums = np.zeros_like(x)
    counts = np.zeros(graph.num_nodes, dtype=np.int64)
    for start, stop in _blocks(graph, cost):
        anchors, pool = two_hop_pool(graph, start, stop, max_paths=params.hop2_max_paths, rng=rng)
        sums[start:stop], counts[start:stop] = least_similar_mean(
            x, anchors, pool, params, (start, stop)
        )
    stats = {
        "blended_nodes": int((counts > 0).sum()),
        "sampled_nodes": int((paths > params.hop2_max_paths).sum()),
    }
    return _blend(x, sums, counts, params.blend_alpha), stats


def convex(x: np.ndarray, graph: SimpleGraph, params: GMEParams) -> tuple[np.ndarray, dict]:
    """Convex neighbour pull (paper eq. 2): solve (aI + bL) Z = aX, L the graph Laplacian.

    Conjugate gradients run on all d columns at once (one step size per column), with the
    diagonal a + b deg as preconditioner; the minimiser is the unique one Gauss-Seidel reaches.
    """
    from scipy.sparse import csr_matrix

    a, b = params.convex_anchor, params.convex_edge
    n = graph.num_nodes
    adjacency = csr_matrix(
        (np.ones(len(graph.indices), dtype=np.float32), graph.indices, graph.indptr), shape=(n, n)
    )
    diagonal = (a + b * graph.degrees).astype(np.float32)[:, None]

    def apply(v: np.ndarray) -> np.ndarray:
        return diagonal * v - b * (adjacency @ v)

    z = x.astype(np.float32, copy=True)
    residual = a * x - apply(z)
    preconditioned = residual / diagonal
    direction = preconditioned.copy()
    rho = np.einsum("ij,ij->j", residual, preconditioned)
    displacement, sweeps = float("inf"), 0
    while sweeps < params.convex_max_sweeps and displacement >= params.convex_tol:
        sweeps += 1
        image = apply(direction)
        curvature = np.einsum("ij,ij->j", direction, image)
        step = np.divide(rho, curvature, out=np.zeros_like(rho), where=curvature > 0)
        z += step * direction
        displacement = float(np.sqrt(((step * direction) ** 2).sum(axis=1)).max(initial=0.0))
        residual -= step * image
        preconditioned = residual / diagonal
        rho_next = np.einsum("ij,ij->j", residual, preconditioned)
        direction = (
            preconditioned
            + np.divide(rho_next, rho, out=np.zeros_like(rho), where=rho > 0) * direction
        )
        rho = rho_next
    return z, {"sweeps": sweeps, "final_displacement": displacement}


def walk(x: np.ndarray, graph: SimpleGraph, params: GMEParams) -> tuple[np.ndarray, dict]:
    """Random-walk endpoint blend: frequency-weighted mean of the walks' endpoints."""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(params.seed)
    n = graph.num_nodes
    sums = np.zeros_like(x)
    degrees = graph.degrees
    step_nodes = max(1, _BLOCK_PAIRS // params.walk_count)
    for start in range(0, n, step_nodes):
        nodes = np.arange(start, min(n, start + step_nodes), dtype=np.int64)
        starts, ends = walk_endpoints(
            graph, nodes, walks=params.walk_count, steps=params.walk_steps, rng=rng
        )
        weights = np.ones(len(starts), dtype=np.float32)
        counts = csr_matrix((weights, (starts - start, ends)), shape=(len(nodes), n))
        sums[start : start + len(nodes)] = counts @ x
    walked = (degrees > 0).astype(np.int64) * params.walk_count
    return _blend(x, sums, walked, params.walk_alpha), {"walked_nodes": int((degrees > 0).sum())}


def louvain(x: np.ndarray, graph: SimpleGraph, params: GMEParams) -> tuple[np.ndarray, dict]:
    """Louvain community blend (paper eq. 3): each node moves toward its community centroid."""
    import networkx as nx

    nx_graph = nx.Graph()
    nx_graph.add_nodes_from(range(graph.num_nodes))
    nx_graph.add_edges_from(zip(*(part.tolist() for part in graph.edge_pairs()), strict=True))
    communities = nx.community.louvain_communities(
        nx_graph, resolution=params.louvain_resolution, seed=params.seed
    )
    labels = np.empty(graph.num_nodes, dtype=np.int64)
    for label, members in enumerate(communities):
        labels[list(members)] = label
    order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels, minlength=len(communities))
    starts = np.cumsum(sizes) - sizes
    centroids = np.add.reduceat(x[order], starts, axis=0) / sizes[:, None]
    alpha = params.louvain_alpha
    z = alpha * x + (1 - alpha) * centroids[labels]
    stats = {"communities": len(communities), "median_size": float(np.median(sizes))}
    return z.astype(np.float32), stats


VARIANT_FUNCTIONS: dict[str, Variant] = {
    "hop1": hop1,
    "hop2": hop2,
    "convex": convex,
    "walk": walk,
    "louvain": louvain,
}


def normalised(z: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero)."""
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    return np.divide(z, norms, out=np.zeros_like(z), where=norms > 0)
