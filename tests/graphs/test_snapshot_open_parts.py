"""A snapshot with a missing or corrupt part is refused with SnapshotError, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from graphs.build import build_snapshot
from graphs.errors import SnapshotError
from graphs.snapshot import Snapshot


@pytest.fixture
def snapshot_dir(tmp_path: Path) -> Path:
    nodes = pa.table({"id": ["a", "b"], "type": ["t", "t"], "name": ["A", "B"], "text": ["x", "y"]})
    edges = pa.table({"src": ["a"], "dst": ["b"], "relation": ["r"]})
    return build_snapshot(nodes, edges, tmp_path / "snap", name="s")


def test_missing_csr_part_is_a_snapshot_error(snapshot_dir: Path) -> None:
    victim = next((snapshot_dir / "csr").glob("*.npy"))
    victim.unlink()
    with pytest.raises(SnapshotError, match=r"rebuild|import"):
        Snapshot.open(snapshot_dir)


def test_truncated_csr_part_is_a_snapshot_error(snapshot_dir: Path) -> None:
    victim = snapshot_dir / "csr" / "indptr.npy"
    victim.write_bytes(victim.read_bytes()[:10])
    with pytest.raises(SnapshotError):
        Snapshot.open(snapshot_dir)
