"""The rule policy's turns: planned tool calls, and the plan's generator type."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from tools.listing_parse import ListedNode, NamedListed

MAX_ANSWERS = 20
MAX_LISTED = 50
"""Neighbours listed at a walk's last hop: the tools' largest k (ToolConfig.max_k), so a
whole neighbour set of up to this many is seen, ranked by the remaining words."""
MAX_CHECKED = 2 * MAX_LISTED
"""Reached nodes checked against the anchors that did not reach them (one call each, in one
turn): every node two full listings can show, so a node one hub's listing cut is found
through the other's, however low it ranks."""
MAX_CHECK_LISTED = 5
"""Neighbours a check lists (ranked by the anchor's name, the anchor comes first if linked)."""
MAX_WALK_TURNS = 4
"""Turns a walk may take: two hops, a retry over every relation of a filtered hop, a check."""
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
