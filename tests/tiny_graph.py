"""A snapshot from rows written in a test: nodes (id, type, name, text), edges (src, dst, rel)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from graphs.build import build_snapshot
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
