"""The bounded-memory build's limit (spilling), interruptions, sizes and progress lines."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.build.stream.budget import MemoryBudget, parse_size
from graphs.build.stream.progress import RateLines
from graphs.errors import GraphImportError, SnapshotError
from graphs.snapshot import Snapshot

sys.path.insert(0, str(Path(__file__).parent))
from stream_compare import build_both, differing_files

ROOT = Path(__file__).resolve().parents[3]


def graph(num_nodes: int, num_edges: int) -> tuple[pa.Table, pa.Table]:
    rng = np.random.default_rng(1)
    ids = np.char.add("n", np.arange(num_nodes).astype(str))
    nodes = pa.table(
        {
            "id": ids,
            "type": np.where(np.arange(num_nodes) % 2, "a", "b"),
            "name": ids,
            "text": np.char.add("w ", (np.arange(num_nodes) % 1000).astype(str)),
        }
    )
    ends = rng.integers(0, num_nodes, (2, num_edges))
    edges = pa.table(
        {
            "src": ids[ends[0]],
            "dst": ids[ends[1]],
            "relation": np.where(np.arange(num_edges) % 3, "r", "s"),
        }
    )
    return nodes, edges


def spill_files_during_csr(tmp_path: Path, limit: int) -> tuple[int, list[str]]:
    """Build both ways, the streaming one under `limit`; count DuckDB's spill files mid-sort."""
    seen = [0]

    def progress(phase: str, done: int, total: int | None, unit: str) -> None:
        if phase == "csr":
            seen[0] = max(seen[0], len(list(tmp_path.glob(".stream.tmp-*/.work/spill/*"))))

    nodes, edges = graph(40_000, 600_000)
    options = BuildOptions(memory_limit=limit, progress=progress)
    memory, stream = build_both(nodes, edges, tmp_path, options=options)
    return seen[0], differing_files(memory, stream)


@pytest.mark.slow
def test_small_memory_limit_spills_and_changes_nothing(tmp_path: Path) -> None:
    spilled, differ = spill_files_during_csr(tmp_path / "small", parse_size("64MB"))
    assert spilled > 0
    assert differ == []
    roomy, differ = spill_files_during_csr(tmp_path / "roomy", parse_size("4GB"))
    assert roomy == 0
    assert differ == []


class Interrupt(Exception):
    pass


def test_error_in_a_phase_leaves_nothing_and_a_rerun_succeeds(tmp_path: Path) -> None:
    nodes, edges = graph(200, 1000)

    def fail_in_csr(phase: str, done: int, total: int | None, unit: str) -> None:
        if phase == "csr":
            raise Interrupt

    out = tmp_path / "snap"
    with pytest.raises(Interrupt):
        build_snapshot(
            nodes, edges, out, name="s", options=BuildOptions(streaming=True, progress=fail_in_csr)
        )
    assert list(tmp_path.iterdir()) == []
    build_snapshot(nodes, edges, out, name="s", options=BuildOptions(streaming=True))
    assert Snapshot.open(out).manifest.num_nodes == 200


KILLED_BUILD = """
import os, signal, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_build_stream_limits import graph
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from pathlib import Path

def die(phase, done, total, unit):
    if phase == {phase!r}:
        os.kill(os.getpid(), signal.SIGKILL)

nodes, edges = graph(200, 1000)
build_snapshot(nodes, edges, Path({out!r}), name="s",
               options=BuildOptions(streaming=True, overwrite=True, progress=die))
"""


@pytest.mark.parametrize("phase", ["edges staged", "validate", "csr", "index tokenize"])
def test_killed_build_leaves_nothing_that_opens_and_reruns(tmp_path: Path, phase: str) -> None:
    out = tmp_path / "snap"
    script = KILLED_BUILD.format(tests=str(Path(__file__).parent), phase=phase, out=str(out))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, check=False)
    assert done.returncode == -9
    with pytest.raises(SnapshotError):
        Snapshot.open(out)
    assert list(tmp_path.glob(".snap.tmp-*"))  # the dead build's temp dir, until the next build
    nodes, edges = graph(200, 1000)
    build_snapshot(nodes, edges, out, name="s", options=BuildOptions(streaming=True))
    assert Snapshot.open(out).manifest.num_edges > 0
    assert not list(tmp_path.glob(".snap.tmp-*"))


def test_killed_rebuild_keeps_the_old_snapshot(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    nodes, edges = graph(200, 1000)
    build_snapshot(nodes, edges, out, name="s", options=BuildOptions(streaming=True))
    script = KILLED_BUILD.format(tests=str(Path(__file__).parent), phase="csr", out=str(out))
    subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, check=False)
    assert Snapshot.open(out).manifest.num_nodes == 200


@pytest.mark.parametrize(
    ("text", "size"),
    [("512MB", 512 * 10**6), ("4GB", 4 * 10**9), ("1.5GiB", 1536 * 2**20), ("2gb", 2 * 10**9),
     ("100000000", 10**8), (" 3 GiB ", 3 * 2**30)],
)  # fmt: skip
def test_sizes_parse(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "4XB", "GB", "-1GB", "four", "1e9", "10MB"])
def test_bad_sizes_say_what_to_write(text: str) -> None:
    with pytest.raises(GraphImportError) as raised:
        parse_size(text)
    message = str(raised.value)
    assert "--memory-limit" in message
    assert "such as 512MB, 4GB" in message or "pass at least 64MB" in message


def test_a_limit_above_the_machine_memory_is_refused() -> None:
    with pytest.raises(GraphImportError, match=r"more than this machine's .* of memory"):
        parse_size("99999TB")


def test_budget_gives_duckdb_its_share() -> None:
    budget = MemoryBudget(limit=4 * 10**9)
    assert budget.engine_bytes == int(4 * 10**9 * 0.5)
    assert MemoryBudget(limit=64 * 10**6).batch_rows >= 1 << 14


def test_progress_lines_have_rate_and_eta_and_finish_once() -> None:
    lines: list[str] = []
    now = [0.0]
    progress = RateLines(lines.append, interval_s=5, clock=lambda: now[0])
    progress("csr", 0, 1000, "entries")
    now[0] = 2.0
    progress("csr", 100, 1000, "entries")  # within the interval: quiet
    now[0] = 10.0
    progress("csr", 500, 1000, "entries")
    now[0] = 20.0
    progress("csr", 1000, 1000, "entries")
    progress("csr", 1000, 1000, "entries")
    assert lines[0] == "csr: 0 of 1,000 entries ..."
    assert lines[1] == "csr: 500 of 1,000 entries, 50 entries/s, 10 s left"
    assert lines[2] == "csr: 1,000 of 1,000 entries, done in 20.0 s (50 entries/s)"
    assert len(lines) == 3
