"""Streaming ``.npy`` files: write a 1-D array chunk by chunk, read one back chunk by chunk.

The bytes written are exactly those of ``np.save`` of the whole array, without holding it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import numpy as np
import numpy.typing
from numpy.lib import format as npy_format

_COPY_BUFFER = 1 << 20


def _write_header(handle: BinaryIO, dtype: np.dtype, length: int) -> None:
    header = {
        "descr": npy_format.dtype_to_descr(dtype),
        "fortran_order": False,
        "shape": (length,),
    }
    npy_format.write_array_header_1_0(handle, header)


class NpyAppender:
    """A 1-D ``.npy`` file of a length known up front, filled by appending chunks in order."""

    def __init__(self, path: Path, dtype: np.typing.DTypeLike, length: int) -> None:
        self.path = path
        self.dtype = np.dtype(dtype)
        self.length = length
        self.written = 0
        self._handle: BinaryIO = path.open("wb")
        _write_header(self._handle, self.dtype, length)

    def append(self, chunk: np.ndarray) -> None:
        """Append values (cast to the file's dtype with ``astype``, as ``np.save`` callers do)."""
        if self.written + chunk.size > self.length:
            raise ValueError(f"{self.path}: more than the {self.length} values declared")
        self._handle.write(np.ascontiguousarray(chunk, dtype=self.dtype).data.cast("B"))
        self.written += chunk.size

    def close(self) -> None:
        """Close the file, checking that every declared value was written."""
        self._handle.close()
        if self.written != self.length:
            raise ValueError(f"{self.path}: {self.written} values written of {self.length}")

    def abort(self) -> None:
        """Close the file without checking its length (the build is failing anyway)."""
        self._handle.close()

    def __enter__(self) -> NpyAppender:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


class RawAppender:
    """Values of a length unknown up front: raw bytes now, a ``.npy`` file by :meth:`finish`."""

    def __init__(self, scratch: Path, dtype: np.dtype | type) -> None:
        self.scratch = scratch
        self.dtype = np.dtype(dtype)
        self.written = 0
        self._handle: BinaryIO = scratch.open("wb")

    def append(self, chunk: np.ndarray) -> None:
        """Append values cast to the file's dtype."""
        self._handle.write(np.ascontiguousarray(chunk, dtype=self.dtype).data.cast("B"))
        self.written += chunk.size

    def finish(self, path: Path) -> None:
        """Write ``path`` as ``np.save`` of every appended value, then drop the raw bytes."""
        self._handle.close()
        with path.open("wb") as out, self.scratch.open("rb") as raw:
            _write_header(out, self.dtype, self.written)
            shutil.copyfileobj(raw, out, _COPY_BUFFER)
        self.scratch.unlink()

    def discard(self) -> None:
        """Close and delete the raw bytes (after a failure)."""
        self._handle.close()
        self.scratch.unlink(missing_ok=True)


class NpyReader:
    """Sequential reads of a 1-D ``.npy`` file with plain reads (no memory map, so no RSS).

    The file is opened for each read only, so a merge of thousands of segments holds no
    file descriptors between reads.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        with path.open("rb") as handle:
            version = npy_format.read_magic(handle)
            read_header = (
                npy_format.read_array_header_1_0
                if version == (1, 0)
                else npy_format.read_array_header_2_0
            )
            shape, _, dtype = read_header(handle)
            self._data_offset = handle.tell()
        self.dtype: np.dtype = dtype
        self.length = int(shape[0])
        self.position = 0

    def read(self, count: int) -> np.ndarray:
        """The next ``count`` values (fewer at the end of the file)."""
        count = max(min(count, self.length - self.position), 0)
        with self.path.open("rb") as handle:
            handle.seek(self._data_offset + self.position * self.dtype.itemsize)
            values = np.fromfile(handle, dtype=self.dtype, count=count)
        self.position += count
        return values
