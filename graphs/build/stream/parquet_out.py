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


def kept_rows_bitmap(reader: Any, num_rows: int) -> np.ndarray:
    """One bit per input row (LSB first), set for each row number ``reader`` streams.

    The rows may come in any order, so no sort is needed: 1/8 byte per input row.
    """
    bits = np.zeros((num_rows + 7) // 8, dtype=np.uint8)
    for batch in reader:
        rows = np.asarray(batch.column(0).to_numpy(), dtype=np.int64)
        np.bitwise_or.at(bits, rows >> 3, np.left_shift(1, rows & 7).astype(np.uint8))
    return bits


def kept_batches(
    staged: Path, schema: pa.Schema, kept: np.ndarray, batch_rows: int
) -> Iterator[pa.RecordBatch]:
    """The rows of a staged Parquet file whose bits are set in ``kept``, in file order.

    Args:
        staged: The staged file; its first columns are those of ``schema``.
        schema: The output schema.
        kept: A bitmap from :func:`kept_rows_bitmap`.
        batch_rows: Rows per batch read from ``staged``.
    """
    start = 0
    names = schema.names
    staged_file = pq.ParquetFile(staged, pre_buffer=False)  # pre-buffering piles up
    for batch in staged_file.iter_batches(batch_size=batch_rows, columns=names):
        stop = start + batch.num_rows
        chunk = np.unpackbits(kept[start // 8 : (stop + 7) // 8], bitorder="little")
        mask = chunk[start % 8 : start % 8 + batch.num_rows].astype(bool)
        start = stop
        if mask.all():
            yield pa.RecordBatch.from_arrays(batch.columns, schema=schema)
        elif mask.any():
            picked = batch.filter(pa.array(mask))
            yield pa.RecordBatch.from_arrays(picked.columns, schema=schema)
