"""Checksums recorded at build, checked at the first open after a file changed."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tiny_graph import tiny_snapshot

from graphs.errors import SnapshotError
from graphs.snapshot import Snapshot
from graphs.snapshot.checksums import check_checksums, file_checksums

NODES = [(f"n{i}", "t", f"node {i}", f"text of node {i} alpha") for i in range(6)]
EDGES = [(f"n{i}", f"n{(i + 1) % 6}", "r") for i in range(6)]


@pytest.fixture
def snap(tmp_path: Path) -> Path:
    tiny_snapshot(tmp_path / "snap", NODES, EDGES)
    return tmp_path / "snap"


def test_the_build_records_every_file_it_wrote(snap: Path) -> None:
    recorded = Snapshot.open(snap).manifest.file_checksums
    written = {p.relative_to(snap).as_posix() for p in snap.rglob("*") if p.is_file()}
    assert set(recorded) == written - {"manifest.json"}
    assert recorded == file_checksums(snap, skip=["manifest.json"])


def test_an_unchanged_snapshot_is_hashed_once_then_only_stamped(snap: Path) -> None:
    recorded = Snapshot.open(snap).manifest.file_checksums
    assert check_checksums(snap, recorded, "rebuild") == []  # the open above checked them all
    touched = snap / "csr" / "indptr.npy"
    os.utime(touched, ns=(1, 1))  # same bytes, another time: hashed again, and accepted
    assert check_checksums(snap, recorded, "rebuild") == ["csr/indptr.npy"]
    assert check_checksums(snap, recorded, "rebuild") == []


def test_a_value_changed_in_place_and_still_in_range_is_refused(snap: Path) -> None:
    Snapshot.open(snap)
    path = snap / "csr" / "neighbors.npy"
    neighbors = np.load(path)
    neighbors[0] = (neighbors[0] + 2) % len(NODES)  # another valid node id
    np.save(path, neighbors)
    with pytest.raises(SnapshotError, match=r"csr/neighbors\.npy was changed after the build"):
        Snapshot.open(snap)


def test_a_snapshot_without_checksums_opens(snap: Path) -> None:
    from tiny_graph import drop_checksums

    drop_checksums(snap)
    assert Snapshot.open(snap).manifest.file_checksums == {}
