"""A snapshot with a missing or corrupt part is refused with SnapshotError, not a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from tiny_graph import drop_checksums
from typer.testing import CliRunner

from cli.app import build_app
from graphs.build.memory import build_snapshot
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


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"format_version": 2}, "format version 2, this ARK reads version 3 only"),
        ({"format_version": 1, "boosts": {"name": 2.0, "text": 1.0}}, "format version 1"),
        ({"bm25": None}, "BM25 parameters in the index metadata are missing"),
    ],
    ids=["tantivy-lengths", "two-fields", "no-parameters"],
)
def test_a_snapshot_with_an_older_index_format_fails_at_open_saying_rebuild(
    snapshot_dir: Path, change: dict[str, object], expected: str
) -> None:
    drop_checksums(snapshot_dir)  # snapshots of the older formats recorded none
    meta = snapshot_dir / "index" / "meta.json"
    info = json.loads(meta.read_text())
    meta.write_text(json.dumps({**info, **change}))
    with pytest.raises(SnapshotError, match="rebuild the snapshot") as raised:
        Snapshot.open(snapshot_dir)
    assert expected in str(raised.value)
    result = CliRunner().invoke(build_app(), ["search", str(snapshot_dir), "x"])
    assert result.exit_code == 2
    assert "rebuild the snapshot" in " ".join(result.stderr.split())


def test_a_path_to_a_file_is_named_a_file(snapshot_dir: Path) -> None:
    with pytest.raises(SnapshotError, match="is a file, not a snapshot directory"):
        Snapshot.open(snapshot_dir / "manifest.json")
