"""Benchmark the synthetic benchmark graphs: generation time by size, and BM25 alone by family."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from graphs.synth.generate import DOMAINS, build_domain, generate


def bm25_by_family(snapshot_dir: Path, split: str = "test") -> dict[str, dict[str, float]]:
    """Hit@1, Hit@5, Recall@20 of plain BM25 on the raw question, candidates only (STaRK rule)."""
    snapshot = Snapshot.open(snapshot_dir)
    allowed = {snapshot.type_code(t) for t in snapshot.manifest.candidate_types}
    scores: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for line in (snapshot_dir / "qa" / f"{split}.jsonl").read_text().splitlines():
        row = json.loads(line)
        found, _ = snapshot.index.search(row["query"], 100)
        ranked = [
            snapshot.external_id(int(n))
            for n in found
            if not allowed or int(snapshot.node_type_codes[int(n)]) in allowed
        ]
        gold = set(row["answer_ids"])
        scores[row["family"]].append(
            (
                float(bool(ranked) and ranked[0] in gold),
                float(bool(gold & set(ranked[:5]))),
                len(gold & set(ranked[:20])) / len(gold),
            )
        )
    return {
        family: dict(
            zip(("hit@1", "hit@5", "recall@20", "n"), [*np.mean(v, axis=0), len(v)], strict=True)
        )
        for family, v in sorted(scores.items())
    }


def main() -> None:
    """Time `generate` at the default size and `build_domain` at larger sizes; BM25 by family."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the default-size build")
    parser.add_argument("--sizes", default="100000", help="larger --nodes values, comma-separated")
    args = parser.parse_args()
    domains = args.domains.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        print("| domain | nodes | edges | generate (snapshot + questions), median of runs | runs |")
        print("|---|---:|---:|---:|---:|")
        for domain in domains:
            times = []
            for run in range(args.repeat):
                start = time.perf_counter()
                result = generate(
                    domain,
                    args.seed,
                    Path(tmp) / f"{domain}{run}",
                    options=BuildOptions(overwrite=True),
                )
                times.append(time.perf_counter() - start)
            print(
                f"| {domain} | {result.num_nodes:,} | {result.num_edges:,} | "
                f"{np.median(times):.2f} s | {len(times)} |"
            )
        print("\n| domain | --nodes | edges | graph + questions in memory |")
        print("|---|---:|---:|---:|")
        for size in [int(s) for s in args.sizes.split(",") if s]:
            for domain in domains:
                start = time.perf_counter()
                built, _ = build_domain(domain, args.seed, size)
                elapsed = time.perf_counter() - start
                print(f"| {domain} | {size:,} | {built.graph.src.size:,} | {elapsed:.1f} s |")
        print("\n| domain | family | n | BM25 hit@1 | hit@5 | recall@20 |")
        print("|---|---|---:|---:|---:|---:|")
        for domain in domains:
            for family, m in bm25_by_family(Path(tmp) / f"{domain}0").items():
                print(
                    f"| {domain} | {family} | {int(m['n'])} | {m['hit@1']:.2f} | "
                    f"{m['hit@5']:.2f} | {m['recall@20']:.2f} |"
                )


if __name__ == "__main__":
    main()
