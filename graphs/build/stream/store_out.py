"""nodes.arrow written from streamed columns: offsets and bytes spooled to disk, then one batch."""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphs.snapshot.nodestore import HASH_KEY, STORE_COLUMNS

_COPY_CHUNK = 64 << 20


def write_node_store_streamed(
    path: Path, nodes_parquet: Path, content_hash: str, spool: Path, batch_rows: int
) -> None:
    """Write the file graphs.snapshot.nodestore.write_node_store writes, one batch at a time.

    Each column's offsets and bytes are spooled to files under ``spool``, memory-mapped and
    written as the single record batch the store needs; the mapped pages are dropped as they
    are copied, so they never add up in memory.
    """
    spool.mkdir(parents=True, exist_ok=True)
    parquet = pq.ParquetFile(nodes_parquet, pre_buffer=False)  # pre-buffering piles up
    num_rows = parquet.metadata.num_rows
    maps: list[tuple[int, int, mmap.mmap]] = []
    try:
        arrays = []
        for name in STORE_COLUMNS:
            batches = parquet.iter_batches(batch_size=batch_rows, columns=[name])
            offsets_file, data_file, valid_file = _spool(name, batches, spool)
            validity = _map(valid_file, maps) if valid_file is not None else None
            buffers = [validity, _map(offsets_file, maps), _map(data_file, maps)]
            arrays.append(pa.Array.from_buffers(pa.large_string(), num_rows, buffers))
        schema = pa.schema(
            [pa.field(name, pa.large_string()) for name in STORE_COLUMNS],
            metadata={HASH_KEY: content_hash.encode()},
        )
        batch = pa.RecordBatch.from_arrays(arrays, schema=schema)
        with open(path, "wb") as handle:
            sink = _DroppingSink(handle, maps)
            with pa.ipc.new_file(pa.PythonFile(sink, mode="w"), schema) as writer:
                writer.write_batch(batch)
        del batch, arrays
    finally:
        for _, _, mapped in maps:
            with contextlib.suppress(BufferError):  # still exported by an Arrow buffer
                mapped.close()


def _spool(
    name: str, batches: Iterable[pa.RecordBatch], spool: Path
) -> tuple[Path, Path, Path | None]:
    """Spool one column's offsets, bytes and (when it has nulls) validity to files."""
    offsets_file, data_file = spool / f"{name}.offsets", spool / f"{name}.data"
    valid_file = spool / f"{name}.valid"
    end = nulls = 0
    with (
        offsets_file.open("wb") as offsets_out,
        data_file.open("wb") as data_out,
        valid_file.open("wb") as valid_out,
    ):
        offsets_out.write(np.zeros(1, dtype=np.int64).tobytes())
        for batch in batches:
            column = batch.column(0).cast(pa.large_string())
            _, offsets_buffer, data_buffer = column.buffers()
            offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[
                column.offset : column.offset + len(column) + 1
            ]
            if data_buffer is not None and len(column):
                data_out.write(memoryview(data_buffer)[offsets[0] : offsets[-1]])
            offsets_out.write((offsets[1:] - offsets[0] + end).tobytes())
            end += int(offsets[-1] - offsets[0])
            nulls += column.null_count
            valid_out.write(column.is_valid().to_numpy(zero_copy_only=False).view(np.uint8))
    if not nulls:
        valid_file.unlink()
        return offsets_file, data_file, None
    return offsets_file, data_file, _pack_bits(valid_file)


def _pack_bits(valid_file: Path) -> Path:
    """Arrow's validity bitmap (LSB first) of a file of one byte per row."""
    packed_file = valid_file.with_suffix(".bits")
    flags = np.memmap(valid_file, dtype=np.uint8, mode="r")
    with packed_file.open("wb") as out:
        for start in range(0, len(flags), 1 << 23):
            out.write(np.packbits(flags[start : start + (1 << 23)], bitorder="little").tobytes())
    del flags
    return packed_file


def _map(file: Path, maps: list[tuple[int, int, mmap.mmap]]) -> pa.Buffer:
    size = file.stat().st_size
    if size == 0:
        return pa.py_buffer(b"")
    with file.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    buffer = pa.py_buffer(mapped)
    maps.append((buffer.address, size, mapped))
    return buffer


class _DroppingSink:
    """A file-like sink that copies large buffers in chunks and drops their mapped pages."""

    def __init__(self, handle: BinaryIO, maps: list[tuple[int, int, mmap.mmap]]) -> None:
        self._handle = handle
        self._maps = maps
        self.closed = False

    def write(self, data: pa.Buffer | bytes) -> int:
        view = memoryview(data)
        if not isinstance(data, pa.Buffer) or len(view) <= _COPY_CHUNK:
            self._handle.write(view)
            return len(view)
        for start in range(0, len(view), _COPY_CHUNK):
            self._handle.write(view[start : start + _COPY_CHUNK])
            self._drop(data.address + start, min(_COPY_CHUNK, len(view) - start))
        return len(view)

    def _drop(self, address: int, length: int) -> None:
        for base, size, mapped in self._maps:
            if base <= address < base + size:
                start = (address - base) // mmap.PAGESIZE * mmap.PAGESIZE
                stop = min(size, address - base + length)
                if stop > start:
                    mapped.madvise(mmap.MADV_DONTNEED, start, stop - start)
                return

    def flush(self) -> None:
        self._handle.flush()

    def close(self) -> None:
        self.closed = True
