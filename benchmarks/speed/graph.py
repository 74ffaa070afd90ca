"""Snapshot benchmark: import, open (time, RSS) and typed neighbour lookups vs networkx.

Run: .venv/bin/python -m benchmarks.speed.graph [--nodes 2000000 --edges 40000000]
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]

TYPES = {"paper": 0.5, "author": 0.3, "field": 0.17, "venue": 0.03}
RELATIONS = {"cites": 0.4, "writes": 0.3, "has_field": 0.2, "published_in": 0.1}
DEGREE_BUCKETS = {"~10": (8, 12), "~1,000": (800, 1200)}
FILTERS = ("none", "type", "relation", "type+relation")
ROUNDS = 5


def zipf_choice(rng: np.random.Generator, n: int, size: int, alpha: float) -> np.ndarray:
    """Draw `size` node ids with popularity ~ (rank + 10)^-alpha over a random node ranking.

    Inverts the continuous CDF analytically (a searchsorted over 2M weights is ~10x slower).
    """
    power = 1.0 - alpha
    low, high = 10.0**power, (n + 10.0) ** power
    ranks = (low + rng.random(size) * (high - low)) ** (1.0 / power) - 10.0
    ranks = np.minimum(ranks.astype(np.int64), n - 1)
    return rng.permutation(n)[ranks]


def word_texts(rng: np.random.Generator, count: int) -> pa.Array:
    """`count` texts of 4-10 Zipf-distributed words from a 5,000-word vocabulary."""
    vocab = pa.array([f"w{i}" for i in range(5000)])
    lengths = rng.integers(4, 11, count)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    words = vocab.take(pa.array((rng.zipf(1.3, int(offsets[-1])) - 1) % len(vocab)))
    return pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), words), " ")


def generate(num_nodes: int, num_edges: int, seed: int) -> tuple[pa.Table, pa.Table]:
    """Skewed synthetic graph: a few types/relations, Zipf degrees (hubs), short texts."""
    rng = np.random.default_rng(seed)
    type_names, relation_names = pa.array(list(TYPES)), pa.array(list(RELATIONS))
    types = pa.array(rng.choice(len(TYPES), num_nodes, p=list(TYPES.values())))
    numbers = pc.cast(pa.array(np.arange(num_nodes)), pa.string())
    ids = pc.binary_join_element_wise("n", numbers, "")
    names = pc.binary_join_element_wise(type_names.take(types), numbers, " ")
    nodes = pa.table(
        {
            "id": ids,
            "type": type_names.take(types),
            "name": names,
            "text": word_texts(rng, num_nodes),
        }
    )
    draw = int(num_edges * 1.15) + 100
    src = zipf_choice(rng, num_nodes, draw, 0.9)
    dst = np.where(
        rng.random(draw) < 0.5,
        zipf_choice(rng, num_nodes, draw, 0.9),
        rng.integers(0, num_nodes, draw),
    )
    rel = rng.choice(len(RELATIONS), draw, p=list(RELATIONS.values()))
    key = (src.astype(np.int64) * len(RELATIONS) + rel) * num_nodes + dst
    key = np.sort(key[src != dst])
    key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    key = key[rng.permutation(len(key))[:num_edges]]
    rest, dst = np.divmod(key, num_nodes)
    src, rel = np.divmod(rest, len(RELATIONS))
    edges = pa.table(
        {
            "src": ids.take(pa.array(src)),
            "dst": ids.take(pa.array(dst)),
            "relation": relation_names.take(pa.array(rel)),
        }
    )
    return nodes, edges


def timed_calls(call: Any, args: list[Any], rounds: int = ROUNDS) -> dict[str, float]:
    """p50/p95 in microseconds of `call(arg)` over all args, `rounds` times."""
    samples = []
    gc.collect()
    gc.disable()  # the same for both sides: no collector pauses inside timed calls
    for _ in range(rounds):
        for arg in args:
            started = time.perf_counter_ns()
            call(arg)
            samples.append(time.perf_counter_ns() - started)
    gc.enable()
    values = np.array(samples) / 1000
    return {"p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95))}


def pick_nodes(
    degrees: np.ndarray, rng: np.random.Generator, count: int = 200
) -> dict[str, list[int]]:
    picked = {}
    for label, (low, high) in DEGREE_BUCKETS.items():
        pool = np.flatnonzero((degrees >= low) & (degrees <= high))
        picked[label] = rng.choice(pool, min(count, len(pool)), replace=False).tolist()
    picked["max"] = [int(np.argmax(degrees))]
    return picked


def child_open(path: str) -> dict[str, Any]:
    """In a fresh process: open the snapshot, report time and RSS, then time lookups."""
    import psutil

    from graphs.snapshot import Snapshot

    process = psutil.Process()
    before = process.memory_info().rss
    started = time.perf_counter()
    snap = Snapshot.open(path)
    open_s = time.perf_counter() - started
    after = process.memory_info().rss
    rss_split_after_open = rss_split()
    degrees = snap.degrees
    nodes = pick_nodes(degrees, np.random.default_rng(1))
    paper, cites = [snap.type_code("paper")], [snap.relation_code("cites")]
    calls = {
        "none": lambda n: snap.neighbors(n),
        "type": lambda n: snap.neighbors(n, node_types=paper),
        "relation": lambda n: snap.neighbors(n, relations=cites),
        "type+relation": lambda n: snap.neighbors(n, node_types=paper, relations=cites),
    }
    lookups = {
        label: {
            "nodes": len(ids),
            "mean_degree": float(degrees[ids].mean()) if ids else 0.0,
            **{name: timed_calls(call, ids) for name, call in calls.items()},
        }
        for label, ids in nodes.items()
        if ids
    }
    started = time.perf_counter()
    for node in nodes["~10"][:100]:
        snap.internal_id(snap.external_id(node))
    id_us = (time.perf_counter() - started) / max(len(nodes["~10"][:100]), 1) * 1e6
    return {
        "open_s": open_s,
        "rss_before_open_mb": before / 2**20,
        "rss_after_open_mb": after / 2**20,
        "rss_split_after_open": rss_split_after_open,
        "lookups": lookups,
        "id_roundtrip_us": id_us,
        "rss_after_lookups_mb": process.memory_info().rss / 2**20,
        "rss_split_after_lookups": rss_split(),
    }


def rss_split() -> str:
    """Anonymous vs file-backed (memory-mapped, reclaimable page cache) resident memory."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile"):
            fields[key] = int(value.split()[0]) / 1024
    anonymous, mapped = fields.get("RssAnon", 0.0), fields.get("RssFile", 0.0)
    return f"{anonymous:.0f} MB anonymous + {mapped:.0f} MB mapped files"


