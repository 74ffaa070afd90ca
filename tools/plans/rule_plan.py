"""The offline planner's output: a plan and each anchor's walk (what the rule agent replays).

Written by `RulePlanner` (tools/plans/rule_planner.py), judged against the search by
`Rivals` (tools/plans/rivals.py), walked by the rule agent (agent/models/rules/expand.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.listing_parse import ListedNode
from tools.plans.model import GraphPlan


@dataclass(frozen=True)
class RoutedHop:
    """One hop of an anchor's walk: types and relations kept, the direction the wording gives."""

    node_type: str | None
    relations: tuple[str, ...]
    direction: Literal["out", "in"] | None = None


@dataclass(frozen=True)
class Route:
    """One anchor's walk to the answers.

    Attributes:
        var: The anchor's plan variable.
        node: The node the question names.
        anchor_score: The question's BM25 score of the node (its relevance as an anchor).
        hops: One hop, or two through an intermediate type.
        query: The question's remaining words for this anchor: the plan's relevance text
            plus the other anchors' words (ranks the last hop).
    """

    var: str
    node: ListedNode
    anchor_score: float
    hops: tuple[RoutedHop, ...]
    query: str
    words: str = ""
    """The question's words that name the anchor."""
    homonyms: tuple[tuple[ListedNode, float], ...] = ()
    """Every node of the anchor's type those words name (best first, `node` among them),
    each with its score: all are walked from, as one anchor."""
    loose: bool = False
    """Whether the graph's text mostly uses the anchor's words away from it
    (tools/mentions.py) and the question names no relation: it may use them as words, not
    as a name. A question that names one of the graph's relations asks for a walk."""
    inflected: bool = False
    """Whether the question writes the anchor's name only in another form (matched by its
    stem: "shell" for the section `shells`), a weaker sign of the name's use."""

    def starts(self) -> tuple[tuple[ListedNode, float], ...]:
        """The nodes the walk starts from, with their scores."""
        return self.homonyms or ((self.node, self.anchor_score),)


@dataclass(frozen=True)
class RulePlan:
    """A plan and the walks it asks for.

    Attributes:
        plan: The plan (what the executor runs and `ark plan` prints).
        routes: Each anchor's walk, in anchor order (none: a text plan, one doc anchor).
    """

    plan: GraphPlan
    routes: tuple[Route, ...] = ()
    relations: tuple[str, ...] = ()
    """The graph's relations the question names (none: it asks for no relation by name)."""
    named_ids: frozenset[str] = frozenset()
    """Every node the question's words name, by id (each homonym of each mention, of any
    type, from the search's "names in the query" block; empty without that block)."""
    answer_type: str | None = None
    """The one type the plan confines its answers to (named by the question, the far end of
    a named relation, or the snapshot's only candidate type); None: the candidate types."""

    @property
    def relational(self) -> bool:
        """Whether the plan walks the graph."""
        return bool(self.routes)

    @property
    def loose(self) -> bool:
        """Whether an anchor is loose (`Route.loose`): the plan's reading of it is unsure."""
        return any(route.loose for route in self.routes)

    @property
    def start_ids(self) -> frozenset[str]:
        """The ids of the nodes every walk starts from (each anchor's homonyms)."""
        return frozenset(node.node_id for route in self.routes for node, _ in route.starts())

    @property
    def anchor_nodes(self) -> dict[str, ListedNode]:
        """Anchor variable -> the node it names (its best homonym)."""
        return {route.var: route.node for route in self.routes}
