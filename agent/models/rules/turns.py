"""The rule policy's turns: planned tool calls, and the plan's generator type."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from tools.listing_parse import ListedNode, NamedListed

MAX_INTERMEDIATES = 20
"""Neighbours kept at an intermediate hop: the paper toolset's fixed neighbors k, so both
toolsets walk the same nodes (5 explored too few of a brand's or an author's items)."""
MAX_ANSWERS = 20
MAX_LISTED = 50
"""Neighbours listed at a walk's last hop: the tools' largest k (ToolConfig.max_k), so a
whole neighbour set of up to this many is seen, ranked by the remaining words."""
MAX_WALK_TURNS = 3
"""Turns a walk may take: two hops, and a retry over every relation of a filtered hop."""
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


class Listing(list[ListedNode]):
    """The node rows one call got back, and the nodes a search said its query names."""

    def __init__(self, rows: list[ListedNode], names: list[NamedListed] | None = None) -> None:
        super().__init__(rows)
        self.names = names or []


Results = list[Listing]
"""The node rows each call of a turn got back, in call order."""
Steps = Generator[PlannedTurn, Results, Any]
