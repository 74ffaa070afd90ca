"""A .npy file written in chunks: the header for the known length first, then the values."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

import numpy as np
import numpy.typing


class NpyWriter:
    """Append chunks to a 1-D .npy file of known length and dtype; same bytes as ``np.save``.

    Raises:
        ValueError: on close, when fewer or more values were written than announced.
    """

    def __init__(self, path: Path, length: int, dtype: np.typing.DTypeLike) -> None:
        self._dtype = np.dtype(dtype)
        self._length = length
        self._written = 0
        self._handle = Path(path).open("wb")  # noqa: SIM115 (closed by close() or abort())
        header = {"descr": np.lib.format.dtype_to_descr(self._dtype), "fortran_order": False}
        np.lib.format.write_array_header_1_0(self._handle, {**header, "shape": (length,)})

    def write(self, values: np.ndarray) -> None:
        """Append ``values`` (converted to the file's dtype)."""
        chunk = np.ascontiguousarray(values, dtype=self._dtype)
        self._handle.write(chunk.data)
        self._written += len(chunk)

    def close(self) -> None:
        """Close the file, checking its length."""
        self._handle.close()
        if self._written != self._length:
            raise ValueError(f"{self._handle.name}: wrote {self._written} of {self._length}")

    def abort(self) -> None:
        """Close the file without checking its length (the build is failing anyway)."""
        self._handle.close()

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
