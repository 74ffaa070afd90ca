"""BM25 index build: in-memory ``build_index`` vs bounded-memory ``build_index_streaming``.

Each build runs in a fresh subprocess on the same synthetic nodes (names ``"<type> <i>"``, texts
of 4-10 Zipf words, as benchmarks/speed/graph.py generates them), reporting wall and CPU time
(with worker processes), peak RSS of the build process (VmHWM) and with its workers (sampled),
and the index's size; the indexes of both builds are compared byte for byte.

Run: nice -n 10 .venv/bin/python -m benchmarks.speed.bm25_build --sizes 1000000 5000000 \
    --memory-limit 1GB [--in-memory-max 5000000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil

BATCH = 100_000
SEED = 7
TYPE_SHARES = (0.5, 0.3, 0.17, 0.03)
TYPE_NAMES = ("paper", "author", "field", "venue")  # benchmarks/speed/graph.py's TYPES
SAMPLE_S = 0.2


def _types(index: int, num_nodes: int) -> np.ndarray:
    rng = np.random.default_rng([SEED, index, 0])
    count = min(BATCH, num_nodes - index * BATCH)
    return rng.choice(len(TYPE_SHARES), count, p=TYPE_SHARES).astype(np.int16)


def _batch(index: int, num_nodes: int) -> tuple[list[str], list[str]]:
    """Nodes ``index * BATCH ..`` (deterministic per batch, whatever the total)."""
    from benchmarks.speed.graph import word_texts  # pyarrow: not in tokenising workers

    first = index * BATCH
    types = _types(index, num_nodes)
    names = [f"{TYPE_NAMES[t]} {first + i}" for i, t in enumerate(types.tolist())]
    texts: list[str] = word_texts(np.random.default_rng([SEED, index, 1]), types.size).to_pylist()
    return names, texts


def _type_codes(num_nodes: int) -> np.ndarray:
    batches = range((num_nodes + BATCH - 1) // BATCH)
    return np.concatenate([_types(i, num_nodes) for i in batches] or [np.empty(0, np.int16)])


class TreeRss:
    """Samples the summed RSS of this process and its children (tokenising workers)."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(SAMPLE_S):
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)

    def stop(self) -> int:
        """Stop sampling; the peak in MiB."""
        self._stop.set()
        self._thread.join()
        return round(self.peak / 2**20)


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _child(mode: str, num_nodes: int, out: Path, memory_limit: int, workers: int) -> dict[str, Any]:
    from benchmarks.speed.graph import word_texts  # noqa: F401 - its pyarrow counts in both modes
    from graphs.bm25.build import build_index, build_index_streaming

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    codes = _type_codes(num_nodes)
    tree = TreeRss()
    generating = 0.0
    started = time.perf_counter()
    if mode == "memory":
        names: list[str] = []
        texts: list[str] = []
        for i in range((num_nodes + BATCH - 1) // BATCH):
            batch_names, batch_texts = _batch(i, num_nodes)
            names += batch_names
            texts += batch_texts
        generating = time.perf_counter() - started
        rss_before = _peak_rss_mb()
        build_index(out, names, texts, codes)
    else:
        rss_before = _peak_rss_mb()

        def batches() -> Iterator[tuple[list[str], list[str]]]:
            nonlocal generating
            for i in range((num_nodes + BATCH - 1) // BATCH):
                begun = time.perf_counter()
                batch_names, batch_texts = _batch(i, num_nodes)
                generating += time.perf_counter() - begun
                yield batch_names, batch_texts

        phases: dict[str, float] = {}
        last = [0.0]

        def progress(phase: str, done: int, total: int) -> None:
            now = time.perf_counter()
            begun = phases.setdefault(phase, now)
            if now - last[0] > 20 or done == total:
                last[0] = now
                rate = done / max(now - begun, 1e-9)
                eta = (total - done) / max(rate, 1e-9)
                print(
                    f"  {phase} {done:,}/{total:,} after {now - begun:.0f} s: "
                    f"{rate:,.0f}/s, ETA {eta:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )

        with tempfile.TemporaryDirectory(dir=out.parent) as spill:
            build_index_streaming(
                out,
                batches(),
                codes,
                memory_limit_bytes=memory_limit,
                spill_dir=Path(spill),
                workers=workers,
                progress=progress,
            )
    wall = time.perf_counter() - started - generating
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return {
        "mode": mode,
        "nodes": num_nodes,
        "build_wall_s": round(wall, 1),
        "generate_s": round(generating, 1),
        "cpu_s": round(own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, 1),
        "peak_rss_mb": round(_peak_rss_mb()),
        "rss_before_build_mb": round(rss_before),
        "tree_peak_rss_mb": tree.stop(),
        "index_mb": round(sum(p.stat().st_size for p in out.iterdir()) / 2**20),
    }


def _digest(directory: Path) -> dict[str, str]:
    digests = {}
    for path in sorted(directory.iterdir()):
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while block := handle.read(1 << 22):
                digest.update(block)
        digests[path.name] = digest.hexdigest()
    return digests


def _run(mode: str, size: int, out: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.speed.bm25_build", "--child", mode, str(size)]
    command += [str(out), "--memory-limit", str(args.memory_limit), "--workers", str(args.workers)]
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _bytes(text: str) -> int:
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 5_000_000])
    parser.add_argument("--memory-limit", type=_bytes, default=10**9)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--in-memory-max", type=int, default=5_000_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--child", nargs=3, metavar=("MODE", "NODES", "OUT"))
    args = parser.parse_args()
    if args.child:
        mode, size, out = args.child
        result = _child(mode, int(size), Path(out), args.memory_limit, args.workers)
        print(json.dumps(result), flush=True)
        return
    workdir = Path(tempfile.mkdtemp(prefix="bm25-bench-", dir=args.workdir))
    print(f"# {psutil.cpu_count()} cores; memory limit {args.memory_limit:,} bytes", flush=True)
    try:
        for size in args.sizes:
            runs = []
            modes = ["streaming"] + (["memory"] if size <= args.in_memory_max else [])
            for mode in modes:
                runs.append(_run(mode, size, workdir / mode, args))
                print(json.dumps(runs[-1]), flush=True)
            if len(runs) == 2:
                same = _digest(workdir / "streaming") == _digest(workdir / "memory")
                print(json.dumps({"nodes": size, "identical_files": same}), flush=True)
            for mode in modes:
                shutil.rmtree(workdir / mode)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
