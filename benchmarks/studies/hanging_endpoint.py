"""Time how long `ark eval` takes to give up on an endpoint that accepts and never answers.

Run: ``nice -n 10 .venv/bin/python -m benchmarks.studies.hanging_endpoint``. A local socket
accepts every connection and never sends a byte; `ark eval run` (in a fresh process, at the
default flags unless ``--flags`` adds some) runs a synthetic graph's test questions against it.
Prints the exit code, the wall time, the failures recorded and the one message the batch
stopped with. For comparison a dead port (nothing listening) is timed the same way.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ARK = [sys.executable, "-c", "from cli.app import main; main()"]


class SilentEndpoint:
    """Accepts connections and holds them open, answering nothing."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1024)
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _accept(self) -> None:
        while True:
            try:
                self.held.append(self.sock.accept()[0])
            except OSError:
                return


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def run_batch(graph: Path, url: str, out: Path, flags: list[str]) -> dict[str, object]:
    argv = ["eval", "run", str(graph), "--qa", str(graph / "qa"), "--split", "test",
            "--out", str(out), "-m", "openai:fake", "--base-url", url, *flags]  # fmt: skip
    began = time.perf_counter()
    done = subprocess.run([*ARK, *argv], capture_output=True, text=True, check=False)
    failures = out / "failures.jsonl"
    return {
        "exit": done.returncode,
        "wall_s": round(time.perf_counter() - began, 1),
        "failures": len(failures.read_text().splitlines()) if failures.is_file() else 0,
        "message": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flags", default="", help="Extra `ark eval run` flags (quoted).")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ark-hang-"))
    graph = root / "graph"
    subprocess.run([*ARK, "graph", "synth", "--domain", "products", "--seed", "0", "--out",
                    str(graph)], check=True, capture_output=True)  # fmt: skip
    flags = args.flags.split()
    silent = SilentEndpoint()
    rows = {
        "silent": run_batch(graph, silent.url, root / "silent", flags),
        "dead": run_batch(graph, dead_url(), root / "dead", flags),
    }
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
