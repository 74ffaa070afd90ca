"""ANN for dense search: hnswlib, faiss and usearch HNSW against the exact scan (issue 41).

    nice -n 5 python -m benchmarks.speed.ann --nodes 100000,1000000 --queries 500

For each size a float16 matrix of 384-d unit vectors is made (cached in --cache) from a
documented synthetic distribution of low intrinsic dimension (`synthetic_matrix`), or read
from a snapshot's embeddings (--snapshot, MiniLM of real text). The exact reference is the
top 20 of every query by the exact scan's scores. Then, per library configuration and in
its own process (so memory is that build's alone): the build from the memory-mapped matrix
in chunks (`graphs.dense.ann_build.build_ann_index`, every core), the peak RSS growth of the
build, the index file's size, the RSS growth of loading it, and per ef_search the p50/p95
latency of one top-10 query through `AnnIndex.top_k` (HNSW candidates rescored exactly from
the matrix, one thread) and recall@10 / recall@20 against the exact scan.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil

DIM = 384
LATENT = 24
CLUSTERS = 2_000
K = (10, 20)
CONFIGS = {
    "hnswlib-f32": {"library": "hnswlib", "storage": "f32"},
    "faiss-f32": {"library": "faiss", "storage": "f32"},
    "faiss-f16": {"library": "faiss", "storage": "f16"},
    "usearch-f32": {"library": "usearch", "storage": "f32"},
    "usearch-f16": {"library": "usearch", "storage": "f16"},
}


def synthetic_block(rng: np.random.Generator, rows: int, centres: np.ndarray, basis: np.ndarray):
    """Unit vectors of intrinsic dimension about LATENT: a Gaussian mixture in LATENT dims.

    Each point is a cluster centre (one of CLUSTERS, N(0, 1) in LATENT dims) plus N(0, 0.6^2)
    within the cluster, mapped into 384 dims by a fixed random Gaussian basis, plus
    full-rank N(0, 0.02^2) noise per dimension (about 8% of the norm), then L2-normalised.
    Sentence encoders' embeddings are estimated at an intrinsic dimension of a few tens; a
    uniform random 384-d cloud (intrinsic dimension 384) would be far harder than real
    text and would not say how HNSW behaves on embeddings.
    """
    labels = rng.integers(0, len(centres), rows)
    latent = centres[labels] + 0.6 * rng.standard_normal((rows, LATENT), dtype=np.float32)
    block = latent @ basis + 0.02 * rng.standard_normal((rows, DIM), dtype=np.float32)
    return block / np.linalg.norm(block, axis=1, keepdims=True)


def synthetic_matrix(nodes: int, queries: int, cache: Path) -> tuple[Path, np.ndarray]:
    """The cached float16 matrix of `nodes` rows and `queries` query vectors (same law)."""
    path = cache / f"synthetic_{nodes}.npy"
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((CLUSTERS, LATENT), dtype=np.float32)
    basis = rng.standard_normal((LATENT, DIM), dtype=np.float32) / np.sqrt(LATENT)
    query_rng = np.random.default_rng(8)
    query_vectors = synthetic_block(query_rng, queries, centres, basis).astype(np.float32)
    if not path.exists():
        temp = path.with_suffix(".tmp.npy")
        matrix = np.lib.format.open_memmap(temp, mode="w+", dtype=np.float16, shape=(nodes, DIM))
        for start in range(0, nodes, 100_000):
            rows = min(100_000, nodes - start)
            matrix[start : start + rows] = synthetic_block(rng, rows, centres, basis)
        matrix.flush()
        del matrix
        temp.replace(path)
    return path, query_vectors


def exact_reference(matrix: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """The exact top k of every query (float32 scores of the float16 rows, ties by id), and
    the p50 ms of one query through the exact index (`CosineIndex.top_k`, as today)."""
    from graphs.dense.cosine import CosineIndex, top_of

    kept_ids, kept_scores = [], []
    for start in range(0, len(matrix), 65_536):
        block = np.asarray(matrix[start : start + 65_536], dtype=np.float32)
        scores = queries @ block.T
        ids = np.arange(start, start + len(block))
        best = [top_of(row, ids, k) for row in scores]
        kept_ids.append(np.stack([found for found, _ in best]))
        kept_scores.append(np.stack([score for _, score in best]))
    pooled_ids, pooled = np.concatenate(kept_ids, axis=1), np.concatenate(kept_scores, axis=1)
    truth = np.stack([top_of(row, ids, k)[0] for row, ids in zip(pooled, pooled_ids, strict=True)])
    index = CosineIndex(matrix, np.zeros(len(matrix), dtype=np.int16))
    times = []
    for query in queries[:30]:
        started = time.perf_counter()
        index.top_k(query, 10)
        times.append(time.perf_counter() - started)
    return truth, 1000 * float(np.median(times))


def run_config(task: dict[str, Any], results: Any) -> None:
    """In a child process: build, load, query one configuration; put a dict on `results`."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import importlib

    from graphs.dense.ann import AnnIndex, AnnParams
    from graphs.dense.ann_build import build_ann_index
    from graphs.dense.cosine import CosineIndex

    matrix = np.load(task["matrix"], mmap_mode="c")
    params = AnnParams(**task["params"])
    importlib.import_module({"usearch": "usearch.index"}.get(params.library, params.library))
    exact = CosineIndex(matrix, np.zeros(len(matrix), dtype=np.int16))  # imports torch
    process = psutil.Process()
    start_rss = process.memory_info().rss
    path = Path(task["workdir"]) / "index.ann"
    seconds = build_ann_index(matrix, path, params)
    build_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - start_rss
    before_load = process.memory_info().rss
    index = AnnIndex.load(exact, path, params)
    loaded = process.memory_info().rss - before_load
    queries, truth = np.load(task["queries"]), np.load(task["truth"])
    rows = []
    for ef in task["ef"]:
        index.params = AnnParams(**{**task["params"], "ef_search": ef})
        row: dict[str, Any] = {"ef_search": ef}
        for k in K:
            times, hits = [], 0
            for query, gold in zip(queries, truth, strict=True):
                started = time.perf_counter()
                found, _ = index.top_k(query, k)
                times.append(time.perf_counter() - started)
                hits += len(set(found.tolist()) & set(gold[:k].tolist()))
            row[f"recall@{k}"] = hits / (k * len(queries))
            if k == 10:
                row["p50_ms"] = 1000 * float(np.median(times))
                row["p95_ms"] = 1000 * float(np.percentile(times, 95))
        rows.append(row)
    results.put(
        {
            "build_s": seconds,
            "build_rss_mb": build_peak / 1e6,
            "index_mb": path.stat().st_size / 1e6,
            "load_rss_mb": loaded / 1e6,
            "rows": rows,
        }
    )


