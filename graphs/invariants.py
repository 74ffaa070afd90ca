"""Structural invariants of a snapshot's arrays, checked before compiled code indexes with them.

The compiled loops (numba, graphs/bm25/kernels.py and tools/neighbor_kernels.py) do no bounds
checks: a neighbour id, type code or posting offset out of range reads or writes outside an
array. Each ``check_*`` function here is vectorised numpy (one pass per array) and raises a
:class:`SnapshotError` naming the file and the fix; ``full=True`` adds the O(n log n) and
ordering checks run by ``ark graph verify``.
"""

from __future__ import annotations

import tokenize
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from graphs.errors import SnapshotError

REBUILD = "rebuild the snapshot with `ark graph import ...` (--overwrite)"


LOAD_ERRORS = (OSError, ValueError, SyntaxError, EOFError, tokenize.TokenError)
"""What np.load raises on a damaged .npy header (numpy parses it as a Python literal)."""


def load_array(path: Path) -> np.ndarray:
    """The .npy array at `path`, memory-mapped read-only (a plain ndarray view of the map).

    A plain view slices several times faster than the np.memmap itself.

    Raises:
        SnapshotError: the file is missing or its header is damaged.
    """
    try:
        return np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))
    except LOAD_ERRORS as error:
        detail = str(error)[:120]
        raise SnapshotError(
            f"cannot read {path} (the file is damaged: {detail}); {REBUILD}"
        ) from error


def fail(where: str, problem: str) -> SnapshotError:
    """The error for a broken invariant of `where` (a file or part of the snapshot)."""
    return SnapshotError(f"{where}: {problem} (the file is damaged); {REBUILD}")


def require_shape(where: str, array: np.ndarray, length: int, kinds: Iterable[str]) -> None:
    """`array` is 1-D, holds `length` values and has one of the dtype `kinds` (e.g. "int32")."""
    allowed = tuple(kinds)
    if array.ndim != 1 or array.dtype.name not in allowed:
        raise fail(
            where, f"holds {array.dtype}{list(array.shape)}, expected 1-D {'/'.join(allowed)}"
        )
    if len(array) != length:
        raise fail(where, f"holds {len(array)} values, expected {length}")


def require_range(where: str, array: np.ndarray, low: int, high: int) -> None:
    """Every value of `array` lies in ``[low, high)``."""
    if array.size and (int(array.min()) < low or int(array.max()) >= high):
        raise fail(
            where, f"holds values {int(array.min())}..{int(array.max())}, outside {low}..{high - 1}"
        )


def require_offsets(where: str, offsets: np.ndarray, end: int) -> None:
    """`offsets` (one more than its rows) start at 0, never decrease and end at `end`."""
    if not offsets.size or int(offsets[0]) != 0 or int(offsets[-1]) != end:
        first = int(offsets[0]) if offsets.size else None
        last = int(offsets[-1]) if offsets.size else None
        raise fail(where, f"offsets run {first}..{last}, expected 0..{end}")
    if offsets.size > 1 and bool((offsets[1:] < offsets[:-1]).any()):
        row = int(np.flatnonzero(offsets[1:] < offsets[:-1])[0])
        raise fail(where, f"offsets decrease at row {row}")


def require_ascending_rows(
    where: str, keys: np.ndarray, offsets: np.ndarray, *, strict: bool
) -> None:
    """Within each row ``offsets[i]:offsets[i + 1]`` the `keys` ascend (strictly if `strict`)."""
    if keys.size < 2:
        return
    step = np.diff(keys.astype(np.int64))
    broken = step <= 0 if strict else step < 0
    boundaries = offsets[1:-1]
    boundaries = boundaries[(boundaries > 0) & (boundaries < keys.size)] - 1
    broken[boundaries] = False  # a new row may start lower
    if broken.any():
        raise fail(where, f"values out of order at position {int(np.flatnonzero(broken)[0]) + 1}")
