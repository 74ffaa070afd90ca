"""Time `Snapshot.open` on a large synthetic snapshot, and the share its invariant checks take.

Run: ``nice -n 10 .venv/bin/python -m benchmarks.speed.snapshot_open --nodes 2000000``.
The graph: NODES nodes of 4 types with 8 words each (a 50,000-word vocabulary, Zipf-like),
3 x NODES random edges of 4 relations. Opens are timed warm (files in the page cache), the
median of --repeats; the checks are timed alone on the opened snapshot.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.bm25.invariants import check_index
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from graphs.verify import verify_snapshot


def _build(out: Path, num_nodes: int) -> None:
    rng = np.random.default_rng(0)
    ids = pa.array([f"n{i}" for i in range(num_nodes)])
    words = np.array([f"w{i}" for i in range(50_000)])
    picks = np.minimum(rng.zipf(1.3, size=(num_nodes, 8)) - 1, len(words) - 1)
    texts = [" ".join(row) for row in words[picks].tolist()]
    types = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, num_nodes)]
    nodes = pa.table({"id": ids, "type": types, "name": ids, "text": texts})
    num_edges = 3 * num_nodes
    edges = pa.table(
        {
            "src": ids.take(pa.array(rng.integers(0, num_nodes, num_edges))),
            "dst": ids.take(pa.array(rng.integers(0, num_nodes, num_edges))),
            "relation": np.array(["r1", "r2", "r3", "r4"])[rng.integers(0, 4, num_edges)],
        }
    )
    build_snapshot(nodes, edges, out, name="open-bench", options=BuildOptions(overwrite=True))


def _median_seconds(run: object, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    """Build (once) and time opens, the checks alone and a full verify."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=2_000_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/ark-open-bench"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--verify", action="store_true", help="Also time `ark graph verify`.")
    args = parser.parse_args()
    snap = args.out / f"n{args.nodes}"
    if not (snap / "manifest.json").is_file():
        began = time.perf_counter()
        _build(snap, args.nodes)
        print(f"built {snap} in {time.perf_counter() - began:.1f} s")
    snapshot = Snapshot.open(snap)  # warm the page cache
    print(f"{snapshot}; postings {snapshot.index._arrays[0].docs.size:,}")
    opened = _median_seconds(lambda: Snapshot.open(snap), args.repeats)
    core = _median_seconds(lambda: snapshot.check(full=False), args.repeats)
    postings, impacts, maxima = snapshot.index._arrays
    index = _median_seconds(
        lambda: check_index(
            snapshot.num_nodes,
            postings,
            impacts,
            maxima,
            snapshot.index._vocab,
            snapshot.index.node_types,
            len(snapshot.node_type_names),
        ),
        args.repeats,
    )
    print(f"Snapshot.open (warm, median of {args.repeats}): {opened * 1000:.0f} ms")
    print(f"  of which CSR/ids/nodes.arrow checks: {core * 1000:.0f} ms")
    print(f"  of which BM25 index checks: {index * 1000:.0f} ms")
    if args.verify:
        began = time.perf_counter()
        checks = verify_snapshot(snap)
        total = time.perf_counter() - began
        print(f"verify: {total:.1f} s, all ok: {not any(c.problem for c in checks)}")
        for check in checks:
            print(f"  {check.name}: {check.seconds:.2f} s")


if __name__ == "__main__":
    main()
