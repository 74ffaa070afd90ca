"""Dense retrieval speed: encoding throughput, GME variant build times, dense_search latency.

    python -m benchmarks.speed.dense --encoder DIR --texts-from SNAPSHOT \
        --encode 256 --variant-nodes 100000 --search-nodes 100000,1000000

* encoding: the real encoder on the first N node texts of a real snapshot (texts/s), and the
  p50 of one query encoding;
* variants: every GME variant on a 100K-node power-law graph (about 5 edges per node, Zipf
  targets so there are hubs) over random unit vectors (build time does not depend on them);
* dense_search: exact cosine top-10 over a memory-mapped float16 matrix of random unit
  vectors (the speed of a scan does not depend on the values), p50 over 30 queries, with and
  without a node-type filter, and the process RSS after opening and after the first query;
  the scan alone (and the GB/s it reads), the exact two-level selection against a one-level
  selection and torch.topk over the same scores, and the same matrix in ordinary memory.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psutil
import torch

from graphs.dense.build import node_text
from graphs.dense.cosine import CosineIndex, block_top_k, top_of
from graphs.dense.encoder import TextEncoder
from graphs.dense.gme import VARIANT_FUNCTIONS, GMEParams, normalised
from graphs.dense.gme_graph import SimpleGraph
from graphs.snapshot import Snapshot

DIM = 384


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 1e6


def bench_encoding(encoder: TextEncoder, snapshot_dir: Path, count: int) -> list[str]:
    snapshot = Snapshot.open(snapshot_dir)
    texts = [node_text(snapshot, node) for node in range(min(count, snapshot.num_nodes))]
    encoder.encode(texts[:8])  # warm-up
    started = time.perf_counter()
    encoder.encode(texts)
    seconds = time.perf_counter() - started
    chars = np.mean([len(text) for text in texts])
    times = []
    for text in texts[:20]:
        t = time.perf_counter()
        encoder.encode_query(text[:200])
        times.append(time.perf_counter() - t)
    return [
        f"encoding: {len(texts)} node texts (mean {chars:.0f} chars) in {seconds:.1f}s = "
        f"{len(texts) / seconds:.1f} texts/s; one query p50 {1000 * np.median(times):.1f} ms"
    ]


def power_law_graph(nodes: int, per_node: int, seed: int) -> SimpleGraph:
    rng = np.random.default_rng(seed)
    sources = np.repeat(np.arange(nodes), per_node)
    targets = (rng.zipf(1.6, len(sources)) - 1) % nodes
    targets = rng.permutation(nodes)[targets]  # hubs anywhere, not only low ids
    return SimpleGraph.from_pairs(nodes, sources, targets)


def bench_variants(nodes: int) -> list[str]:
    graph = power_law_graph(nodes, 5, 0)
    rng = np.random.default_rng(1)
    x = normalised(rng.standard_normal((nodes, DIM), dtype=np.float32))
    lines = [
        f"variants on a {nodes:,}-node power-law graph ({len(graph.indices) // 2:,} edges, "
        f"max degree {int(graph.degrees.max()):,}), random {DIM}-d unit vectors:"
    ]
    for name, function in VARIANT_FUNCTIONS.items():
        started = time.perf_counter()
        _, stats = function(x, graph, GMEParams())
        lines.append(f"  {name:<8} {time.perf_counter() - started:7.1f}s  {stats}")
    return lines


def random_matrix(nodes: int, cache: Path) -> Path:
    path = cache / f"random_{nodes}.npy"
    if not path.exists():
        rng = np.random.default_rng(2)
        matrix = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(nodes, DIM))
        for start in range(0, nodes, 100_000):
            block = rng.standard_normal((min(100_000, nodes - start), DIM), dtype=np.float32)
            matrix[start : start + len(block)] = normalised(block).astype(np.float16)
        matrix.flush()
        del matrix
    return path


def p50_ms(run: Callable[[], object], queries: int) -> float:
    times = []
    for _ in range(queries):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return 1000 * float(np.median(times))


def bench_search(nodes: int, cache: Path, queries: int) -> list[str]:
    """p50 of top-10 (scan + exact two-level selection), of the scan alone, of the selection
    alone against a one-level exact selection over every score (argpartition, as before) and
    torch.topk, with and without a type filter; the matrix mapped (as dense_search opens it)
    and, for comparison, read into ordinary memory."""
    path = random_matrix(nodes, cache)
    types = (np.arange(nodes) % 4).astype(np.int16)
    before = rss_mb()
    index = CosineIndex(np.load(path, mmap_mode="c"), types)
    opened = rss_mb()
    rng = np.random.default_rng(3)
    query = normalised(rng.standard_normal((1, DIM), dtype=np.float32))[0]
    index.top_k(query, 10)
    first = rss_mb()
    scores = index.scores(query)
    gigabytes = nodes * DIM * 2 / 1e9
    scan = p50_ms(lambda: index.scores(query), queries)
    lines = [
        f"dense_search index at {nodes:,} x {DIM} float16 (random unit vectors), p50 of "
        f"{queries} queries: top-10 {p50_ms(lambda: index.top_k(query, 10), queries):.1f} ms, "
        f"with a type filter {p50_ms(lambda: index.top_k(query, 10, node_types=[1]), queries):.1f}"
        f" ms; the scan alone {scan:.1f} ms = {gigabytes / (scan / 1000):.1f} GB/s; "
        f"RSS +{opened - before:.0f} MB after open, +{first - before:.0f} MB after the first "
        f"query (the matrix is {gigabytes * 1000:.0f} MB)",
        f"  selecting the top 10 of {nodes:,} scores: two-level "
        f"{p50_ms(lambda: block_top_k(scores, 10), queries):.2f} ms, one-level argpartition "
        f"{p50_ms(lambda: top_of(scores, np.arange(nodes), 10), queries):.2f} ms, torch.topk "
        f"{p50_ms(lambda: torch.topk(torch.from_numpy(scores), 10), queries):.2f} ms",
    ]
    words = torch.from_numpy(index.matrix).view(torch.float32)  # same bytes, a plain read
    read = p50_ms(lambda: words.sum(), queries)
    lines.append(
        f"  reading the mapped matrix once (a float32 sum of its bytes): {read:.1f} ms = "
        f"{gigabytes / (read / 1000):.1f} GB/s, the memory bandwidth the scan is bound by"
    )
    resident = CosineIndex(np.load(path), types)
    lines.append(
        f"  the same matrix read into ordinary memory: top-10 "
        f"{p50_ms(lambda: resident.top_k(query, 10), queries):.1f} ms, the scan alone "
        f"{p50_ms(lambda: resident.scores(query), queries):.1f} ms"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", type=Path)
    parser.add_argument("--texts-from", type=Path)
    parser.add_argument("--encode", type=int, default=256)
    parser.add_argument("--variant-nodes", type=int, default=100_000)
    parser.add_argument("--search-nodes", default="100000,1000000")
    parser.add_argument("--search-queries", type=int, default=30)
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/dense/speed"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    lines: list[str] = [f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"]
    print(lines[0], flush=True)
    if args.encoder and args.texts_from:
        lines += bench_encoding(TextEncoder.load(args.encoder), args.texts_from, args.encode)
        print(lines[-1], flush=True)
    for nodes in [int(part) for part in args.search_nodes.split(",") if part]:
        found = bench_search(nodes, args.cache, args.search_queries)
        lines += found
        print("\n".join(found), flush=True)
    if args.variant_nodes:
        lines += bench_variants(args.variant_nodes)
        print("\n".join(lines[-6:]), flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}; CPU {time.process_time():.0f} s")


if __name__ == "__main__":
    main()
