"""The rule policy's turns: planned tool calls, and the plan's generator type."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from tools.listing_parse import ListedNode

MAX_INTERMEDIATES = 20
"""Neighbours kept at an intermediate hop: the paper toolset's fixed neighbors k, so both
toolsets walk the same nodes (5 explored too few of a brand's or an author's items)."""
MAX_ANSWERS = 20
MAX_CHECKED = MAX_ANSWERS
"""Reached nodes checked against a filter anchor (one neighbors call each, in one turn)."""
NO_BUDGET = 1_000
"""Turn budget assumed when the system prompt states none (more than any plan uses)."""


@dataclass(frozen=True)
class PlannedCall:
    """One tool call of the plan."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class PlannedTurn:
    """One assistant turn: a short note and its tool calls."""

    note: str
    calls: tuple[PlannedCall, ...]


Results = list[list[ListedNode]]
"""The node rows each call of a turn got back, in call order."""
Steps = Generator[PlannedTurn, Results, Any]