def child_networkx(workdir: str, num_edges: int) -> dict[str, Any]:
    """In a fresh process: a networkx MultiDiGraph of the first edges, its memory and lookups."""
    import networkx as nx
    import psutil

    edges = pq.read_table(Path(workdir) / "edges.parquet").slice(0, num_edges)
    nodes = pq.read_table(Path(workdir) / "nodes.parquet", columns=["id", "type"])
    node_type = dict(
        zip(nodes.column("id").to_pylist(), nodes.column("type").to_pylist(), strict=True)
    )
    src, dst = edges.column("src").to_pylist(), edges.column("dst").to_pylist()
    relation = edges.column("relation").to_pylist()
    del edges, nodes
    process = psutil.Process()
    before = process.memory_info().rss
    graph = nx.MultiDiGraph()
    for node in set(src) | set(dst):
        graph.add_node(node, type=node_type[node])
    for s, d, r in zip(src, dst, relation, strict=True):
        graph.add_edge(s, d, relation=r)
    used = process.memory_info().rss - before
    del node_type
    labels = list(graph.nodes)
    degrees = np.array([graph.degree(node) for node in labels])
    picked = pick_nodes(degrees, np.random.default_rng(1))
    node_types = graph.nodes

    def around(node: str, types: set[str] | None, relations: set[str] | None) -> list[Any]:
        found = []
        for adjacency, direction in ((graph.succ[node], 1), (graph.pred[node], -1)):
            for other, keyed in adjacency.items():
                if types is not None and node_types[other]["type"] not in types:
                    continue
                for data in keyed.values():
                    if relations is None or data["relation"] in relations:
                        found.append((other, data["relation"], direction))
        return found

    calls = {
        "none": lambda n: around(n, None, None),
        "type": lambda n: around(n, {"paper"}, None),
        "relation": lambda n: around(n, None, {"cites"}),
        "type+relation": lambda n: around(n, {"paper"}, {"cites"}),
    }
    lookups = {}
    for label, ids in picked.items():
        if ids:
            names = [labels[i] for i in ids]
            lookups[label] = {
                "nodes": len(ids),
                "mean_degree": float(degrees[ids].mean()),
                **{name: timed_calls(call, names) for name, call in calls.items()},
            }
    return {
        "edges": graph.number_of_edges(),
        "nodes": graph.number_of_nodes(),
        "bytes_per_edge": used / graph.number_of_edges(),
        "lookups": lookups,
    }


