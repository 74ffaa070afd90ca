"""Dense strategy speed: retrieval time per question of each GME strategy, encoding excluded.

    python -m benchmarks.speed.dense_strategies SNAPSHOT --encoder DIR [--split test] \
        [--random-nodes 1000000] [--rounds 3]

The split's questions are encoded once (cached beside the other speed files) and every
strategy retrieves its 40-node budget for each of them; the table gives wall and CPU ms per
question (best of `--rounds` passes). `--random-nodes N` times the same strategies over an
N x 384 float16 matrix of random unit vectors (the speed of a scan does not depend on the
values; the one matrix serves as both spaces). To compare two versions of the code, run the
script twice with PYTHONPATH pointing at each checkout: the first line names the code it ran.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import rank.baselines.dense_strategies
from evals.qa.sets import load_qa
from graphs.dense.cosine import CosineIndex
from graphs.dense.embeddings import PLAIN, Embeddings
from graphs.dense.encoder import TextEncoder
from graphs.dense.gme import normalised
from graphs.snapshot import Snapshot
from rank.baselines.dense_strategies import StrategyConfig, retrieve

STRATEGIES = (
    StrategyConfig(strategy="plain"),
    StrategyConfig(strategy="two-stage", variant="walk"),
    StrategyConfig(strategy="requery", variant="walk"),
    StrategyConfig(strategy="chained-requery", variant="walk"),
    StrategyConfig(strategy="chained-requery", control="original"),
)


def question_vectors(snapshot_dir: Path, split: str, encoder: Path, cache: Path) -> np.ndarray:
    snapshot = Snapshot.open(snapshot_dir)
    path = cache / f"queries-{snapshot.manifest.content_hash[:16]}-{split}.npy"
    if path.exists():
        return np.load(path)
    items = load_qa(snapshot_dir / "qa" / f"{split}.jsonl")
    vectors = TextEncoder.load(encoder).encode([item.query for item in items])
    np.save(path, vectors)
    return vectors


def time_strategies(
    vectors: np.ndarray, original: CosineIndex, modified: CosineIndex, rounds: int
) -> list[str]:
    lines = ["| strategy | wall ms / question | CPU ms / question |", "|---|---|---|"]
    for config in STRATEGIES:
        best_wall, best_cpu = float("inf"), float("inf")
        for _ in range(rounds):
            wall, cpu = time.perf_counter(), time.process_time()
            for vector in vectors:
                retrieve(vector, original, modified, config)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        lines.append(
            f"| {config.label} | {1000 * best_wall / len(vectors):.2f} | "
            f"{1000 * best_cpu / len(vectors):.2f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--encoder", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--random-nodes", type=int, default=0)
    parser.add_argument("--random-questions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/dense/speed"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"code: {Path(rank.baselines.dense_strategies.__file__).resolve().parent.parent}")
    vectors = question_vectors(args.snapshot, args.split, args.encoder, args.cache)
    snapshot = Snapshot.open(args.snapshot)
    embeddings = Embeddings.open(args.snapshot, content_hash=snapshot.manifest.content_hash)
    types = snapshot.node_type_codes
    original = CosineIndex(embeddings.matrix(PLAIN), types)
    modified = CosineIndex(embeddings.matrix("walk"), types)
    print(f"\n{snapshot.manifest.name}: {snapshot.num_nodes:,} nodes, {len(vectors)} questions")
    print("\n".join(time_strategies(vectors, original, modified, args.rounds)), flush=True)
    if args.random_nodes:
        matrix = np.load(args.cache / f"random_{args.random_nodes}.npy", mmap_mode="c")
        index = CosineIndex(matrix, (np.arange(len(matrix)) % 4).astype(np.int16))
        index.top_k(vectors[0], 10)  # page the matrix in
        queries = normalised(vectors[: args.random_questions])
        print(f"\nrandom {args.random_nodes:,} x {matrix.shape[1]}: {len(queries)} questions")
        print("\n".join(time_strategies(queries, index, index, 1)))


if __name__ == "__main__":
    main()
