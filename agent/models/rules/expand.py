"""The rule agent's expansion: the offline plan's hops replayed as neighbors calls, turn by turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.models.rules.turns import (
    MAX_CHECKED,
    MAX_INTERMEDIATES,
    PlannedCall,
    PlannedTurn,
    Steps,
)
from tools.listing_parse import ListedNode
from tools.plans.rule_planner import RulePlan
from tools.schemas import GraphPlan


@dataclass(frozen=True)
class Hop:
    """One neighbours expansion: the type and relation kept, and whether the query ranks it."""

    node_type: str | None
    relation: str | None
    ranked: bool
    k: int | None = None


def route(plan: GraphPlan, var: str) -> tuple[Hop, ...]:
    """The hops from anchor `var` to the target, oriented away from the anchor.

    Intermediate hops keep the first `MAX_INTERMEDIATES` neighbours; the last is ranked by the
    plan's relevance text.
    """
    labels = {h.to_var: h.to_label for h in plan.hops}
    labels[plan.target.var] = plan.target.labels[0] if len(plan.target.labels) == 1 else None
    path: list[tuple[str | None, str]] = []
    seen, current = {var}, var
    while current != plan.target.var:
        step = next(
            (
                (h.rel, h.to_var if h.from_var == current else h.from_var)
                for h in plan.hops
                if current in (h.from_var, h.to_var)
                and (h.to_var if h.from_var == current else h.from_var) not in seen
            ),
            None,
        )
        if step is None:
            break
        path.append(step)
        current = step[1]
        seen.add(current)
    hops = [Hop(labels.get(end), rel, ranked=False, k=MAX_INTERMEDIATES) for rel, end in path]
    if hops:
        last = hops[-1]
        hops[-1] = Hop(last.node_type, last.relation, ranked=True)
    return tuple(hops)


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

    def confirm(self, anchor: str, node_id: str) -> None:
        """Record that `node_id`, reached already, is also linked to `anchor`."""
        self.anchors.setdefault(node_id, set()).add(anchor)

    def ranking(self) -> list[str]:
        """More anchors first, then the matched, then more paths, then the best score.

        More anchors is the plan's intersection. Matched: a neighbours listing ranked by the
        relevance text shows a score for the rows that match it; the others only fill it.
        """
        order = {node: i for i, node in enumerate(self.paths)}
        return sorted(
            order,
            key=lambda n: (
                -len(self.anchors[n]),
                self.best[n] <= 0,
                -self.paths[n],
                -self.best[n],
                order[n],
            ),
        )


class Expansion:
    """Replays a relational plan's hops: every anchor's first hop in one turn, then the second."""

    def __init__(self, neighbors_schema: dict[str, Any], rule_plan: RulePlan) -> None:
        self.properties = neighbors_schema["parameters"]["properties"]
        self.rule_plan = rule_plan
        self.query = rule_plan.plan.target.relevance_text

    def run(self, budget: int) -> Steps:
        """Expand the anchors within `budget` turns; returns (ranked ids reached, turns used).

        An anchor the plan binds to the target directly beside a chain, and that fans out
        more than the chain's anchor, is a filter (tools/plans/rule_planner.py, `hubs`).
        With a turn to spare it is not expanded (a hub's first neighbours are an arbitrary
        slice of them) but checked from the other side: each node the chain reached lists its
        neighbours of the filter's type, and those that list the filter count as reached by
        it too. The chain's last hop is ranked by the relevance text and the filters' names,
        so the nodes checked are those most likely to pass.
        """
        plan = self.rule_plan.plan
        routes = [
            (var, node.node_id, route(plan, var))
            for var, node in self.rule_plan.anchor_nodes.items()
        ]
        routes = [(var, a, hops) for var, a, hops in routes if hops]
        if budget < 2:
            last = [(v, a, Hop(hops[-1].node_type, None, ranked=True)) for v, a, hops in routes]
            routes = [(v, a, (hop,)) for v, a, hop in last]
        chained = any(len(hops) >= 2 for _, _, hops in routes)
        filters = [
            (v, a)
            for v, a, hops in routes
            if v in self.rule_plan.filters and chained and len(hops) == 1 and budget >= 3
        ]
        walks = [(a, hops) for v, a, hops in routes if (v, a) not in filters]
        if filters:  # the chain's last hop ranks what the filters name first, to be checked
            names = [self.rule_plan.anchor_nodes[var].name for var, _ in filters]
            self.query = " ".join([self.query, *names]).strip()
        reached = Reached()
        first = [(a, hops, self._call(a, hops[0])) for a, hops in walks]
        note = "Expand the named entities along the relations asked for."
        results = yield PlannedTurn(note, tuple(call for _, _, call in first))
        follow: list[tuple[str, PlannedCall]] = []
        for (anchor, hops, call), rows in zip(first, _padded(results, len(first)), strict=True):
            if len(hops) >= 2:
                follow += [(anchor, self._call(row.node_id, hops[1])) for row in rows]
            elif rows:
                reached.add(anchor, rows)
            elif "edge_types" in call.arguments:
                relaxed = Hop(hops[0].node_type, None, ranked=True)
                follow.append((anchor, self._call(anchor, relaxed)))
        used = 1
        if follow and budget >= 2:
            note = "Follow the next hop from the nodes just found."
            results = yield PlannedTurn(note, tuple(call for _, call in follow))
            used = 2
            for (anchor, _), rows in zip(follow, _padded(results, len(follow)), strict=True):
                reached.add(anchor, rows)
        if filters and budget > used:
            used += 1
            yield from self._check(filters, reached)
        return reached.ranking(), used

    def _check(self, filters: list[tuple[str, str]], reached: Reached) -> Steps:
        """Count the reached nodes that list a filter anchor among their neighbours.

        Nothing reached: the filters are expanded toward the target instead.
        """
        plan = self.rule_plan.plan
        candidates = reached.ranking()[:MAX_CHECKED]
        if not candidates:
            calls = [(a, self._call(a, route(plan, var)[0])) for var, a in filters]
            results = yield PlannedTurn("Expand the named entities.", tuple(c for _, c in calls))
            for (anchor, _), rows in zip(calls, _padded(results, len(calls)), strict=True):
                reached.add(anchor, rows)
            return
        checks: list[tuple[str, str, PlannedCall]] = []
        for var, anchor in filters:
            node = self.rule_plan.anchor_nodes[var]
            hop = Hop(node.type, route(plan, var)[0].relation, ranked=False)
            for candidate in candidates:
                call = self._call(candidate, hop)
                if "query" in self.properties:
                    call.arguments["query"] = node.name
                checks.append((anchor, candidate, call))
        names = " and ".join(self.rule_plan.anchor_nodes[var].name for var, _ in filters)
        note = f"Keep the nodes found that are also linked to {names}."
        results = yield PlannedTurn(note, tuple(call for _, _, call in checks))
        for (anchor, candidate, _), rows in zip(checks, _padded(results, len(checks)), strict=True):
            if any(row.node_id == anchor for row in rows):
                reached.confirm(anchor, candidate)

    def _call(self, node_id: str, hop: Hop) -> PlannedCall:
        arguments: dict[str, Any] = {"node_id": node_id}
        if hop.node_type and "node_types" in self.properties:
            arguments["node_types"] = [hop.node_type]
        if hop.relation and "edge_types" in self.properties:
            arguments["edge_types"] = [hop.relation]
        if hop.ranked and self.query and "query" in self.properties:
            arguments["query"] = self.query
        if hop.k is not None and "k" in self.properties:
            arguments["k"] = hop.k
        return PlannedCall("neighbors", arguments)


def _padded(results: Sequence[list[ListedNode]], size: int) -> list[list[ListedNode]]:
    """Exactly `size` result lists (a conversation edited by hand may hold fewer)."""
    return [list(results[i]) if i < len(results) else [] for i in range(size)]
