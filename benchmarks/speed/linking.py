"""Linking a question to the graph's names against searching it: the name index's cost.

For each snapshot given (built by benchmarks/quality/plan_families.py or any importer), over
the questions of its QA file: the median and 95th percentile time of `find_mentions` (the
name index lookup, the homonyms' order and the name scores: what `search` adds to its
observation) beside the time of the BM25 search itself (k=20), one warm-up question first
(the scoring kernels compile on first use); and the name index's build time and size
(rebuilt in a scratch folder from the snapshot's nodes.arrow and its nodes.parquet's aliases).

    nice -n 10 .venv/bin/python -m benchmarks.speed.linking /tmp/pf/geography \\
        /tmp/pf/icd10cm /tmp/pf/products --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from graphs.layout import NODES_FILE, STORE_FILE
from graphs.snapshot import Snapshot
from graphs.snapshot.name_store import write_name_index
from tools.mentions import find_mentions


def questions(snapshot: Path) -> list[str]:
    """Every question of the snapshot's qa/ folder (all splits; other files there are skipped)."""
    rows = [
        json.loads(line)
        for file in sorted((snapshot / "qa").glob("*.jsonl"))
        for line in file.read_text().splitlines()
    ]
    return [row["query"] for row in rows if "query" in row]


def timed(snapshot: Snapshot, queries: list[str], repeat: int) -> dict[str, float]:
    """p50 / p95 (ms) of linking and of searching each query."""
    find_mentions(snapshot, queries[0])
    snapshot.index.search(queries[0], 20)
    link, search = [], []
    for query in queries * repeat:
        started = time.perf_counter()
        find_mentions(snapshot, query)
        link.append(time.perf_counter() - started)
        started = time.perf_counter()
        snapshot.index.search(query, 20)
        search.append(time.perf_counter() - started)
    return {
        "link_p50": 1000 * statistics.median(link),
        "link_p95": 1000 * statistics.quantiles(link, n=20)[-1],
        "search_p50": 1000 * statistics.median(search),
        "search_p95": 1000 * statistics.quantiles(search, n=20)[-1],
    }


def build_cost(snapshot: Snapshot) -> tuple[float, int]:
    """Seconds and bytes of building the snapshot's name index again."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "names"
        started = time.perf_counter()
        manifest = snapshot.manifest
        write_name_index(
            out,
            snapshot.path / STORE_FILE,
            manifest.analyzer,
            manifest.content_hash,
            snapshot.path / NODES_FILE,
        )
        seconds = time.perf_counter() - started
        size = sum(file.stat().st_size for file in out.iterdir())
    return seconds, size


def main() -> None:
    """Print one markdown row per snapshot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshots", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="Passes over the questions.")
    args = parser.parse_args()
    print(
        "| graph | nodes | questions | link p50 / p95 ms | search p50 / p95 ms "
        "| index build s | index MB |"
    )
    print("|---|---|---|---|---|---|---|")
    for path in args.snapshots:
        snapshot = Snapshot.open(path)
        queries = questions(path)
        cost = timed(snapshot, queries, args.repeat)
        seconds, size = build_cost(snapshot)
        print(
            f"| {path.name} | {snapshot.num_nodes:,} | {len(queries)} "
            f"| {cost['link_p50']:.2f} / {cost['link_p95']:.2f} "
            f"| {cost['search_p50']:.2f} / {cost['search_p95']:.2f} "
            f"| {seconds:.2f} | {size / 2**20:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
