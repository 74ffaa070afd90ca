"""What the per-file checksums cost: at build, at the first open after a change, at later opens.

The graph of benchmarks.speed.build_scale (Zipf degrees, 4-10 word texts) is generated to
Parquet and imported with the bounded-memory build. Then, each in a fresh process (the page
cache warm from the build, as after any import):

- `Snapshot.open` with the stamp cache empty: every file hashed (the first open after a build,
  a copy, or a change to every file);
- `Snapshot.open` again: only a `stat` per file (every later open);
- `Snapshot.open` of the same snapshot with its checksums dropped from the manifest (a
  snapshot built before they were recorded): the open without the check.

Also: the checksum pass's share of the build (hashing every file the build wrote, timed apart).

Run: nice -n 10 .venv/bin/python -m benchmarks.speed.open_checksums --nodes 1000000 \\
        --edges 10000000 [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.speed.build_scale import generate_files

CHILD = """
import json, sys, time
t = time.perf_counter()
from graphs.snapshot import Snapshot
imported = time.perf_counter()
Snapshot.open(sys.argv[1])
print(json.dumps({"open_s": round(time.perf_counter() - imported, 3)}))
"""


def open_once(snapshot: Path, cache: Path) -> float:
    """Seconds `Snapshot.open` takes in a fresh process with stamp cache `cache`."""
    env = {**os.environ, "ARK_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(snapshot)], capture_output=True,
                          text=True, check=True, env=env)  # fmt: skip
    return float(json.loads(done.stdout.strip().splitlines()[-1])["open_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--edges", type=int, default=10_000_000)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ark-checksums-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if not (workdir / "edges.parquet").is_file():
        generate_files(args.nodes, args.edges, 0, workdir)
    snapshot = workdir / "snapshot"
    started = time.perf_counter()
    if not (snapshot / "manifest.json").is_file():
        subprocess.run([sys.executable, "-c", "from cli.app import main; main()", "graph",
                        "import", "tabular", "--nodes", str(workdir / "nodes.parquet"), "--edges",
                        str(workdir / "edges.parquet"), "--out", str(snapshot), "--overwrite",
                        "--memory-limit", "4GB"], check=True, capture_output=True)  # fmt: skip
    build_s = time.perf_counter() - started
    from graphs.snapshot.checksums import file_checksums

    started = time.perf_counter()
    sums = file_checksums(snapshot, skip=["manifest.json"])
    hash_s = time.perf_counter() - started
    size = sum((snapshot / relative).stat().st_size for relative in sums)
    cache = workdir / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    first = open_once(snapshot, cache)
    later = min(open_once(snapshot, cache) for _ in range(3))
    bare = workdir / "bare"
    shutil.rmtree(bare, ignore_errors=True)
    shutil.copytree(snapshot, bare, copy_function=os.link)  # hard links: same files
    manifest = json.loads((bare / "manifest.json").read_text())
    manifest["file_checksums"] = {}
    (bare / "manifest.json").unlink()
    (bare / "manifest.json").write_text(json.dumps(manifest))
    without = min(open_once(bare, cache) for _ in range(3))
    print(json.dumps({
        "nodes": args.nodes, "edges": args.edges, "files": len(sums),
        "snapshot_gb": round(size / 1e9, 2), "build_s": round(build_s, 1),
        "hash_all_s": round(hash_s, 2), "open_first_s": first, "open_later_s": later,
        "open_without_checksums_s": without,
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