def bench_size(nodes: int, args: argparse.Namespace) -> list[str]:
    matrix_path, queries = synthetic_matrix(nodes, args.queries, args.cache)
    matrix = np.load(matrix_path, mmap_mode="c")
    truth, exact_ms = exact_reference(matrix, queries, max(K))
    workdir = Path(tempfile.mkdtemp(dir=args.cache))
    np.save(workdir / "queries.npy", queries)
    np.save(workdir / "truth.npy", truth)
    lines = [
        f"### {nodes:,} x {DIM} (synthetic, intrinsic dimension ~{LATENT}), {len(queries)} "
        f"queries; exact scan top-10 p50 {exact_ms:.1f} ms",
        "",
        "| config | build s | build RSS MB | index MB | load RSS MB | ef_search | p50 ms | "
        "p95 ms | recall@10 | recall@20 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    context = multiprocessing.get_context("spawn")
    for name in args.configs.split(","):
        params = {
            **CONFIGS[name],
            "m": args.m,
            "ef_construction": args.ef_construction,
            "threads": args.threads,
        }
        task = {
            "matrix": str(matrix_path),
            "queries": str(workdir / "queries.npy"),
            "truth": str(workdir / "truth.npy"),
            "workdir": str(workdir),
            "params": params,
            "ef": [int(ef) for ef in args.ef.split(",")],
        }
        results = context.Queue()
        child = context.Process(target=run_config, args=(task, results))
        child.start()
        outcome = results.get()
        child.join()
        for row in outcome["rows"]:
            line = (
                f"| {name} | {outcome['build_s']:.1f} | {outcome['build_rss_mb']:,.0f} | "
                f"{outcome['index_mb']:,.0f} | {outcome['load_rss_mb']:,.0f} | "
                f"{row['ef_search']} | {row['p50_ms']:.2f} | {row['p95_ms']:.2f} | "
                f"{row['recall@10']:.4f} | {row['recall@20']:.4f} |"
            )
            lines.append(line)
            print(line, flush=True)
        (workdir / "index.ann").unlink(missing_ok=True)
        with (args.cache / "ann_results.jsonl").open("a") as log:
            log.write(json.dumps({"nodes": nodes, "config": name, **outcome}) + "\n")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=128)
    parser.add_argument("--ef", default="32,64,128,256")
    parser.add_argument("--threads", type=int, default=0, help="build threads (0: every core)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/ark-ann-bench"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    started = time.perf_counter()
    for nodes in [int(part) for part in args.nodes.split(",") if part]:
        bench_size(nodes, args)
    print(
        f"load average at the end {os.getloadavg()[0]:.1f}; "
        f"{time.perf_counter() - started:.0f} s wall",
        flush=True,
    )


if __name__ == "__main__":
    main()
