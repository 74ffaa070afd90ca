"""The rule policy's expansion: each anchor's one- or two-hop route, turn by turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.models.rules.turns import MAX_INTERMEDIATES, PlannedCall, PlannedTurn, Steps

if TYPE_CHECKING:
    from agent.models.rules.question_terms import SchemaVocabulary
    from agent.models.rules.schema_paths import SchemaPaths
    from tools.listing_parse import ListedNode


@dataclass(frozen=True)
class Hop:
    """One neighbours expansion: the type and relations kept, and whether the query ranks it."""

    node_type: str | None
    relations: tuple[str, ...]
    ranked: bool
    k: int | None = None


@dataclass(frozen=True)
class Route:
    """How to reach the answers from one anchor: one hop, or two through an intermediate type."""

    anchor: str
    hops: tuple[Hop, ...]


def route(
    anchor: ListedNode,
    question: str,
    *,
    vocabulary: SchemaVocabulary,
    schema: SchemaPaths,
    target: str | None,
    relations: Sequence[str],
) -> Route:
    """Choose one- or two-hop expansion for an anchor from the relation signatures.

    One hop to the answer type; or two, through a named intermediate type, through an end type
    of a named relation that does not touch the anchor's type, or through the best-linked type
    when the anchor's type has no direct link to the answer type. The last hop is ranked by the
    question's words minus the anchor's name; intermediate hops keep the five first neighbours.
    """
    near = tuple(r for r in relations if schema.touches(r, anchor.type))
    far = tuple(r for r in relations if not schema.touches(r, anchor.type))
    last = Hop(target, far, ranked=True)
    named = [
        t
        for t in vocabulary.mentioned_types(question)
        if t not in (target, anchor.type) and schema.linked(anchor.type, t)
    ]
    middle = named[0] if named and target and schema.linked(named[0], target) else None
    if middle is None and far:
        middle = schema.entry_type(far, anchor.type)
    if middle is None and target and not schema.linked(anchor.type, target):
        middle = schema.bridge(anchor.type, target)
    if middle is None:
        return Route(anchor.node_id, (Hop(target, near, ranked=True),))
    return Route(anchor.node_id, (Hop(middle, near, ranked=False, k=MAX_INTERMEDIATES), last))


@dataclass
class Reached:
    """Nodes reached by the last hops: which anchors reached them, how often, best score."""

    anchors: dict[str, set[str]] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)
    best: dict[str, float] = field(default_factory=dict)

    def add(self, anchor: str, rows: Sequence[ListedNode]) -> None:
        """Count the rows one anchor's route reached."""
        for row in rows:
            score = 0.0 if row.score is None else row.score
            self.anchors.setdefault(row.node_id, set()).add(anchor)
            self.paths[row.node_id] = self.paths.get(row.node_id, 0) + 1
            self.best[row.node_id] = max(self.best.get(row.node_id, float("-inf")), score)

    def ranking(self) -> list[str]:
        """More anchors first, then more paths, then the best score, then first reached."""
        order = {node: i for i, node in enumerate(self.paths)}
        return sorted(
            order,
            key=lambda n: (-len(self.anchors[n]), -self.paths[n], -self.best[n], order[n]),
        )


class Expansion:
    """Runs the anchors' routes turn by turn: all first hops, then all second hops."""

    def __init__(
        self,
        question: str,
        neighbors_schema: dict[str, Any],
        *,
        vocabulary: SchemaVocabulary,
        schema: SchemaPaths,
        target: str | None,
        query: str,
    ) -> None:
        self.question = question
        self.properties = neighbors_schema["parameters"]["properties"]
        self.vocabulary = vocabulary
        self.schema = schema
        self.target = target if "node_types" in self.properties else None
        self.query = query

    def run(self, anchors: list[ListedNode], budget: int) -> Steps:
        """Expand the anchors within `budget` turns; returns (ranked ids reached, turns used)."""
        relations = (
            self.vocabulary.mentioned_relations(self.question)
            if "edge_types" in self.properties
            else []
        )
        routes = [
            route(
                anchor,
                self.question,
                vocabulary=self.vocabulary,
                schema=self.schema,
                target=self.target,
                relations=relations,
            )
            for anchor in anchors
        ]
        if budget < 2:
            routes = [Route(r.anchor, r.hops[-1:]) for r in routes]
        reached = Reached()
        first = [(r, self._call(r.anchor, r.hops[0])) for r in routes]
        note = "Expand the named entities along the relations asked for."
        results = yield PlannedTurn(note, tuple(call for _, call in first))
        follow: list[tuple[str, PlannedCall]] = []
        for (path, call), rows in zip(first, _padded(results, len(first)), strict=True):
            if len(path.hops) == 2:
                follow += [(path.anchor, self._call(row.node_id, path.hops[1])) for row in rows]
            elif rows:
                reached.add(path.anchor, rows)
            elif "edge_types" in call.arguments:
                relaxed = Hop(path.hops[0].node_type, (), ranked=True)
                follow.append((path.anchor, self._call(path.anchor, relaxed)))
        used = 1
        if follow and budget >= 2:
            note = "Follow the next hop from the nodes just found."
            results = yield PlannedTurn(note, tuple(call for _, call in follow))
            used = 2
            for (anchor, _), rows in zip(follow, _padded(results, len(follow)), strict=True):
                reached.add(anchor, rows)
        return reached.ranking(), used

    def _call(self, node_id: str, hop: Hop) -> PlannedCall:
        arguments: dict[str, Any] = {"node_id": node_id}
        if hop.node_type and "node_types" in self.properties:
            arguments["node_types"] = [hop.node_type]
        if hop.relations and "edge_types" in self.properties:
            arguments["edge_types"] = list(hop.relations)
        if hop.ranked and self.query and "query" in self.properties:
            arguments["query"] = self.query
        if hop.k is not None:
            arguments["k"] = hop.k
        return PlannedCall("neighbors", arguments)


def _padded(results: Sequence[list[ListedNode]], size: int) -> list[list[ListedNode]]:
    """Exactly `size` result lists (a conversation edited by hand may hold fewer)."""
    return [list(results[i]) if i < len(results) else [] for i in range(size)]
