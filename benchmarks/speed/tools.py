"""Benchmark the agent's tools end to end (Toolset.call: parse, run, format) on a large snapshot.

Run: .venv/bin/python -m benchmarks.speed.tools [--nodes 1000000] [--workdir DIR]

Node names and texts are bench_search.py's corpus (same generator, same seed); edges are added
here: a Zipf background (skewed degrees) plus planted hubs of 1,000, 20,000 and 100,000 edges.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from benchmarks.harness import make_corpus
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from tools.neighbor_set import NeighborSet
from tools.toolset import Toolset

ROOT = Path(__file__).resolve().parents[2]

TYPE_NAMES = ["paper", "author", "field", "venue"]  # make_corpus's type codes 0..3
RELATIONS = ["cites", "writes", "has_field", "published_in"]
PLANTED = {1_000: 5, 20_000: 3, 100_000: 1}  # hub degree -> how many hubs
BUCKETS = {"~10": (8, 12), "~1,000": (800, 1_300), "~20,000": (16_000, 26_000)}
ANCHORS_PER_BUCKET = 10


def make_edges(num_nodes: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(src, dst, relation code) without duplicates or self-loops."""
    rng = np.random.default_rng(seed + 2)
    count = 3 * num_nodes
    weights = 1.0 / np.arange(10, num_nodes + 10, dtype=np.float64) ** 0.9
    cdf = np.cumsum(weights)
    popular = rng.permutation(num_nodes)[np.searchsorted(cdf, rng.random(count) * cdf[-1])]
    src_parts, dst_parts = [rng.integers(0, num_nodes, count)], [popular]
    hubs = rng.choice(num_nodes, sum(PLANTED.values()), replace=False)
    position = 0
    for degree, how_many in PLANTED.items():
        for hub in hubs[position : position + how_many]:
            others = rng.choice(num_nodes, min(degree, num_nodes - 1), replace=False)
            outgoing = rng.random(len(others)) < 0.5
            src_parts.append(np.where(outgoing, hub, others))
            dst_parts.append(np.where(outgoing, others, hub))
        position += how_many
    src, dst = np.concatenate(src_parts), np.concatenate(dst_parts)
    relation = rng.integers(0, len(RELATIONS), len(src))
    key = (src.astype(np.int64) * len(RELATIONS) + relation) * num_nodes + dst
    key = np.unique(key[src != dst])
    rest, dst = np.divmod(key, num_nodes)
    src, relation = np.divmod(rest, len(RELATIONS))
    return src, dst, relation


def build(out: Path, args: argparse.Namespace) -> float:
    """Generate the tables and build the snapshot; returns seconds taken."""
    started = time.perf_counter()
    names, texts, types = make_corpus(args.nodes, args.vocab, args.seed)
    ids = np.array([f"n{i}" for i in range(args.nodes)], dtype=object)
    nodes = pa.table(
        {
            "id": ids,
            "type": np.array(TYPE_NAMES, dtype=object)[types],
            "name": names,
            "text": texts,
        }
    )
    del names, texts
    src, dst, relation = make_edges(args.nodes, args.seed)
    edges = pa.table(
        {
            "src": ids[src],
            "dst": ids[dst],
            "relation": np.array(RELATIONS, dtype=object)[relation],
        }
    )
    build_snapshot(
        nodes,
        edges,
        out,
        name=f"bench-tools-{args.nodes}",
        options=BuildOptions(overwrite=True),
    )
    return time.perf_counter() - started


