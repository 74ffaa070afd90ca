"""Reuse of attention KV caches across turns: a prompt's longest already-computed prefix."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

MIN_REUSE_TOKENS = 8
"""Shorter shared prefixes are recomputed: copying a cache is not worth a few tokens."""


@dataclass
class _Entry:
    ids: list[int]
    cache: Any


class PrefixCache:
    """Keeps the KV caches of recent generations, keyed by the token ids they hold.

    An agent's next prompt extends its previous prompt and answer, and every question's first
    prompt starts with the same system prompt and tool schemas, so most of a prompt has been
    computed before. `take` hands out the cache of the longest common token prefix (cropped to
    it), `put` stores a generation's cache for the next turn. Greedy outputs are the same as
    without reuse: the reused keys and values are those a full forward pass computes.

    Not thread-safe: the caller serialises `take`, generation and `put` (LocalHFModel's lock).
    """

    def __init__(self, max_entries: int = 8) -> None:
        """Keep at most `max_entries` caches (least recently used dropped first)."""
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self._entries: list[_Entry] = []
        self.reused_tokens = 0
        self.computed_tokens = 0

    def take(self, ids: list[int]) -> tuple[Any | None, int]:
        """A cache holding the longest computed prefix of `ids` (at most all but one token).

        The entry is handed over when its whole sequence is that prefix (the usual next turn
        of one trajectory), else copied and cropped, so other trajectories keep theirs.

        Returns:
            (cache or None, number of tokens it holds).
        """
        best, length = longest_prefix(self._entries, ids)
        if best is None or (length < len(best.ids) and not croppable(best.cache)):
            self.computed_tokens += len(ids)
            return None, 0
        self._entries.remove(best)
        if length < len(best.ids):
            self._entries.append(best)  # still useful to the trajectory that made it
            cache = copy.deepcopy(best.cache)
            cache.crop(length - cache.get_seq_length())
        else:
            cache = best.cache
        self.reused_tokens += length
        self.computed_tokens += len(ids) - length
        return cache, length

    def put(self, ids: list[int], cache: Any) -> None:
        """Store `cache`, which holds the keys and values of `ids[:cache.get_seq_length()]`."""
        held = ids[: cache.get_seq_length()]
        if len(held) < MIN_REUSE_TOKENS:
            return
        self._entries.append(_Entry(held, cache))
        del self._entries[: -self.max_entries]

    def clear(self) -> None:
        """Drop every cache (frees their memory)."""
        self._entries.clear()


def croppable(cache: Any) -> bool:
    """Whether `cache` can be cut back to a shorter prefix.

    A sliding-window layer (Gemma 3's local attention) that has filled its window has
    dropped the keys and values a shorter prefix would need, and transformers refuses to crop
    it; such a cache is reused only whole.
    """
    for layer in getattr(cache, "layers", ()):
        window = getattr(layer, "sliding_window", None)
        full = isinstance(window, int) and layer.get_seq_length() >= window
        if full and not getattr(layer, "record_past", False):
            return False
    return True


class _HasIds(Protocol):
    @property
    def ids(self) -> list[int]: ...


_Stored = TypeVar("_Stored", bound=_HasIds)


def longest_prefix(entries: Sequence[_Stored], ids: list[int]) -> tuple[_Stored | None, int]:
    """The stored entry sharing the longest prefix with `ids`, and that length.

    The length is capped at all but the last token of `ids` (a turn must compute at least one
    token to get logits); (None, 0) when no entry shares MIN_REUSE_TOKENS or more.
    """
    best, length = None, 0
    for entry in entries:
        common = common_prefix(entry.ids, ids)
        if common > length:
            best, length = entry, common
    length = min(length, len(ids) - 1)
    if best is None or length < MIN_REUSE_TOKENS:
        return None, 0
    return best, length


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two token id lists."""
    limit = min(len(a), len(b))
    for index in range(limit):
        if a[index] != b[index]:
            return index
    return limit
