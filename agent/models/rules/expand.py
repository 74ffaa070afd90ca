"""The rule agent's expansion: each anchor's walk replayed as neighbors calls, turn by turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.models.rules.turns import (
    MAX_CHECK_LISTED,
    MAX_CHECKED,
    MAX_LISTED,
    PlannedCall,
    PlannedTurn,
    Steps,
)
from tools.listing_parse import ListedNode
from tools.plans.reach import MAX_INTERMEDIATES, Reach, Step, path_on, path_text
from tools.plans.rule_planner import Route, RoutedHop, RulePlan


@dataclass(frozen=True)
class Walk:
    """One neighbors call of an anchor's walk: which route, which hop, from which node."""

    route: Route
    hop: int
    start: ListedNode
    call: PlannedCall
    before: tuple[tuple[ListedNode, Step], ...] = ()
    """The path from the anchor to `start` (empty on the first hop)."""
    origin: tuple[ListedNode, float] | None = None
    """The anchor node the walk left from, and its score (None: `start`)."""
    on: int | None = None
    """How much of the path to `start` lies on the question's path (`path_on`)."""


class Expansion:
    """Replays a plan's routes: every anchor's first hop in one turn, then the second.

    A hop the question's relation filters, that comes back empty, is walked again over
    every relation (still of the hop's type) in the next turn. The nodes reached are added to a
    `Reach` (tools/plans/reach.py) with the path that reached them, the share of the
    question's path they lie on, and the score the listing gave them for the anchor's
    remaining words.
    """

    def __init__(self, neighbors_schema: dict[str, Any], rule_plan: RulePlan) -> None:
        self.properties = neighbors_schema["parameters"]["properties"]
        self.rule_plan = rule_plan
        self.cut: set[str] = set()
        """Anchor variables a last-hop listing of which showed as many rows as it could
        (more neighbours may exist): only they are checked."""

    def run(self, budget: int) -> Steps:
        """Walk the routes within `budget` turns; returns (the Reach, turns used)."""
        reach = Reach(loose=frozenset(r.var for r in self.rule_plan.routes if r.loose))
        walks = [
            self._walk(route, 0, node, (), origin=(node, score))
            for route in self.rule_plan.routes
            for node, score in route.starts()
        ]
        used = 0
        while walks and used < budget:
            note = (
                "Expand the nodes the question names along the relations it asks for."
                if used == 0
                else "Follow the walk from the nodes just found."
            )
            results = yield PlannedTurn(note, tuple(walk.call for walk in walks))
            used += 1
            follow: list[Walk] = []
            for walk, rows in zip(walks, _padded(results, len(walks)), strict=True):
                follow += self._next(walk, rows, reach)
            walks = follow
        if used < budget and len(self.rule_plan.routes) > 1:
            checks = self._checks(reach)
            if checks:
                note = "Check which nodes found are linked to the other named nodes too."
                results = yield PlannedTurn(note, tuple(call for _, _, _, call in checks))
                used += 1
                for (node_id, var, starts, _), rows in zip(
                    checks, _padded(results, len(checks)), strict=True
                ):
                    self._confirm(reach, node_id, var, starts, rows)
        return reach, used

    @staticmethod
    def _confirm(
        reach: Reach,
        node_id: str,
        var: str,
        starts: tuple[tuple[ListedNode, float], ...],
        rows: list[ListedNode],
    ) -> None:
        """Count a check: the anchor listed among the node's neighbours agrees on the node."""
        listed = {row.node_id: row for row in rows}
        for anchor, score in starts:
            row = listed.get(anchor.node_id)
            if row is not None:
                step = _step(row, RoutedHop(None, ()))  # seen from the checked node
                back = Step(step.relation, forward=not step.forward)
                path = path_text([anchor.name, reach.nodes[node_id].name], [back])
                reach.confirm(node_id, var, score, path)
                return

    def _checks(
        self, reach: Reach
    ) -> list[tuple[str, str, tuple[tuple[ListedNode, float], ...], PlannedCall]]:
        """One neighbors call per best reached node and anchor that has not reached it.

        A listing shows at most `MAX_LISTED` neighbours: a named node with more (a colour,
        a country's cities) may not have listed a node the other anchors reached. The
        `MAX_CHECKED` best reached nodes such an anchor did not list each list their
        neighbours of the anchor's type, along the relation the anchor's walk named, ranked by
        the anchor's name: if the anchor is among them, it agrees on the node. Only one-hop
        anchors whose listing was full are checked (a shorter listing showed every
        neighbour; a node two hops away is not a neighbour).
        """
        cut = [route for route in self.rule_plan.routes if route.var in self.cut]
        wanted = [
            (node_id, route)
            for node_id in reach.ranking()
            for route in cut
            if route.var not in reach.nodes[node_id].anchors
        ]
        checks = []
        for node_id, route in wanted[:MAX_CHECKED]:
            arguments: dict[str, Any] = {"node_id": node_id}
            if "node_types" in self.properties:
                arguments["node_types"] = [route.node.type]
            if route.hops[-1].relations and "edge_types" in self.properties:
                arguments["edge_types"] = list(route.hops[-1].relations)
            if "query" in self.properties:
                arguments["query"] = route.node.name
            if "k" in self.properties:
                arguments["k"] = MAX_CHECK_LISTED
            call = PlannedCall("neighbors", arguments)
            checks.append((node_id, route.var, route.starts(), call))
        return checks

    def _next(self, walk: Walk, rows: list[ListedNode], reach: Reach) -> list[Walk]:
        """Record a call's rows; the calls they lead to (a relaxed retry or the next hop)."""
        hop = walk.route.hops[walk.hop]
        origin = walk.origin or (walk.start, walk.route.anchor_score)
        if not rows:  # the question's relation is not here: walk every relation instead
            if "edge_types" not in walk.call.arguments:
                return []
            relaxed = RoutedHop(hop.node_type, ())
            return [
                self._walk(
                    walk.route, walk.hop, walk.start, walk.before, origin, relaxed, on=walk.on
                )
            ]
        if walk.hop + 1 < len(walk.route.hops):  # along the question's path first
            ranked = sorted(rows, key=lambda row: -(path_on(walk.on, _hop_on(row, hop)) or 0))
            return [
                self._walk(
                    walk.route,
                    walk.hop + 1,
                    row,
                    (*walk.before, (row, _step(row, hop))),
                    origin,
                    on=path_on(walk.on, _hop_on(row, hop)),
                )
                for row in ranked[:MAX_INTERMEDIATES]
            ]
        if len(walk.route.hops) == 1 and len(rows) >= walk.call.arguments.get("k", MAX_LISTED):
            self.cut.add(walk.route.var)
        for row in rows:
            steps = [*walk.before, (row, _step(row, hop))]
            names = [origin[0].name, *(node.name for node, _ in steps)]
            reach.add(
                row.node_id,
                name=row.name,
                type=row.type,
                anchor=walk.route.var,
                anchor_score=origin[1],
                relevance=row.score or 0.0,
                on_path=path_on(walk.on, _hop_on(row, hop)) or 0,
                path=path_text(names, [step for _, step in steps]),
            )
        return []

    def _walk(
        self,
        route: Route,
        index: int,
        start: ListedNode,
        before: tuple[tuple[ListedNode, Step], ...],
        origin: tuple[ListedNode, float] | None = None,
        hop: RoutedHop | None = None,
        *,
        on: int | None = None,
    ) -> Walk:
        hop = hop or route.hops[index]
        last = index == len(route.hops) - 1
        arguments: dict[str, Any] = {"node_id": start.node_id}
        if hop.node_type and "node_types" in self.properties:
            arguments["node_types"] = [hop.node_type]
        if hop.relations and "edge_types" in self.properties:
            arguments["edge_types"] = list(hop.relations)
        if last and route.query and "query" in self.properties:
            arguments["query"] = route.query
        if "k" in self.properties:
            arguments["k"] = MAX_LISTED if last else MAX_INTERMEDIATES
        return Walk(route, index, start, PlannedCall("neighbors", arguments), before, origin, on)


def _step(row: ListedNode, hop: RoutedHop) -> Step:
    """The edge that links a listed row to the node listed from, the hop's relation first."""
    links = sorted(row.links, key=lambda link: link.relation not in hop.relations)
    if not links:
        return Step("linked", forward=True)
    link = links[0]
    if hop.direction == "in" and link.incoming:
        return Step(link.relation, forward=False)
    return Step(link.relation, forward=link.outgoing)


def _hop_on(row: ListedNode, hop: RoutedHop) -> int | None:
    """How much a listed row's link lies on the question's path (see `path_on`).

    2: along the question's relation in its direction; 1: along it; 0: another relation;
    None: the hop names no relation.
    """
    if not hop.relations:
        return None
    on = [link for link in row.links if link.relation in hop.relations]
    if not on:
        return 0
    if hop.direction == "out" and any(link.outgoing for link in on):
        return 2
    if hop.direction == "in" and any(link.incoming for link in on):
        return 2
    return 1


def _padded(results: Sequence[list[ListedNode]], size: int) -> list[list[ListedNode]]:
    """Exactly `size` result lists (a conversation edited by hand may hold fewer)."""
    return [list(results[i]) if i < len(results) else [] for i in range(size)]
