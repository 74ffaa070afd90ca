"""The row rules of an import, in the order each row is checked: one list for both builds.

graphs/build/validate.py applies them with Arrow in memory; the streaming build applies the row
rules while staging (graphs/build/stream/stage.py) and the rest in SQL
(graphs/build/stream/checks.py).
Both report a row once, under its first failed rule, with that rule's reason, hint and the
value of the column it shows. A rule's code is its 1-based position in its list: what the
streaming build stores per row, and the order problems are reported in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

UNREADABLE = "bytes that are not UTF-8 (the row was skipped unread)"
EMPTY_TEXT = "empty text"
EMPTY_TEXT_HINT = (
    "empty text: give these nodes text (e.g. map text columns with --text-cols), or pass "
    "--allow-empty-text (Python: BuildOptions(allow_empty_text=True)) to use each node's name "
    "as its text"
)
STRICT_HINT = (
    "--strict (Python: strict=True) makes duplicate edges and self-loops errors; without it a "
    "duplicate is collapsed into one edge and a self-loop is kept, both counted"
)


@dataclass(frozen=True)
class RowRule:
    """One check of a row.

    Attributes:
        key: The rule's name in code.
        reason: What the error and the skipped-rows report say of a row that fails it.
        hint: How to fix such rows (shown once per reason; empty: none).
        shows: The column whose value the report lists for a failing row.
    """

    key: str
    reason: str
    hint: str = ""
    shows: str = "id"


@dataclass(frozen=True)
class RuleList:
    """Rules in checking order; a row fails under the first rule it breaks."""

    rules: tuple[RowRule, ...]

    def __getitem__(self, key: str) -> RowRule:
        return next(rule for rule in self.rules if rule.key == key)

    def code(self, key: str) -> int:
        """The rule's 1-based position (0 stands for a row that passes every rule)."""
        return 1 + [rule.key for rule in self.rules].index(key)

    def by_code(self, code: int) -> RowRule:
        """The rule of a code."""
        return self.rules[code - 1]

    def first_failed(self, failed: Mapping[str, np.ndarray], rows: int) -> np.ndarray:
        """int8 code of each row's first failed rule among `failed` (rule key -> mask); 0: none."""
        code = np.zeros(rows, dtype=np.int8)
        for rule in self.rules:
            if rule.key in failed:
                code[(code == 0) & failed[rule.key]] = self.code(rule.key)
        return code


NODE_RULES = RuleList(
    (
        RowRule("unreadable", UNREADABLE),
        RowRule("empty_id", "empty node id"),
        RowRule("empty_type", "empty node type"),
        RowRule("no_name_or_text", "node has neither name nor text"),
        RowRule("empty_text", EMPTY_TEXT, EMPTY_TEXT_HINT),  # unless allow_empty_text
        RowRule("duplicate_id", "duplicate node id; the first row with this id is kept"),
    )
)
"""Node rules; a failing row shows its id."""

EDGE_RULES = RuleList(
    (
        RowRule("unreadable", UNREADABLE, shows="src"),
        RowRule("empty_relation", "empty relation", shows="src"),
        RowRule("empty_src", "empty src node id", shows="src"),
        RowRule("dangling_src", "src is not the id of a valid node", shows="src"),
        RowRule("empty_dst", "empty dst node id", shows="dst"),
        RowRule("dangling_dst", "dst is not the id of a valid node", shows="dst"),
        RowRule("self_loop", "self-loop (src == dst)", STRICT_HINT, shows="src"),  # strict
        RowRule(
            "duplicate_edge",
            "duplicate edge (same src, dst, relation); the first is kept",
            STRICT_HINT,
            shows="src",
        ),  # strict
    )
)
"""Edge rules; self-loops and duplicates are invalid only under strict."""
