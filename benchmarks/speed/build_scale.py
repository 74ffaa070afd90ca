"""Snapshot build at scale: in-memory (before) vs bounded-memory (after) import, then queries.

The synthetic graph of benchmarks.speed.graph (Zipf degrees, 4-10 word texts) is generated
straight to Parquet in chunks, so generating never holds the graph; each import runs in a
fresh subprocess whose wall time, CPU time, peak RSS (VmHWM) and disk are recorded. A
watchdog kills an import whose RSS passes --rss-cap (the machine is shared).

Run: nice -n 10 .venv/bin/python -m benchmarks.speed.build_scale --nodes 1000000 \\
        --edges 20000000 --mode both [--memory-limit 4GB] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchmarks.speed.graph import RELATIONS, TYPES, word_texts

ROOT = Path(__file__).resolve().parents[2]
CHUNK = 1 << 20


def generate_files(num_nodes: int, num_edges: int, seed: int, workdir: Path) -> dict[str, float]:
    """Write nodes.parquet and edges.parquet chunk by chunk (memory: O(nodes) ints at most).

    Edges are drawn with Zipf-skewed sources (and half the targets), self-loops dropped;
    duplicates across chunks stay, for the import to collapse (as real data has them).
    """
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    type_names, relation_names = pa.array(list(TYPES)), pa.array(list(RELATIONS))
    node_schema = pa.schema([(name, pa.string()) for name in ("id", "type", "name", "text")])
    with pq.ParquetWriter(workdir / "nodes.parquet", node_schema) as writer:
        for start in range(0, num_nodes, CHUNK):
            count = min(CHUNK, num_nodes - start)
            types = pa.array(rng.choice(len(TYPES), count, p=list(TYPES.values())))
            numbers = pc.cast(pa.array(np.arange(start, start + count)), pa.string())
            table = pa.table(
                {
                    "id": pc.binary_join_element_wise("n", numbers, ""),
                    "type": type_names.take(types),
                    "name": pc.binary_join_element_wise(type_names.take(types), numbers, " "),
                    "text": word_texts(rng, count),
                },
                schema=node_schema,
            )
            writer.write_table(table)
    ranking = rng.permutation(num_nodes)  # popularity rank -> node: O(nodes), not O(edges)
    edge_schema = pa.schema([(name, pa.string()) for name in ("src", "dst", "relation")])
    written = 0
    with pq.ParquetWriter(workdir / "edges.parquet", edge_schema) as writer:
        while written < num_edges:
            count = min(CHUNK, num_edges - written)
            src = ranking[_zipf_ranks(rng, num_nodes, count, 0.9)]
            dst = np.where(
                rng.random(count) < 0.5,
                ranking[_zipf_ranks(rng, num_nodes, count, 0.9)],
                rng.integers(0, num_nodes, count),
            )
            keep = src != dst
            rel = rng.choice(len(RELATIONS), int(keep.sum()), p=list(RELATIONS.values()))
            src_ids = pc.binary_join_element_wise(
                "n", pc.cast(pa.array(src[keep]), pa.string()), ""
            )
            dst_ids = pc.binary_join_element_wise(
                "n", pc.cast(pa.array(dst[keep]), pa.string()), ""
            )
            writer.write_table(
                pa.table(
                    {
                        "src": src_ids,
                        "dst": dst_ids,
                        "relation": relation_names.take(pa.array(rel)),
                    },
                    schema=edge_schema,
                )
            )
            written += int(keep.sum())
    return {
        "generate_s": round(time.perf_counter() - started, 1),
        "input_mb": round(
            sum((workdir / f).stat().st_size for f in ("nodes.parquet", "edges.parquet")) / 1e6, 1
        ),
    }


def _zipf_ranks(rng: np.random.Generator, n: int, size: int, alpha: float) -> np.ndarray:
    """As benchmarks.speed.graph.zipf_choice, returning ranks (the permutation is applied once)."""
    power = 1.0 - alpha
    low, high = 10.0**power, (n + 10.0) ** power
    ranks = (low + rng.random(size) * (high - low)) ** (1.0 / power) - 10.0
    return np.minimum(ranks.astype(np.int64), n - 1)


def child_import(workdir: Path, mode: str, memory_limit: str | None) -> dict[str, Any]:
    """Import in this process (a fresh child); prints what it measured as JSON."""
    from graphs.build.options import BuildOptions
    from graphs.build.stream.budget import parse_size, peak_child_rss, peak_rss
    from graphs.build.stream.progress import RateLines
    from graphs.importers.tabular import import_tabular
    from graphs.manifest import read_manifest

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    options = BuildOptions(
        overwrite=True,
        streaming=mode == "after",
        memory_limit=parse_size(memory_limit) if memory_limit else None,
        progress=RateLines(lambda line: print(line, file=sys.stderr, flush=True), interval_s=30),
    )
    started = time.perf_counter()
    snapshot = import_tabular(
        workdir / "nodes.parquet",
        workdir / "edges.parquet",
        workdir / f"snapshot-{mode}",
        options=options,
    )
    wall = time.perf_counter() - started
    manifest = read_manifest(snapshot)
    cpu = sum(
        usage.ru_utime + usage.ru_stime
        for usage in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )  # the children: the BM25 build's tokenising processes
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_rss_gb": round(peak_rss() / 2**30, 2),
        "peak_worker_rss_gb": round(peak_child_rss() / 2**30, 2),  # largest tokenising process
        "phases_s": manifest.build_seconds,
        "num_nodes": manifest.num_nodes,
        "num_edges": manifest.num_edges,
        "duplicate_edges": manifest.duplicate_edges,
        "snapshot_gb": round(_du(snapshot) / 2**30, 2),
    }


def child_queries(snapshot: Path, seed: int) -> dict[str, Any]:
    """Open time, search and neighbour latencies (p50/p95 ms) on a built snapshot."""
    from graphs.snapshot import Snapshot

    started = time.perf_counter()
    snap = Snapshot.open(snapshot)
    open_ms = (time.perf_counter() - started) * 1e3
    rng = np.random.default_rng(seed)
    nodes = rng.integers(0, snap.manifest.num_nodes, 300)
    words = [f"w{int(i)}" for i in rng.zipf(1.3, 400) % 5000]
    queries = [f"{words[2 * i]} {words[2 * i + 1]}" for i in range(100)]
    timings: dict[str, list[float]] = {"neighbors": [], "neighbors_typed": [], "search": []}
    paper = snap.type_code("paper")
    for node in nodes.tolist():
        t0 = time.perf_counter()
        snap.neighbors(node)
        t1 = time.perf_counter()
        snap.neighbors(node, node_types=[paper])
        timings["neighbors"].append(t1 - t0)
        timings["neighbors_typed"].append(time.perf_counter() - t1)
    for query in queries:
        t0 = time.perf_counter()
        snap.index.search(query, 20)
        timings["search"].append(time.perf_counter() - t0)
    result: dict[str, Any] = {"open_ms": round(open_ms, 1)}
    for name, values in timings.items():
        ms = np.array(values) * 1e3
        result[name] = {"p50_ms": round(float(np.percentile(ms, 50)), 3),
                        "p95_ms": round(float(np.percentile(ms, 95)), 3)}  # fmt: skip
    return result


def _du(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def run_import(
    workdir: Path, mode: str, memory_limit: str | None, rss_cap_gb: float
) -> dict[str, Any]:
    """Import in a fresh subprocess, sampling its RSS and the disk it uses; kill past the cap."""
    args = [sys.executable, "-m", "benchmarks.speed.build_scale", "--child-import", mode,
            "--workdir", str(workdir)]  # fmt: skip
    args += ["--memory-limit", memory_limit] if memory_limit else []
    free_before = shutil.disk_usage(workdir).free
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    peak = {"disk": 0, "killed": False}

    def watch() -> None:
        while process.poll() is None:
            peak["disk"] = max(peak["disk"], free_before - shutil.disk_usage(workdir).free)
            if _rss_gb(process.pid) > rss_cap_gb:
                peak["killed"] = True
                process.kill()
            time.sleep(1.0)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    output, _ = process.communicate()
    watcher.join()
    if peak["killed"] or process.returncode:
        return {"failed": f"rc {process.returncode}, killed past {rss_cap_gb} GB: {peak['killed']}"}
    result = json.loads(output.strip().splitlines()[-1])
    result["peak_disk_gb"] = round(peak["disk"] / 2**30, 2)
    return result


def _rss_gb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--edges", type=int, default=20_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=["before", "after", "both"], default="both")
    parser.add_argument("--memory-limit", default=None, help="--memory-limit of the after build")
    parser.add_argument("--rss-cap", type=float, default=12.0, help="kill an import past this (GB)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work dir (snapshots)")
    parser.add_argument("--child-import", choices=["before", "after"], default=None)
    parser.add_argument("--child-queries", type=Path, default=None)
    args = parser.parse_args()
    if args.child_import:
        print(json.dumps(child_import(args.workdir, args.child_import, args.memory_limit)))
        return
    if args.child_queries:
        print(json.dumps(child_queries(args.child_queries, args.seed)))
        return
    workdir = args.workdir or Path(f"/tmp/build-scale-{args.nodes}-{args.edges}")
    workdir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"nodes": args.nodes, "edges": args.edges, "cpus": os.cpu_count()}
    if not (workdir / "edges.parquet").is_file():
        result["generate"] = generate_files(args.nodes, args.edges, args.seed, workdir)
    modes = ["before", "after"] if args.mode == "both" else [args.mode]
    for mode in modes:
        result[mode] = run_import(
            workdir, mode, args.memory_limit if mode == "after" else None, args.rss_cap
        )
        print(json.dumps({mode: result[mode]}), flush=True)
        snapshot = workdir / f"snapshot-{mode}"
        if "failed" not in result[mode]:
            command = [sys.executable, "-m", "benchmarks.speed.build_scale"]
            queries = subprocess.run(
                [*command, "--child-queries", str(snapshot)],
                cwd=ROOT, check=True, capture_output=True, text=True,
            ).stdout  # fmt: skip
            result[mode]["queries"] = json.loads(queries.strip().splitlines()[-1])
    if args.mode == "both" and all("failed" not in result[m] for m in modes):
        before, after = workdir / "snapshot-before", workdir / "snapshot-after"
        result["files_differ"] = [
            f.relative_to(before).as_posix() for f in sorted(before.rglob("*"))
            if f.is_file() and f.name != "manifest.json"
            and f.read_bytes() != (after / f.relative_to(before)).read_bytes()
        ]  # fmt: skip
    print(json.dumps(result, indent=1))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
