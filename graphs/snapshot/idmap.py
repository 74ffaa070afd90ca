"""External-id lookup on disk: sorted fixed-width ids plus a permutation, searched on a memmap."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.invariants import fail, load_array, require_range, require_shape
from graphs.layout import ID_ORDER_FILE as ORDER_FILE
from graphs.layout import SORTED_IDS_FILE as SORTED_FILE


def write_id_map(directory: Path, ids: pa.Array | pa.ChunkedArray) -> None:
    """Write the lookup files for `ids` (external id of internal node i at position i).

    Ids are stored as UTF-8 bytes padded to the longest id, so the directory takes
    num_nodes x longest-id bytes.
    """
    directory.mkdir(parents=True, exist_ok=True)
    encoded = ids.cast(pa.binary()).to_numpy(zero_copy_only=False)
    width = max((len(value) for value in encoded), default=1) or 1
    fixed = np.asarray(encoded, dtype=f"S{width}")
    order = np.argsort(fixed, kind="stable")
    index_type = np.int32 if len(fixed) < 2**31 else np.int64
    np.save(directory / SORTED_FILE, fixed[order])
    np.save(directory / ORDER_FILE, order.astype(index_type))


class IdMap:
    """Binary search from external id to internal id over memory-mapped sorted ids."""

    def __init__(self, directory: Path) -> None:
        self._sorted = load_array(directory / SORTED_FILE)
        self._order = load_array(directory / ORDER_FILE)
        self._width = self._sorted.dtype.itemsize

    def __len__(self) -> int:
        return len(self._sorted)

    def lookup(self, external_id: str) -> int:
        """Internal id of `external_id`, or -1 if the snapshot does not hold it."""
        key = external_id.encode("utf-8")
        if len(key) > self._width or not key:
            return -1
        # A needle of the array's own dtype: np.bytes_(key) makes searchsorted ~10x slower.
        position = int(self._sorted.searchsorted(np.array(key, dtype=self._sorted.dtype)))
        if position < len(self._sorted) and self._sorted[position] == key:
            return int(self._order[position])
        return -1

    def lookup_many(self, external_ids: Sequence[str]) -> np.ndarray:
        """Internal ids (int64) of `external_ids`, -1 for each one the snapshot does not hold."""
        encoded = [value.encode("utf-8") for value in external_ids]
        result = np.full(len(encoded), -1, dtype=np.int64)
        fits = np.array([0 < len(value) <= self._width for value in encoded], dtype=bool)
        if not fits.any() or not len(self._sorted):
            return result
        keys = np.array(
            [value for value, ok in zip(encoded, fits, strict=True) if ok], dtype=self._sorted.dtype
        )
        positions = np.minimum(np.searchsorted(self._sorted, keys), len(self._sorted) - 1)
        found = self._sorted[positions] == keys
        hits = np.flatnonzero(fits)
        result[hits[found]] = self._order[positions[found]]
        return result

    def check(self, num_nodes: int, *, full: bool = False) -> None:
        """Check both files hold `num_nodes` entries and every order value is a node id.

        `full` also checks the ids are sorted and distinct and the order is a permutation.

        Raises:
            SnapshotError: an invariant does not hold.
        """
        if self._sorted.ndim != 1 or self._sorted.dtype.kind != "S":
            raise fail(f"ids/{SORTED_FILE}", f"holds {self._sorted.dtype}, expected byte strings")
        if len(self._sorted) != num_nodes:
            raise fail(f"ids/{SORTED_FILE}", f"holds {len(self._sorted)} ids, expected {num_nodes}")
        require_shape(f"ids/{ORDER_FILE}", self._order, num_nodes, ("int32", "int64"))
        require_range(f"ids/{ORDER_FILE}", self._order, 0, num_nodes)
        if not full:
            return
        if num_nodes > 1 and not bool((self._sorted[1:] > self._sorted[:-1]).all()):
            raise fail(f"ids/{SORTED_FILE}", "is not sorted and distinct")
        if num_nodes and not bool((np.bincount(self._order, minlength=num_nodes) == 1).all()):
            raise fail(f"ids/{ORDER_FILE}", "is not a permutation of the node ids")

    def ids_by_node(self) -> np.ndarray:
        """The external id (bytes) of every internal node, in internal order."""
        by_node = np.empty_like(self._sorted)
        by_node[self._order] = self._sorted
        return by_node
