"""Dense retrieval quality: every GME strategy x variant (+ controls) vs plain dense vs BM25.

For each snapshot given (built with `ark graph synth` and embedded with `ark graph embed`),
questions of one split are sampled per family, encoded once with the real encoder, and every
retriever returns its 40-node budget in stage order. Scores: Recall@20 and Hit@1 of the ARK
protocol (evals.metrics, the first 20 nodes of the list) and Recall@40 (the whole budget, the
paper's measure). Writes a markdown table per snapshot.

    python -m benchmarks.quality.dense SNAPSHOT... --encoder DIR --per-family 100
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from evals.metrics import ark_metrics
from evals.qa.sets import load_qa
from graphs.dense.cosine import CosineIndex
from graphs.dense.embeddings import PLAIN, Embeddings
from graphs.dense.encoder import TextEncoder
from graphs.dense.gme import VARIANTS
from graphs.snapshot import Snapshot
from rank.baselines.dense_strategies import StrategyConfig, retrieve

BUDGET = 40


def configs() -> list[StrategyConfig]:
    """plain; every strategy with every variant; the two controls of both requery schedules."""
    grid = [StrategyConfig(strategy="plain")]
    for variant in VARIANTS:
        for strategy in ("modified", "alternate", "two-stage", "requery", "chained-requery"):
            grid.append(StrategyConfig(strategy=strategy, variant=variant))  # type: ignore[arg-type]
    for strategy in ("requery", "chained-requery"):
        for control in ("alpha0", "original"):
            grid.append(StrategyConfig(strategy=strategy, control=control))  # type: ignore[arg-type]
    return grid


def score(ranked: list[str], gold: list[str]) -> tuple[float, float, float]:
    """(Recall@20, Hit@1) of the ARK protocol and Recall@40 of the whole list."""
    metrics = ark_metrics(ranked, gold)
    found40 = len(set(gold).intersection(ranked[:BUDGET])) / max(1, len(gold))
    return metrics["recall@20"], metrics["hit@1"], found40


def evaluate(snapshot_dir: Path, encoder: TextEncoder, split: str, per_family: int) -> str:
    snapshot = Snapshot.open(snapshot_dir)
    embeddings = Embeddings.open(snapshot_dir, content_hash=snapshot.manifest.content_hash)
    items = load_qa(snapshot_dir / "qa" / f"{split}.jsonl")
    by_family: dict[str, list] = defaultdict(list)
    for item in items:
        by_family[item.family or "unlabelled"].append(item)
    rng = random.Random(0)
    chosen = [
        q
        for fam in sorted(by_family)
        for q in rng.sample(by_family[fam], min(per_family, len(by_family[fam])))
    ]
    started = time.perf_counter()
    vectors = encoder.encode([item.query for item in chosen])
    encode_s = time.perf_counter() - started
    types = snapshot.node_type_codes
    indexes = {name: CosineIndex(embeddings.matrix(name), types) for name in embeddings.variants}
    families = sorted({item.family or "unlabelled" for item in chosen})
    rows: list[tuple[str, dict[str, tuple[float, float, float]]]] = []

    def add(label: str, ranked_lists: list[list[str]]) -> None:
        sums: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
        for item, ranked in zip(chosen, ranked_lists, strict=True):
            values = score(ranked, item.answer_ids)
            sums[item.family or "unlabelled"].append(values)
            sums["all"].append(values)
        rows.append((label, {fam: tuple(np.mean(v, axis=0)) for fam, v in sums.items()}))  # type: ignore[misc]

    add(
        "bm25",
        [
            [snapshot.external_id(int(n)) for n in snapshot.index.search(item.query, BUDGET)[0]]
            for item in chosen
        ],
    )
    for config in configs():
        modified = indexes[config.variant] if config.needs_variant else None
        ranked = [
            [snapshot.external_id(n) for n in retrieve(vector, indexes[PLAIN], modified, config)]
            for vector in vectors
        ]
        add(config.label, ranked)
    header = ["retriever", *[f"{fam} R@20 / H@1 / R@40" for fam in [*families, "all"]]]
    lines = [
        f"### {snapshot.manifest.name} ({snapshot.num_nodes:,} nodes, {len(chosen)} {split} "
        f"questions, {per_family} per family; questions encoded in {encode_s:.1f}s)",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for label, by in rows:
        cells = [" / ".join(f"{v:.3f}" for v in by[fam]) for fam in [*families, "all"]]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshots", nargs="+", type=Path)
    parser.add_argument("--encoder", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--per-family", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("bench-out/dense_quality.md"))
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: no contention)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    encoder = TextEncoder.load(args.encoder)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("")
    for path in args.snapshots:
        table = evaluate(path, encoder, args.split, args.per_family)
        with args.out.open("a") as handle:
            handle.write(table + "\n")
        print(table, flush=True)


if __name__ == "__main__":
    main()