def latency(call: Callable[[str], object], inputs: Sequence[str]) -> str:
    """`p50 | p95 | cpu p50` in ms of `call` over `inputs`, after a warm-up pass.

    Wall time is what an agent waits; CPU time of this thread is also shown because the
    benchmark machine is shared (wall percentiles grow with other processes' load).
    """
    for item in inputs[:20]:
        call(item)
    wall, cpu = [], []
    for item in inputs:
        started, started_cpu = time.perf_counter(), time.thread_time()
        call(item)
        cpu.append(time.thread_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    p50, p95 = np.percentile(np.array(wall) * 1e3, [50, 95])
    return f"{p50:.3f} | {p95:.3f} | {np.median(cpu) * 1e3:.3f}"


def make_queries(snapshot: Snapshot, count: int, seed: int) -> list[str]:
    """bench_search.py's query shape: a random node's first name word plus 1-3 of its text words."""
    rng = np.random.default_rng(seed + 1)
    queries = []
    for node in rng.integers(0, snapshot.num_nodes, count).tolist():
        words = snapshot.text(node).split()
        picked = rng.choice(words, int(rng.integers(1, 4)), replace=False).tolist()
        queries.append(" ".join([*snapshot.name(node).split()[:1], *picked]))
    return queries


def search_rows(toolset: Toolset, queries: list[str]) -> list[str]:
    """Markdown rows: global search through Toolset.call, top-5 and top-20."""
    rows = []
    for k in (5, 20):
        calls = [json.dumps({"query": query, "k": k}) for query in queries]
        timings = latency(lambda arguments: _checked(toolset, "search", arguments), calls)
        rows.append(f"| search top-{k} | {len(calls)} | {timings} |")
    return rows


def anchors_by_bucket(snapshot: Snapshot, seed: int) -> dict[str, np.ndarray]:
    """Up to ANCHORS_PER_BUCKET nodes per degree bucket, plus the max-degree node."""
    rng = np.random.default_rng(seed + 3)
    degrees = snapshot.degrees
    buckets = {}
    for label, (low, high) in BUCKETS.items():
        found = np.flatnonzero((degrees >= low) & (degrees <= high))
        if len(found):
            buckets[label] = rng.choice(found, min(ANCHORS_PER_BUCKET, len(found)), replace=False)
    buckets[f"max ({int(degrees.max()):,})"] = np.array([int(np.argmax(degrees))])
    return buckets


def neighbor_calls(
    snapshot: Snapshot, anchors: np.ndarray, variant: str, rounds: int, rng: np.random.Generator
) -> list[str]:
    """JSON arguments of neighbors calls around `anchors` (query words from a neighbour's text)."""
    calls = []
    for index in range(rounds):
        anchor = int(anchors[index % len(anchors)])
        hood = snapshot.neighbors(anchor)
        arguments: dict[str, object] = {"node_id": snapshot.external_id(anchor), "k": 20}
        if "query" in variant:
            other = int(hood.nodes[rng.integers(len(hood.nodes))])
            words = snapshot.text(other).split()
            arguments["query"] = " ".join(rng.choice(words, min(3, len(words)), replace=False))
        if "filters" in variant:
            arguments["node_types"] = [TYPE_NAMES[0]]
            arguments["edge_types"] = [RELATIONS[int(rng.integers(len(RELATIONS)))]]
        calls.append(json.dumps(arguments))
    return calls


def neighbor_rows(snapshot: Snapshot, toolset: Toolset, rounds: int, seed: int) -> list[str]:
    """Markdown rows: neighbors p50/p95 per degree bucket and variant.

    The `query: BM25 scoring only` rows time grouping the neighbour set and graphs'
    `score_nodes` on its distinct nodes for the same calls, to show how much of a ranked call
    is scoring.
    """
    rng = np.random.default_rng(seed + 4)
    rows = []
    for label, anchors in anchors_by_bucket(snapshot, seed).items():
        degree = int(np.median(snapshot.degrees[anchors]))
        for variant in ("plain", "query", "filters", "query+filters"):
            calls = neighbor_calls(snapshot, anchors, variant, rounds, rng)
            timings = latency(lambda arguments: _checked(toolset, "neighbors", arguments), calls)
            rows.append(f"| {label} | {len(anchors)} | {degree:,} | {variant} | {timings} |")
            if variant == "query":
                scoring = latency(lambda arguments: _score_only(snapshot, arguments), calls)
                rows.append(
                    f"| {label} | {len(anchors)} | {degree:,} | query: BM25 scoring only "
                    f"| {scoring} |"
                )
    return rows


def _score_only(snapshot: Snapshot, arguments: str) -> None:
    call = json.loads(arguments)
    hood = snapshot.neighbors(snapshot.internal_id(call["node_id"]))
    snapshot.index.score_nodes(call["query"], NeighborSet.of(hood).nodes)


def _checked(toolset: Toolset, name: str, arguments: str) -> None:
    observation = toolset.call(name, arguments)
    if observation.error is not None:
        raise RuntimeError(f"benchmark call failed: {name} {arguments}: {observation.text}")


def main() -> None:
    """Build (or reuse) the snapshot, time the tools, write the markdown report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--vocab", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=200, help="neighbors calls per row")
    parser.add_argument("--workdir", type=Path, default=None, help="reuse a snapshot built here")
    parser.add_argument("--results", type=Path, default=ROOT / "bench-out/tools.md")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    with tempfile.TemporaryDirectory() as temp:
        workdir = args.workdir or Path(temp)
        out = workdir / f"snapshot-{args.nodes}-{args.seed}"
        build_s = None if (out / "manifest.json").exists() else build(out, args)
        open_started = time.perf_counter()
        snapshot = Snapshot.open(out)
        toolset = Toolset(snapshot)
        open_s = time.perf_counter() - open_started
        queries = make_queries(snapshot, args.queries, args.seed)
        lines = [
            "# Tools benchmark (Toolset.call end to end: JSON parse, validate, run, format)\n",
            f"Command: `.venv/bin/python -m benchmarks.speed.tools --nodes {args.nodes}`\n",
            f"Snapshot: {snapshot.num_nodes:,} nodes, {snapshot.num_edges:,} edges "
            f"(build {'reused' if build_s is None else f'{build_s:.0f} s'}, "
            f"open + Toolset {open_s * 1e3:.0f} ms). Latencies in ms, single thread; "
            f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.\n",
            "| call | calls | p50 | p95 | cpu p50 |",
            "|---|---|---|---|---|",
            *search_rows(toolset, queries),
            "",
            "neighbors, k = 20; query = 3 words of a random neighbour's text; filters = "
            "node_types [paper] + one random edge type.\n",
            "| degree bucket | anchors | median degree | variant | p50 | p95 | cpu p50 |",
            "|---|---|---|---|---|---|---|",
            *neighbor_rows(snapshot, toolset, args.rounds, args.seed),
        ]
    report = "\n".join(lines) + "\n"
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(report)
    print(report)


if __name__ == "__main__":
    main()
