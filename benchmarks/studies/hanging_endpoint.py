"""Time how long a command that calls a model takes to give up on an endpoint that misbehaves.

Run: ``nice -n 10 .venv/bin/python -m benchmarks.studies.hanging_endpoint [--command C]
[--endpoints silent,dead,trickle] [--flags "..."]``. Endpoints: ``silent``, a local socket that
accepts every connection and never sends a byte; ``dead``, a port where nothing listens;
``trickle``, a server that answers every request with a 200 and then one byte of its body
every 0.2 s, forever. The command (in a fresh process, at the default flags unless
``--flags`` adds some) runs against each:

- ``eval`` (default): `ark eval run` on a synthetic graph's test questions;
- ``extract``: `ark graph extract --extractor llm` on 40 small text files;
- ``rerank``: `ark rerank -m openai:...` of a BM25 ranking of the same test questions;
- ``plan``: `ark plan --qa -m openai:...` (GRASP plans) on the same questions;
- ``answer``: `ark answer GRAPH QUESTION -m openai:...` (SARG's generator).

Prints the exit code, the wall time, the failures recorded (eval) and the one message the
command stopped with.
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


class TrickleEndpoint(SilentEndpoint):
    """Answers every request with a 200 and a long body, one byte every 0.2 s."""

    def _accept(self) -> None:
        while True:
            try:
                conn = self.sock.accept()[0]
            except OSError:
                return
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    @staticmethod
    def _trickle(conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000000\r\n\r\n")  # fmt: skip
            while True:
                time.sleep(0.2)
                conn.sendall(b" ")
        except OSError:
            conn.close()


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def command_args(command: str, root: Path, url: str, out: Path) -> list[str]:
    """The `ark` arguments of one timed run of `command` into `out`."""
    graph = root / "graph"
    endpoint = ["-m", "openai:fake", "--base-url", url]
    if command == "eval":
        return ["eval", "run", str(graph), "--qa", str(graph / "qa"), "--split", "test",
                "--out", str(out), *endpoint]  # fmt: skip
    if command == "extract":
        return ["graph", "extract", str(root / "docs"), "--out", str(out), "--extractor", "llm",
                "--cache", str(out.with_suffix(".sqlite")), *endpoint]  # fmt: skip
    if command == "plan":
        return ["plan", str(graph), "--qa", str(graph / "qa"), "--split", "test", "--limit", "5",
                "--out", str(out), *endpoint]  # fmt: skip
    if command == "answer":
        return ["answer", str(graph), "Which brand makes the Vesta kettle?", *endpoint]
    return ["rerank", str(root / "bm25"), "--qa", str(graph / "qa"), "--split", "test",
            "--tune-split", "none", "--snapshot", str(graph), "--out", str(out),
            "--cache", str(out.with_suffix(".sqlite")), *endpoint]  # fmt: skip


def prepare(command: str, root: Path) -> None:
    """The inputs `command` reads: a synthetic graph, and documents or a BM25 run."""
    graph = root / "graph"
    subprocess.run([*ARK, "graph", "synth", "--domain", "products", "--seed", "0", "--out",
                    str(graph)], check=True, capture_output=True)  # fmt: skip
    if command == "extract":
        docs = root / "docs"
        docs.mkdir()
        for number in range(40):
            (docs / f"d{number}.txt").write_text(
                f"Marie Curie was physicist number {number}. She was born in Warsaw."
            )
    if command == "rerank":
        subprocess.run([*ARK, "baseline", "bm25", str(graph), "--qa", str(graph / "qa"),
                        "--split", "test", "--out", str(root / "bm25")],
                       check=True, capture_output=True)  # fmt: skip


def run_batch(argv: list[str], out: Path) -> dict[str, object]:
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
    parser.add_argument(
        "--command",
        choices=("eval", "extract", "rerank", "plan", "answer"),
        default="eval",
        help="What to time.",
    )
    parser.add_argument("--endpoints", default="silent,dead", help="Which endpoints (comma list).")
    parser.add_argument("--flags", default="", help="Extra flags of that command (quoted).")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ark-hang-"))
    prepare(args.command, root)
    flags = args.flags.split()
    urls = {
        "silent": lambda: SilentEndpoint().url,
        "dead": dead_url,
        "trickle": lambda: TrickleEndpoint().url,
    }
    rows = {}
    for label in args.endpoints.split(","):
        url = urls[label]()
        out = root / label
        rows[label] = run_batch([*command_args(args.command, root, url, out), *flags], out)
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
