"""The rule policy's turns: planned tool calls, and the plan's generator type."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from tools.listing_parse import ListedNode

MAX_INTERMEDIATES = 5
MAX_ANSWERS = 20
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
