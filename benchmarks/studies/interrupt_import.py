"""Ctrl-C during a large import: how fast `ark graph import tabular` stops, and what it leaves.

A tabular graph of --nodes nodes (40 random words of text each) and as many edges is written to
CSV; the import runs in a fresh process and gets SIGINT (what Ctrl-C sends) after each of the
given delays. Prints, per delay: the exit code, seconds from the signal to the exit, the lines
on stderr, the last of them, and anything left beside the output directory.

Run: nice -n 10 .venv/bin/python -m benchmarks.studies.interrupt_import --nodes 300000 \\
        --after 4 8 12 16 20 [--ark .venv/bin/ark]
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

WORDS = ("alpha", "beta", "gamma", "delta", "eps")


def write_graph(root: Path, nodes: int) -> tuple[Path, Path]:
    """nodes.csv (id, type, name, text) and edges.csv (src, dst, rel), seeded."""
    rng = random.Random(0)
    node_file, edge_file = root / "nodes.csv", root / "edges.csv"
    with node_file.open("w") as out:
        out.write("id,type,name,text\n")
        for i in range(nodes):
            text = " ".join(f"{rng.choice(WORDS)}{rng.randint(0, 99999)}" for _ in range(40))
            out.write(f"n{i},t,Name {i},{text}\n")
    with edge_file.open("w") as out:
        out.write("src,dst,rel\n")
        out.writelines(f"n{i},n{(i * 7) % nodes},r\n" for i in range(nodes))
    return node_file, edge_file


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C's default, even when this study runs in the background
    (a shell starts background jobs with SIGINT ignored, and the child would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=300_000)
    parser.add_argument("--after", type=float, nargs="+", default=[4, 8, 12, 16, 20])
    parser.add_argument("--ark", default=".venv/bin/ark", help="The ark command to interrupt.")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ark-interrupt-"))
    nodes, edges = write_graph(root, args.nodes)
    out = root / "snap"
    for delay in args.after:
        shutil.rmtree(out, ignore_errors=True)
        argv = [args.ark, "graph", "import", "tabular", "--nodes", str(nodes), "--edges",
                str(edges), "--relation-col", "rel", "--out", str(out)]  # fmt: skip
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=_default_sigint,
        )  # fmt: skip
        time.sleep(delay)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            _, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
            err += "\n(still running 120 s after the signal: killed)"
        left = sorted(p.name for p in root.iterdir() if p.name.startswith(".snap"))
        lines = err.strip().splitlines()
        print(f"after {delay:g} s: exit {process.returncode}, stopped in "
              f"{time.monotonic() - sent:.1f} s, {len(lines)} stderr lines, left {left}: "
              f"{lines[-1][:90] if lines else ''}")  # fmt: skip


if __name__ == "__main__":
    main()
