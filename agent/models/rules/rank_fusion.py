"""How the rule policy merges its keyword and dense rankings: z-score CombSUM, RRF fallback.

Reciprocal rank fusion ignores scores, so with a weak second retriever every node both lists
share outranks the keyword search's clear first hit (measured in BENCHMARKS.md, "The agent
with and without dense_search"). Z-score CombSUM keeps the scores' shape: each list's scores
become standard scores (mean 0, deviation 1 over the listed nodes), and a node's fused score
sums them. A node a list did not show scored at most that list's last shown node, so it gets
that list's lowest standard score (the same convention as CombSUM over min-max scores, where
an unlisted node gets the minimum 0). No parameter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphs.rrf import reciprocal_rank_fusion as rrf
from tools.listing_parse import ListedNode

RRF_K = 60
"""The usual reciprocal-rank constant: score = sum over rankings of 1 / (RRF_K + rank)."""


def fuse_rankings(rankings: Sequence[Sequence[ListedNode]]) -> list[ListedNode]:
    """One ranking from several (a single one is returned as is), ties by first appearance.

    Z-score CombSUM when every listed node has a score, else reciprocal rank fusion.
    """
    if len(rankings) == 1:
        return list(rankings[0])
    if all(node.score is not None for ranking in rankings for node in ranking):
        return zscore_fusion(rankings)
    return reciprocal_rank_fusion(rankings)


def zscore_fusion(rankings: Sequence[Sequence[ListedNode]]) -> list[ListedNode]:
    """Sum of each list's standard scores; an unlisted node gets that list's lowest one."""
    nodes = _first_seen(rankings)
    totals = dict.fromkeys(nodes, 0.0)
    for ranking in rankings:
        if not ranking:
            continue
        scores = np.array([float(node.score or 0.0) for node in ranking])
        spread = float(scores.std())
        standard = (scores - scores.mean()) / spread if spread > 0 else np.zeros(len(scores))
        listed = {node.node_id: float(z) for node, z in zip(ranking, standard, strict=True)}
        floor = float(standard.min())
        for node_id in totals:
            totals[node_id] += listed.get(node_id, floor)
    order = sorted(totals, key=lambda node_id: -totals[node_id])  # stable: first seen first
    return [nodes[node_id] for node_id in order]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[ListedNode]]) -> list[ListedNode]:
    """Sum of 1 / (RRF_K + rank) over the rankings, ties by first appearance (graphs/rrf.py)."""
    nodes = _first_seen(rankings)
    ids = [[node.node_id for node in ranking] for ranking in rankings]
    order, _ = rrf(ids, [1.0] * len(rankings), RRF_K)
    return [nodes[node_id] for node_id in order]


def _first_seen(rankings: Sequence[Sequence[ListedNode]]) -> dict[str, ListedNode]:
    nodes: dict[str, ListedNode] = {}
    for ranking in rankings:
        for node in ranking:
            nodes.setdefault(node.node_id, node)
    return nodes
