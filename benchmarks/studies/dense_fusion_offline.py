"""Fusions of the rule policy's keyword and dense rankings, replayed offline from a run.

    python -m benchmarks.studies.dense_fusion_offline RUN_DIR... [--family text_only]

For each question of the family, the two rankings the rule policy fused (the last turn of
its first trajectory that called both `search` and `dense_search`, read back from the
observation texts) are fused again by each method, and Hit@1 / Recall@20 of the result are
printed. Only the fused search ranking is replayed (no neighbour expansion), so use it on
families answered by search alone.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from agent.models.rules.rank_fusion import reciprocal_rank_fusion, zscore_fusion
from evals.runs.store import RunRecord, read_results
from tools.listing_parse import ListedNode, parse_listing

Fusion = Callable[[Sequence[Sequence[ListedNode]]], list[ListedNode]]


def fused_pair(record: RunRecord) -> list[list[ListedNode]] | None:
    messages = record.result.trajectories[0].messages
    answers = {
        m.get("tool_call_id"): m.get("content") or "" for m in messages if m["role"] == "tool"
    }
    pair = None
    for message in messages:
        calls = message.get("tool_calls") if message["role"] == "assistant" else None
        names = [call["function"]["name"] for call in calls or []]
        if "search" in names and "dense_search" in names:
            pair = [parse_listing(answers.get(call["id"], "")) for call in calls or []]
    return pair


def minmax_fusion(rankings: Sequence[Sequence[ListedNode]]) -> list[ListedNode]:
    totals: dict[str, float] = {}
    nodes: dict[str, ListedNode] = {}
    for ranking in rankings:
        scores = np.array([float(node.score or 0.0) for node in ranking])
        low, spread = scores.min(), float(np.ptp(scores)) or 1.0
        for node, score in zip(ranking, scores, strict=True):
            totals[node.node_id] = totals.get(node.node_id, 0.0) + (score - low) / spread
            nodes.setdefault(node.node_id, node)
    return [nodes[i] for i in sorted(totals, key=lambda i: -totals[i])]


def zscore_mean_fusion(rankings: Sequence[Sequence[ListedNode]]) -> list[ListedNode]:
    """Z-score CombSUM with an unlisted node at 0 (the list mean) instead of the list's lowest."""
    totals: dict[str, float] = {}
    nodes: dict[str, ListedNode] = {}
    for ranking in rankings:
        scores = np.array([float(node.score or 0.0) for node in ranking])
        standard = (scores - scores.mean()) / (scores.std() or 1.0)
        for node, z in zip(ranking, standard, strict=True):
            totals[node.node_id] = totals.get(node.node_id, 0.0) + float(z)
            nodes.setdefault(node.node_id, node)
    return [nodes[i] for i in sorted(totals, key=lambda i: -totals[i])]


METHODS: dict[str, Fusion] = {
    "keyword only": lambda rankings: list(rankings[0]),
    "dense only": lambda rankings: list(rankings[1]),
    "RRF k=60": reciprocal_rank_fusion,
    "min-max CombSUM": minmax_fusion,
    "z-score CombSUM (unlisted = lowest)": zscore_fusion,
    "z-score CombSUM (unlisted = mean)": zscore_mean_fusion,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--family", default="text_only")
    args = parser.parse_args()
    for run in args.runs:
        pairs = [
            (record, pair)
            for record in read_results(run)
            if record.family == args.family and (pair := fused_pair(record)) is not None
        ]
        print(f"\n{run.name} ({args.family}, {len(pairs)} questions): Hit@1 / R@20")
        for name, fuse in METHODS.items():
            hits, recall = 0.0, 0.0
            for record, pair in pairs:
                ranked = [node.node_id for node in fuse(pair)][:20]
                gold = set(record.gold)
                hits += bool(ranked) and ranked[0] in gold
                recall += len(gold.intersection(ranked)) / max(1, len(gold))
            count = max(1, len(pairs))
            print(f"  {name:<36} {hits / count:.3f} / {recall / count:.3f}")


if __name__ == "__main__":
    main()
