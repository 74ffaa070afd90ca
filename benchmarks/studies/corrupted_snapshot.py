"""Damage each file of a snapshot (same size) and record what `ark search`/`neighbors`/`verify` do.

Run: ``nice -n 10 .venv/bin/python -m benchmarks.studies.corrupted_snapshot --nodes 300``.
Each file is damaged (``--damages``): ``data`` sets every byte after a .npy header (the whole
file otherwise) to 0x7F, ``half`` its middle half, ``end`` its last 64 bytes to 0xFF,
``header`` flips every bit of bytes 8..72; one copy of the snapshot per (file, damage), and
each command runs in a fresh process. An outcome is ``crash`` (killed by a signal, e.g. 139),
``error`` (exit 2, one message), ``same`` (exit 0, the undamaged output), ``wrong`` (exit 0,
another output) or ``traceback`` (any other exit).
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

ARK = [sys.executable, "-c", "from cli.app import main; main()"]
DAMAGES = ("data", "half", "end", "header")


def _snapshot(out: Path, num_nodes: int) -> Path:
    rng = random.Random(0)
    words = [f"w{i}" for i in range(500)]
    ids = [f"N{i}" for i in range(num_nodes)]
    nodes = pa.table(
        {
            "id": ids,
            "type": [rng.choice(["a", "b", "c"]) for _ in ids],
            "name": [f"name {i}" for i in range(num_nodes)],
            "text": [" ".join(rng.choices(words, k=20)) for _ in ids],
        }
    )
    edges = pa.table(
        {
            "src": [ids[rng.randrange(num_nodes)] for _ in range(3 * num_nodes)],
            "dst": [ids[rng.randrange(num_nodes)] for _ in range(3 * num_nodes)],
            "relation": [rng.choice(["r1", "r2"]) for _ in range(3 * num_nodes)],
        }
    )
    return build_snapshot(nodes, edges, out, name="damaged", options=BuildOptions(overwrite=True))


def damage(file: Path, how: str) -> None:
    """Overwrite bytes of `file` in place, keeping its size."""
    data = bytearray(file.read_bytes())
    if how == "data":
        start = data.index(b"\n") + 1 if file.suffix == ".npy" else 0
        data[start:] = b"\x7f" * (len(data) - start)
    elif how == "half":
        start, stop = len(data) // 4, 3 * len(data) // 4
        data[start:stop] = b"\x7f" * (stop - start)
    elif how == "end":
        data[-64:] = b"\xff" * min(64, len(data))
    else:
        data[8:72] = bytes(byte ^ 0xFF for byte in data[8:72])
    file.write_bytes(bytes(data))


def _outcome(argv: list[str], clean: str, timeout: float) -> str:
    try:
        done = subprocess.run([*ARK, *argv], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang"
    if done.returncode < 0 or done.returncode >= 128:
        return "crash"
    if done.returncode == 2 and "Traceback" not in done.stderr:
        return "error"
    if done.returncode == 0:
        return "same" if done.stdout == clean else "wrong"
    return "traceback"


def main() -> None:
    """Damage every file and print one Markdown row per (file, damage) plus totals."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ark-corrupt"))
    parser.add_argument("--verify", action="store_true", help="Also run `ark graph verify`.")
    parser.add_argument("--damages", nargs="+", choices=DAMAGES, default=list(DAMAGES))
    args = parser.parse_args()
    base = _snapshot(args.work / "base", args.nodes)
    commands = {
        "search": ["search", "{}", "w1 w2 w3", "-k", "5"],
        "neighbors": ["neighbors", "{}", "N1", "--query", "w3"],
    }
    if args.verify:
        commands["verify"] = ["graph", "verify", "{}"]
    clean = {
        name: subprocess.run(
            [*ARK, *[str(base) if a == "{}" else a for a in argv]], capture_output=True, text=True
        ).stdout
        for name, argv in commands.items()
    }
    totals: Counter[tuple[str, str]] = Counter()
    print("| file | damage | " + " | ".join(commands) + " |")
    print("|---|---|" + "---|" * len(commands))
    files = sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file())
    for relative in files:
        for how in args.damages:
            copy = args.work / "copy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(base, copy)
            damage(copy / relative, how)
            row = []
            for name, argv in commands.items():
                outcome = _outcome(
                    [str(copy) if a == "{}" else a for a in argv], clean[name], timeout=120
                )
                totals[name, outcome] += 1
                row.append(outcome)
            print(f"| {relative} | {how} | " + " | ".join(row) + " |", flush=True)
    print()
    for (name, outcome), count in sorted(totals.items()):
        print(f"{name}: {outcome} {count}")


if __name__ == "__main__":
    main()
