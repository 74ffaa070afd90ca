"""A snapshot from rows written in a test: nodes (id, type, name, text), edges (src, dst, rel)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

NODE_COLUMNS = ("id", "type", "name", "text")
EDGE_COLUMNS = ("src", "dst", "relation")


def tiny_snapshot(
    out: Path,
    nodes: Sequence[tuple[str, str, str, str]],
    edges: Sequence[tuple[str, str, str]],
    **build: Any,
) -> Snapshot:
    """Build the rows into a snapshot at `out` and open it (`build`: build_snapshot's keywords)."""
    node_table = pa.table({c: [row[i] for row in nodes] for i, c in enumerate(NODE_COLUMNS)})
    edge_table = pa.table({c: [row[i] for row in edges] for i, c in enumerate(EDGE_COLUMNS)})
    build_snapshot(node_table, edge_table, out, **{"name": out.name, **build})
    return Snapshot.open(out)


def drop_checksums(path: Path) -> None:
    """Make `path` a snapshot built before checksums were recorded (the manifest lists none).

    For tests of what opening checks without them: the structure of every array, the index
    format; with checksums, any change to a file is caught before those checks run.
    """
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["file_checksums"] = {}
    (path / "manifest.json").write_text(json.dumps(manifest))
