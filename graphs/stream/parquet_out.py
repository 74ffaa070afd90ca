"""Snapshot Parquet written in row groups of a fixed size, from batches, whatever their sizes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUP = 1 << 20
"""Rows per row group (pyarrow's default)."""


def write_parquet(path: Path, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> int:
    """Write ``batches`` to ``path`` in row groups of ROW_GROUP rows; returns the rows written.

    Each row group is made one contiguous array per column first: Parquet's page and
    dictionary-fallback boundaries follow the chunks it is given, so this is what makes the
    bytes (and the snapshot's content hash) independent of how the rows were batched.
    """
    pending: list[pa.RecordBatch] = []
    held = rows = 0
    with pq.ParquetWriter(path, schema) as writer:
        for batch in batches:
            while batch.num_rows:
                take = min(batch.num_rows, ROW_GROUP - held)
                pending.append(batch.slice(0, take))
                batch, held = batch.slice(take), held + take
                if held == ROW_GROUP:
                    writer.write_table(_contiguous(pending, schema), ROW_GROUP)
                    rows, pending, held = rows + held, [], 0
        if held or not rows:
            writer.write_table(_contiguous(pending, schema), ROW_GROUP)
    return rows + held


def _contiguous(batches: list[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_batches(batches, schema).combine_chunks()


def kept_batches(
    staged: Path, schema: pa.Schema, kept_rows: Any, batch_rows: int
) -> Iterator[pa.RecordBatch]:
    """The rows of a staged Parquet file whose 0-based numbers ``kept_rows`` streams, in order.

    Args:
        staged: The staged file; its first columns are those of ``schema``.
        schema: The output schema.
        kept_rows: A pyarrow RecordBatchReader of one ascending int64 column of row numbers.
        batch_rows: Rows per batch read from ``staged``.
    """
    rows = _row_numbers(kept_rows)
    pending = np.zeros(0, dtype=np.int64)
    start = 0
    names = schema.names
    for batch in pq.ParquetFile(staged).iter_batches(batch_size=batch_rows, columns=names):
        stop = start + batch.num_rows
        while not len(pending) or pending[-1] < stop:
            more = next(rows, None)
            if more is None:
                break
            pending = np.concatenate((pending, more))
        inside = int(np.searchsorted(pending, stop))
        take, pending = pending[:inside] - start, pending[inside:]
        start = stop
        if len(take):
            picked = batch.take(pa.array(take))
            yield pa.RecordBatch.from_arrays(picked.columns, schema=schema)


def _row_numbers(reader: Any) -> Iterator[np.ndarray]:
    for batch in reader:
        yield np.asarray(batch.column(0).to_numpy(), dtype=np.int64)
