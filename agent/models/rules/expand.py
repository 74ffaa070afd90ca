"""The rule agent's expansion: the one walk (tools/plans/walk.py) as neighbors calls."""

from __future__ import annotations

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
from tools.plans.anchors import qualified
from tools.plans.reach import Reach, Step, path_text
from tools.plans.rule_plan import Route, RulePlan
from tools.plans.walk import AnchorWalk, Expand, WalkHop, Walking, padded, step_of, walk


class Expansion:
    """Replays a plan's routes as `neighbors` calls: the one walk (tools/plans/walk.py).

    Every anchor's first hop in one turn, then the second; a hop the question's relation
    filters that comes back empty is walked again over every relation in the next turn. The
    nodes reached are added to a `Reach` (tools/plans/reach.py) with the path that reached
    them, the share of the question's path they lie on, and the score the listing gave them
    for the anchor's remaining words. Then, within the budget, the best reached nodes are
    checked against anchors whose listing was cut.
    """

    def __init__(self, neighbors_schema: dict[str, Any], rule_plan: RulePlan) -> None:
        self.properties = neighbors_schema["parameters"]["properties"]
        self.rule_plan = rule_plan
        self.cut: set[str] = set()
        """Anchor variables a last-hop listing of which showed as many rows as it could
        (more neighbours may exist): only they are checked."""

    def run(self, budget: int) -> Steps:
        """Walk the routes within `budget` turns; returns (the Reach, turns used)."""
        routes = self.rule_plan.routes
        reach = Reach(
            loose=frozenset(route.var for route in routes if route.loose),
            sure=frozenset(route.var for route in routes if qualified(route.words)),
            anchor_types={route.var: route.node.type for route in routes},
        )
        walking = walk([anchor_walk(route) for route in routes], reach)
        requests = next(walking, [])
        used = 0
        while requests and used < budget:
            note = (
                "Expand the nodes the question names along the relations it asks for."
                if used == 0
                else "Follow the walk from the nodes just found."
            )
            calls = [self._call(request) for request in requests]
            results = yield PlannedTurn(note, tuple(calls))
            used += 1
            listed = padded(results, len(requests))
            for request, call, rows in zip(requests, calls, listed, strict=True):
                single = len(request.walk.hops) == 1
                if request.last and single and len(rows) >= call.arguments.get("k", MAX_LISTED):
                    self.cut.add(request.walk.var)
            requests = _send(walking, listed)
        walking.close()
        if used < budget and len(routes) > 1:
            checks = self._checks(reach)
            if checks:
                note = "Check which nodes found are linked to the other named nodes too."
                results = yield PlannedTurn(note, tuple(call for _, _, _, call in checks))
                used += 1
                for (node_id, var, starts, _), rows in zip(
                    checks, padded(results, len(checks)), strict=True
                ):
                    self._confirm(reach, node_id, var, starts, rows)
        return reach, used

    def _call(self, request: Expand) -> PlannedCall:
        """The `neighbors` call a walk's request is, in the arguments the tool offers."""
        arguments: dict[str, Any] = {"node_id": request.node.node_id}
        if request.hop.node_types and "node_types" in self.properties:
            arguments["node_types"] = list(request.hop.node_types)
        if request.hop.relations and "edge_types" in self.properties:
            arguments["edge_types"] = list(request.hop.relations)
        if request.query and "query" in self.properties:
            arguments["query"] = request.query
        if "k" in self.properties:
            arguments["k"] = request.limit or MAX_LISTED
        return PlannedCall("neighbors", arguments)

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
                step = step_of(row, WalkHop(()))  # seen from the checked node
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


def anchor_walk(route: Route) -> AnchorWalk:
    """A route of the offline plan as the one walk's anchor walk."""
    hops = tuple(
        WalkHop((hop.node_type,) if hop.node_type else (), hop.relations, hop.direction)
        for hop in route.hops
    )
    return AnchorWalk(route.var, route.starts(), hops, route.query)


def _send(walking: Walking, listed: list[list[ListedNode]]) -> list[Expand]:
    """The walk's next round of requests (none: it is done)."""
    try:
        return walking.send(listed)
    except StopIteration:
        return []
