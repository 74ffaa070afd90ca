"""Dense retrieval through the HNSW indexes vs the exact scan: Hit@k of every strategy (issue 41).

For each snapshot (`ark graph synth`, then `ark graph embed --ann`), the questions of a split
are encoded once with the real encoder; every strategy (plain, and modified, two-stage,
requery and chained-requery over each graph-modified variant built) retrieves its 40-node
budget once through `open_vector_index(mode="exact")` and once through `mode="ann"`, and is
scored with the ARK protocol (evals.metrics): Hit@1, Hit@5, Recall@20. Also counts how many
ranked lists ANN gives identically to the exact scan (torch's float16 scan, and the same
scan in float32, which is how ANN rescores its candidates) and the mean overlap of the ANN
and float32 lists.

    python -m benchmarks.quality.dense_ann SNAPSHOT... --encoder DIR
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from evals.metrics import ark_metrics
from evals.qa.sets import load_qa
from graphs.dense.embeddings import PLAIN, Embeddings
from graphs.dense.encoder import TextEncoder
from graphs.dense.search import open_vector_index
from graphs.snapshot import Snapshot
from rank.baselines.dense_strategies import StrategyConfig, retrieve

METRICS = ("hit@1", "hit@5", "recall@20")


def configs(variants: list[str]) -> list[StrategyConfig]:
    """plain, then every multi-space strategy over each variant."""
    grid = [StrategyConfig(strategy="plain")]
    for variant in variants:
        for strategy in ("modified", "two-stage", "requery", "chained-requery"):
            grid.append(StrategyConfig(strategy=strategy, variant=variant))  # type: ignore[arg-type]
    return grid


def evaluate(snapshot_dir: Path, encoder: TextEncoder, split: str) -> str:
    snapshot = Snapshot.open(snapshot_dir)
    embeddings = Embeddings.open(snapshot_dir, content_hash=snapshot.manifest.content_hash)
    items = load_qa(snapshot_dir / "qa" / f"{split}.jsonl")
    vectors = encoder.encode([item.query for item in items])
    types = snapshot.node_type_codes
    spaces = {
        mode: {
            name: open_vector_index(embeddings, types, variant=name, mode=mode)  # type: ignore[arg-type]
            for name in embeddings.variants
        }
        for mode in ("exact", "ann")
    }
    # the same scan in float32 (numpy), as ANN rescores: separates graph misses from ties
    # that torch's float16 scan rounds together
    spaces["exact32"] = {}
    for name in embeddings.variants:
        index = open_vector_index(embeddings, types, variant=name, mode="exact")
        index._torch = None  # type: ignore[union-attr]
        spaces["exact32"][name] = index
    info = embeddings.manifest.ann[PLAIN].params
    lines = [
        f"### {snapshot.manifest.name}: {snapshot.num_nodes:,} nodes, {len(items)} {split} "
        f"questions (HNSW {info['library']} M={info['m']} ef_construction="
        f"{info['ef_construction']} ef_search={info['ef_search']})",
        "",
        "| strategy | exact H@1 / H@5 / R@20 | ANN H@1 / H@5 / R@20 | max loss | ANN lists "
        "= exact (float16 scan) | = exact float32 scan | overlap with float32 scan | exact "
        "ms/q | ANN ms/q |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    variants = [name for name in embeddings.variants if name != PLAIN]
    for config in configs(variants):
        scores, lists, times = {}, {}, {}
        for mode, indexes in spaces.items():
            modified = indexes[config.variant] if config.needs_variant else None
            started = time.perf_counter()
            ranked = [retrieve(v, indexes[PLAIN], modified, config) for v in vectors]
            times[mode] = 1000 * (time.perf_counter() - started) / len(items)
            lists[mode] = ranked
            external = [[snapshot.external_id(n) for n in nodes] for nodes in ranked]
            per_q = [
                ark_metrics(r, item.answer_ids) for r, item in zip(external, items, strict=True)
            ]
            scores[mode] = [float(np.mean([m[key] for m in per_q])) for key in METRICS]
        same = sum(a == b for a, b in zip(lists["exact"], lists["ann"], strict=True))
        same32 = sum(a == b for a, b in zip(lists["exact32"], lists["ann"], strict=True))
        overlap = np.mean(
            [
                len(set(a) & set(b)) / max(1, len(a))
                for a, b in zip(lists["exact32"], lists["ann"], strict=True)
            ]
        )
        loss = max(e - a for e, a in zip(scores["exact"], scores["ann"], strict=True))
        lines.append(
            f"| {config.label} | {' / '.join(f'{v:.3f}' for v in scores['exact'])} | "
            f"{' / '.join(f'{v:.3f}' for v in scores['ann'])} | {loss:+.3f} | "
            f"{same}/{len(items)} | {same32}/{len(items)} | {overlap:.4f} | "
            f"{times['exact']:.2f} | {times['ann']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshots", nargs="+", type=Path)
    parser.add_argument("--encoder", type=Path, required=True)
    parser.add_argument("--split", default="test")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    encoder = TextEncoder.load(args.encoder)
    for path in args.snapshots:
        print(evaluate(path, encoder, args.split), flush=True)


if __name__ == "__main__":
    main()
