"""The id map (sorted fixed-width ids + internal order) from DuckDB's sort, written in chunks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from graphs.build.stream.engine import arrow_reader
from graphs.build.stream.npyfile import NpyAppender
from graphs.layout import ID_ORDER_FILE, SORTED_IDS_FILE


def write_id_map_sorted(engine: Any, directory: Path, num_nodes: int, batch_rows: int) -> None:
    """Write the same files as graphs.snapshot.idmap.write_id_map for the ids of ``node_index``."""
    directory.mkdir(parents=True, exist_ok=True)
    width = int(
        engine.execute("SELECT coalesce(max(strlen(id)), 0) FROM node_index").fetchall()[0][0]
    )
    width = width or 1
    order_type = np.int32 if num_nodes < 2**31 else np.int64
    reader = arrow_reader(engine, "SELECT id, node FROM node_index ORDER BY id", batch_rows)
    with (
        NpyAppender(directory / SORTED_IDS_FILE, f"S{width}", num_nodes) as ids,
        NpyAppender(directory / ID_ORDER_FILE, order_type, num_nodes) as order,
    ):
        for batch in reader:
            encoded = batch.column(0).cast(pa.binary()).to_numpy(zero_copy_only=False)
            ids.append(np.asarray(encoded, dtype=f"S{width}"))
            order.append(batch.column(1).to_numpy())
