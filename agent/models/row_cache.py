"""RowCache: a pre-allocated KV buffer for a batch of sequences of different lengths."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PrefixKV:
    """Keys and values of a computed token prefix, one (1, kv_heads, length, head_dim) per layer.

    Attributes:
        ids: The tokens they hold.
        keys: Per layer, the keys of `ids`.
        values: Per layer, the values of `ids`.
    """

    ids: list[int]
    keys: list[Any]
    values: list[Any]


class RowCache:
    """The KV cache a batch of sequences shares; each row has its own length.

    The model's attention layers call `update` (transformers' cache protocol): the new keys and
    values of each row are written in place at that row's length, and the layer attends over the
    buffer up to the longest row, which the caller's attention mask (`mask`) narrows to each
    row's own tokens. Nothing is concatenated per step (transformers' DynamicCache copies the
    whole cache at every token), so a decoding step's cost does not grow with the batch's past.

    Buffers are allocated at the first forward pass, sized for `capacity` tokens per row; rows
    start from the prefixes given as `seeds` (copied in once).
    """

    def __init__(self, rows: int, capacity: int, seeds: list[PrefixKV | None]) -> None:
        """Make room for `rows` sequences of at most `capacity` tokens.

        Args:
            rows: Sequences in the batch.
            capacity: Longest sequence (prompt, generated tokens and draft tokens).
            seeds: Per row, a computed prefix to start from (its length is the row's length),
                or None to start empty.
        """
        if len(seeds) != rows:
            raise ValueError(f"{rows} rows need {rows} seeds, got {len(seeds)}")
        self.capacity = capacity
        self.lengths = [len(seed.ids) if seed else 0 for seed in seeds]
        self._seeds = seeds
        self._keys: list[Any] = []
        self._values: list[Any] = []
        self._rows = slice(0, rows)
        self._starts = list(self.lengths)

    def select(self, rows: slice, starts: list[int]) -> None:
        """Direct the next forward pass: rows `rows` write their tokens from `starts` on."""
        count = len(range(*rows.indices(len(self.lengths))))
        if len(starts) != count:
            raise ValueError(f"{count} rows selected, {len(starts)} start positions given")
        self._rows, self._starts = rows, list(starts)

    def update(
        self, key_states: Any, value_states: Any, layer_idx: int, *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """Store one layer's new keys/values per row; return the layer's keys/values to attend.

        Args:
            key_states: (selected rows, kv_heads, new tokens, head_dim).
            value_states: Same shape as `key_states`.
            layer_idx: The layer.
            *args: Ignored (transformers passes cache keyword arguments).
            **kwargs: Ignored.

        Returns:
            Keys and values of the selected rows up to the end of the longest one (views).
        """
        if layer_idx == len(self._keys):
            self._allocate(key_states, value_states)
        keys, values = self._keys[layer_idx], self._values[layer_idx]
        width = key_states.shape[2]
        first = self._rows.start or 0
        for offset, start in enumerate(self._starts):
            if start + width > self.capacity:
                raise ValueError(
                    f"row {first + offset} would hold {start + width} tokens, "
                    f"more than the {self.capacity} it was sized for"
                )
            keys[first + offset, :, start : start + width] = key_states[offset]
            values[first + offset, :, start : start + width] = value_states[offset]
        end = max(self._starts) + width
        return keys[self._rows, :, :end], values[self._rows, :, :end]

    def share(self, source: int, target: int, length: int) -> None:
        """Copy row `source`'s first `length` computed tokens into row `target` (its new start)."""
        for keys, values in zip(self._keys, self._values, strict=True):
            keys[target, :, :length] = keys[source, :, :length]
            values[target, :, :length] = values[source, :, :length]
        self.lengths[target] = length

    def prefix(self, row: int, ids: list[int]) -> PrefixKV:
        """A compact copy of row `row`'s first `len(ids)` computed tokens, for reuse."""
        length = len(ids)
        return PrefixKV(
            ids=list(ids),
            keys=[layer[row : row + 1, :, :length].clone() for layer in self._keys],
            values=[layer[row : row + 1, :, :length].clone() for layer in self._values],
        )

    def _allocate(self, key_states: Any, value_states: Any) -> None:
        import torch

        layer = len(self._keys)
        shape = (len(self.lengths), key_states.shape[1], self.capacity, key_states.shape[3])
        keys = torch.zeros(shape, dtype=key_states.dtype, device=key_states.device)
        values = torch.zeros(
            (*shape[:3], value_states.shape[3]), dtype=value_states.dtype, device=key_states.device
        )
        for row, seed in enumerate(self._seeds):
            if seed is not None:
                length = len(seed.ids)
                keys[row, :, :length] = seed.keys[layer][0, :, :length]
                values[row, :, :length] = seed.values[layer][0, :, :length]
        self._keys.append(keys)
        self._values.append(values)


def attention_mask(torch: Any, starts: list[int], width: int, dtype: Any, device: Any) -> Any:
    """The additive 4D mask for rows writing `width` tokens from `starts` on.

    Row r's query i sees the row's own tokens up to and including itself (positions
    0 .. starts[r] + i); longer rows' positions and stale slots are masked out.

    Returns:
        A (rows, 1, width, max(starts) + width) tensor of 0 (attend) and the dtype's minimum.
    """
    end = max(starts) + width
    columns = torch.arange(end, device=device)
    last = torch.tensor(starts, device=device)[:, None] + torch.arange(width, device=device)
    allowed = columns[None, None, :] <= last[:, :, None]
    mask = torch.zeros(allowed.shape, dtype=dtype, device=device)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    return mask[:, None]


def position_ids(torch: Any, starts: list[int], width: int, device: Any) -> Any:
    """(rows, width) positions: row r's tokens sit at starts[r], starts[r] + 1, ..."""
    base = torch.tensor(starts, device=device)[:, None]
    return base + torch.arange(width, device=device)[None, :]