def run_child(*args: str) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, "-m", "benchmarks.speed.graph", "--child", *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def import_graph(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    from graphs.build.options import BuildOptions
    from graphs.importers.tabular import import_tabular
    from graphs.manifest import read_manifest

    started = time.perf_counter()
    nodes, edges = generate(args.nodes, args.edges, args.seed)
    generate_s = time.perf_counter() - started
    pq.write_table(nodes, workdir / "nodes.parquet")
    pq.write_table(edges, workdir / "edges.parquet")
    del nodes, edges
    started = time.perf_counter()
    snapshot = import_tabular(
        workdir / "nodes.parquet",
        workdir / "edges.parquet",
        workdir / "snapshot",
        options=BuildOptions(overwrite=True),
    )
    import_s = time.perf_counter() - started
    manifest = read_manifest(snapshot)
    return {
        "generate_s": generate_s,
        "import_s": import_s,
        "phases_s": manifest.build_seconds,
        "index_s_per_million_nodes": manifest.build_seconds["index"] / (manifest.num_nodes / 1e6),
        "num_nodes": manifest.num_nodes,
        "num_edges": manifest.num_edges,
        "disk_mb": sum(manifest.file_sizes.values()) / 2**20,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def lookup_rows(snap: dict[str, Any], nx_result: dict[str, Any]) -> list[str]:
    rows = []
    for label in ("~10", "~1,000", "max"):
        ours, theirs = snap["lookups"].get(label), nx_result["lookups"].get(label)
        for name in FILTERS:
            cells = [label, name]
            cells += (
                [
                    f"{ours['mean_degree']:,.0f}",
                    f"{ours[name]['p50']:.1f}",
                    f"{ours[name]['p95']:.1f}",
                ]
                if ours
                else ["-"] * 3
            )
            cells += (
                [
                    f"{theirs['mean_degree']:,.0f}",
                    f"{theirs[name]['p50']:.1f}",
                    f"{theirs[name]['p95']:.1f}",
                ]
                if theirs
                else ["-"] * 3
            )
            ratio = theirs[name]["p50"] / ours[name]["p50"] if ours and theirs else None
            cells.append(f"{ratio:.1f}x" if ratio else "-")
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def report(
    args: argparse.Namespace,
    built: dict[str, Any],
    opens: list[dict[str, Any]],
    nx_result: dict[str, Any],
) -> str:
    snap = opens[-1]
    open_times = sorted(o["open_s"] for o in opens)
    median_open_ms = open_times[len(opens) // 2] * 1e3
    added_mb = snap["rss_after_open_mb"] - snap["rss_before_open_mb"]
    phases = ", ".join(f"{k} {v:.1f} s" for k, v in built["phases_s"].items())
    lines = [
        "# Graph snapshot benchmark",
        "",
        f"Command: `.venv/bin/python -m benchmarks.speed.graph --nodes {args.nodes} "
        f"--edges {args.edges} --seed {args.seed} --nx-edges {args.nx_edges}`",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}, pyarrow {pa.__version__}.",
        "Graph: Zipf-skewed degrees (hubs), 4 node types, 4 relations, 4-10 word texts.",
        "",
        "## Import and open",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| nodes / edges | {built['num_nodes']:,} / {built['num_edges']:,} | |",
        f"| import (`import_tabular` from Parquet) | {built['import_s']:.1f} s | |",
        f"| import phases | {phases} | |",
        f"| BM25 index build per million nodes | {built['index_s_per_million_nodes']:.1f} s | |",
        f"| snapshot on disk | {built['disk_mb']:,.0f} MB | |",
        f"| peak RSS of generate + import | {built['peak_rss_mb']:,.0f} MB | |",
        f"| open, median of {len(opens)} fresh processes | {median_open_ms:.0f} ms "
        f"(min {open_times[0] * 1e3:.0f}, max {open_times[-1] * 1e3:.0f}) | <= 1 s |",
        f"| RSS after open (process total) | {snap['rss_after_open_mb']:.0f} MB | <= 300 MB |",
        f"| RSS added by open | {added_mb:.0f} MB | |",
        f"| RSS after open, split | {snap['rss_split_after_open']} | |",
        f"| RSS after all lookups | {snap['rss_after_lookups_mb']:.0f} MB "
        f"({snap['rss_split_after_lookups']}) | |",
        f"| external id -> internal id -> external id | {snap['id_roundtrip_us']:.1f} us | |",
        "",
        f"## Neighbour lookups (us; {ROUNDS} rounds over up to 200 nodes per bucket)",
        "",
        f"networkx: MultiDiGraph of the first {nx_result['edges']:,} edges "
        f"({nx_result['nodes']:,} nodes), {nx_result['bytes_per_edge']:.0f} bytes per edge "
        f"(=> {nx_result['bytes_per_edge'] * built['num_edges'] / 2**30:.1f} GiB at "
        f"{built['num_edges']:,} edges). Degree buckets are chosen in each graph separately. "
        "Filters: type = neighbours of type paper, relation = cites.",
        "",
        "| degree | filter | snapshot degree | snapshot p50 | p95 | networkx degree | "
        "networkx p50 | p95 | networkx/snapshot p50 |",
        "|---|---|---|---|---|---|---|---|---|",
        *lookup_rows(snap, nx_result),
        "",
        "Target: filtered lookup p50 <= 20 us at degree ~1,000.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=2_000_000)
    parser.add_argument("--edges", type=int, default=40_000_000)
    parser.add_argument("--nx-edges", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opens", type=int, default=3, help="fresh processes timing open")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temp dir")
    parser.add_argument("--results", type=Path, default=ROOT / "bench-out/graph.md")
    parser.add_argument(
        "--skip-import",
        action="store_true",
        help="reuse WORKDIR/snapshot and the import numbers saved in WORKDIR/import.json",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        result = child_open(rest[0]) if kind == "open" else child_networkx(rest[0], int(rest[1]))
        print(json.dumps(result))
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_graph_"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        if args.skip_import:
            built = json.loads((workdir / "import.json").read_text())
        else:
            built = import_graph(workdir, args)
            (workdir / "import.json").write_text(json.dumps(built))
        logging.info("import: %s", built)
        opens = [run_child("open", str(workdir / "snapshot")) for _ in range(args.opens)]
        logging.info("open: %s", [round(o["open_s"], 3) for o in opens])
        nx_result = run_child("nx", str(workdir), str(args.nx_edges))
        text = report(args, built, opens, nx_result)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
