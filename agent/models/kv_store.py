"""PrefixStore: the computed KV prefixes of recent sequences, found by longest common prefix."""

from __future__ import annotations

from agent.models.kv_reuse import MIN_REUSE_TOKENS, common_prefix, longest_prefix
from agent.models.row_cache import PrefixKV


class PrefixStore:
    """Keeps the keys and values of recent sequences for the batched greedy path.

    An agent's next prompt extends its previous prompt and answer, and all agents of a question
    (and all questions) start with the same system prompt and tool schemas, so most of a
    prompt was computed before. `longest` finds the entry sharing the longest prefix; the
    entries are never modified (a batch copies the prefix into its own buffer), so one entry
    can seed several rows.

    Not thread-safe: one batch worker uses it at a time.
    """

    def __init__(self, max_entries: int = 8) -> None:
        """Keep at most `max_entries` prefixes (least recently used dropped first)."""
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self._entries: list[PrefixKV] = []

    def longest(self, ids: list[int]) -> PrefixKV | None:
        """The computed prefix of `ids` (at most all but its last token) to start from, or None.

        The returned PrefixKV's `ids` are exactly the shared prefix; its tensors may be longer
        (the caller copies only `len(ids)` positions).
        """
        best, length = longest_prefix(self._entries, ids)
        if best is None:
            return None
        self._entries.remove(best)
        self._entries.append(best)
        return PrefixKV(ids[:length], best.keys, best.values)

    def put(self, prefix: PrefixKV) -> None:
        """Store `prefix`, replacing entries it extends (a trajectory's earlier turns)."""
        if len(prefix.ids) < MIN_REUSE_TOKENS:
            return
        self._entries = [
            entry
            for entry in self._entries
            if common_prefix(entry.ids, prefix.ids) < len(entry.ids)
        ]
        self._entries.append(prefix)
        del self._entries[: -self.max_entries]

    def clear(self) -> None:
        """Drop every prefix (frees their memory)."""
        self._entries.clear()
