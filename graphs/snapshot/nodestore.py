"""nodes.arrow: node ids, names and texts in uncompressed Arrow IPC, read zero-copy via mmap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.errors import SnapshotError
from graphs.invariants import fail
from graphs.layout import STORE_FILE

STORE_COLUMNS = ("id", "name", "text")
HASH_KEY = b"content_hash"


def write_node_store(path: Path, nodes: pa.Table, content_hash: str) -> None:
    """Write id, name and text of `nodes` (internal order) as a single Arrow record batch.

    Each column is written compact: a slice of a larger table keeps its whole data buffer
    otherwise, and the store would differ from the one rebuilt from nodes.parquet.
    """
    columns = {name: _compact(nodes.column(name).cast(pa.large_string())) for name in STORE_COLUMNS}
    table = pa.table(columns).replace_schema_metadata({HASH_KEY: content_hash.encode()})
    table = table.combine_chunks()
    batches = table.to_batches() or [pa.RecordBatch.from_pylist([], schema=table.schema)]
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_batch(batches[0])


def _compact(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array holding only its own values' bytes."""
    if not column.num_chunks:
        return pa.array([], column.type)
    return pa.concat_arrays(column.chunks)


class NodeStore:
    """Random access to a node's id, name or text without loading the file."""

    def __init__(self, path: Path) -> None:
        try:
            reader = pa.ipc.open_file(pa.memory_map(str(path), "r"))
            batch = reader.get_batch(0)
        except (OSError, pa.ArrowInvalid) as error:
            raise SnapshotError(
                f"cannot read {path} ({error}); rebuild the snapshot with `ark graph import ...`"
            ) from error
        if reader.num_record_batches != 1:
            raise SnapshotError(f"{path} holds {reader.num_record_batches} batches, expected 1")
        metadata = reader.schema.metadata or {}
        self.content_hash = metadata.get(HASH_KEY, b"").decode()
        self.num_rows = batch.num_rows
        self._offsets: dict[str, np.ndarray] = {}
        self._data: dict[str, np.ndarray] = {}
        for name in STORE_COLUMNS:
            column = batch.column(name)
            _, offsets, data = column.buffers()
            start = column.offset
            self._offsets[name] = (
                np.frombuffer(offsets, dtype=np.int64)[start : start + batch.num_rows + 1]
                if offsets is not None
                else np.zeros(1, dtype=np.int64)
            )
            self._data[name] = (
                np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
            )
        self._views = {name: data.data for name, data in self._data.items()}
        self._batch = batch

    def check(self, *, full: bool = False) -> None:
        """Check each column's offsets lie inside its data and never decrease.

        `full` also validates the whole file with Arrow (every value valid UTF-8).

        Raises:
            SnapshotError: an invariant does not hold.
        """
        for name in STORE_COLUMNS:
            offsets = self._offsets[name]
            if len(offsets) != self.num_rows + 1:
                raise fail(STORE_FILE, f"column {name} has {len(offsets) - 1} offsets")
            if int(offsets[0]) < 0 or int(offsets[-1]) > len(self._data[name]):
                raise fail(STORE_FILE, f"column {name} points outside its data")
            if bool((offsets[1:] < offsets[:-1]).any()):
                raise fail(STORE_FILE, f"column {name} has decreasing offsets")
        if full:
            try:
                self._batch.validate(full=True)
            except pa.ArrowInvalid as error:
                raise fail(STORE_FILE, str(error)) from error

    def column(self, name: str) -> pa.Array:
        """One whole column ("id", "name" or "text") as an Arrow array (zero-copy)."""
        return self._batch.column(name)

    def get(self, column: str, row: int) -> str:
        """The value of `column` ("id", "name" or "text") at `row`."""
        offsets = self._offsets[column]
        # "replace": valid stores never need it, a damaged byte must not raise (verify finds it)
        return str(self._views[column][offsets[row] : offsets[row + 1]], "utf-8", "replace")

    def get_many(self, column: str, rows: np.ndarray) -> list[str]:
        """The values of `column` at each of `rows` (int array, in range), in order.

        One offsets lookup for all rows; each value is then decoded straight from the mapped
        file (half the cost of calling :meth:`get` per row).
        """
        offsets = self._offsets[column]
        view = self._views[column]
        starts, stops = offsets[rows].tolist(), offsets[rows + 1].tolist()
        return [
            str(view[start:stop], "utf-8", "replace")
            for start, stop in zip(starts, stops, strict=True)
        ]

    def byte_lengths(self, column: str) -> np.ndarray:
        """UTF-8 byte length of every value of `column`."""
        return np.diff(self._offsets[column])
