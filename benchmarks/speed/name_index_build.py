"""Building the name index (graphs/snapshot/names.py) at scale: time, peak memory, size on disk.

Names of 1-3 words drawn from a 50,000-word Zipf vocabulary (alpha 1.3), seeded; the index
is written with the default analyzer into a scratch folder. Peak RSS is the process's own
(`ru_maxrss`), printed beside what it held before the build.

    nice -n 10 .venv/bin/python -m benchmarks.speed.name_index_build --nodes 1000000
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from graphs.build.options import DEFAULT_BUILD_ANALYZER
from graphs.snapshot.name_store import write_names

VOCABULARY = 50_000


def zipf_names(count: int, seed: int) -> Iterator[str]:
    """`count` names of 1-3 words."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(VOCABULARY)]
    ranks = np.minimum(rng.zipf(1.3, size=3 * count), VOCABULARY) - 1
    lengths = rng.integers(1, 4, size=count)
    at = 0
    for length in lengths.tolist():
        yield " ".join(words[rank] for rank in ranks[at : at + length].tolist())
        at += length


def main() -> None:
    """Build once and print one line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "names"
        write_names(out, zipf_names(args.nodes, args.seed), DEFAULT_BUILD_ANALYZER, "benchmark")
        size = sum(file.stat().st_size for file in out.iterdir())
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.nodes:,} names: {seconds:.1f} s, peak RSS {peak:.0f} MB ({before:.0f} MB "
        f"before the build), {size / 2**20:.1f} MB on disk"
    )


if __name__ == "__main__":
    main()
