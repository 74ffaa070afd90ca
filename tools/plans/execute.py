"""The plan executor: bind the anchors, walk each anchor's hops on the CSR, rank what they reach.

Anchors bind as in GRASP (Appendix 7; tools/plans/linking.py). Where GRASP's compiled Cypher
keeps only the nodes every branch reaches and scores them by summed binding scores, the
executor ranks the nodes reached by the one rule the rule agent uses too
(tools/plans/reach.py): agreement between anchors (the intersection first, the rest kept
after it), then lying on the question's relation in its direction (a hop's `rel` and
`direction`, a soft preference: no edge is dropped), then the BM25 score of the remaining
words (the relevance text plus the other anchors' words), then being of an anchor's own
type, then the anchors' binding scores.
A hop filtered by type or relation that finds nothing from a node is walked unfiltered, as
the agent retries it. A plan with no hop (a text plan) ranks the target's own bindings by
their score plus the relevance text's similarity: the cosine with its embedding (dense) or
its BM25 score divided by the best candidate's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from tools.listing_parse import Link, ListedNode
from tools.mentions import loose, usage
from tools.neighbor_set import NeighborOrder
from tools.neighbors import rank_neighbourhood
from tools.plans.linking import Bindings, LinkConfig, link_anchor, type_codes
from tools.plans.model import GraphPlan, PlanHop, RiskLevel
from tools.plans.reach import Reach
from tools.plans.validate import check_plan
from tools.plans.walk import AnchorWalk, Expand, WalkHop, walk

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot
    from tools.dense import DenseSearch

logger = logging.getLogger(__name__)

DEFAULT_DEPTH = 100


@dataclass(frozen=True)
class Candidate:
    """One ranked answer: its external id, name, type and scores."""

    node_id: str
    name: str
    type: str
    score: float
    anchor_score: float
    relevance: float


@dataclass
class PlanOutcome:
    """What executing a plan produced.

    Attributes:
        plan: The plan run.
        bindings: Anchor variable -> its bindings as (external id, name, score).
        n_cand: Candidates the walk reached (before the ranking is cut to `depth`).
        risk_level: The plan's risk level (what dynamic fusion reads with `n_cand`).
        ranking: The best `depth` candidates, best first.
    """

    plan: GraphPlan
    bindings: dict[str, list[tuple[str, str, float]]] = field(default_factory=dict)
    n_cand: int = 0
    risk_level: RiskLevel = "normal"
    ranking: list[Candidate] = field(default_factory=list)


class PlanExecutor:
    """Runs plans on a snapshot (see the module doc).

    Args:
        snapshot: The graph.
        dense: Dense search over its embeddings: anchors and relevance by cosine; None: BM25.
        link: Anchor-linking K and τ.
        depth: Candidates kept in the ranking.
    """

    def __init__(
        self,
        snapshot: Snapshot,
        *,
        dense: DenseSearch | None = None,
        link: LinkConfig | None = None,
        depth: int = DEFAULT_DEPTH,
    ) -> None:
        self.snapshot = snapshot
        self.dense = dense
        self.link = link or LinkConfig()
        self.depth = depth
        self.order = NeighborOrder(snapshot.relation_names, snapshot.degrees)

    def run(self, plan: GraphPlan) -> PlanOutcome:
        """Execute `plan`.

        Raises:
            PlanError: it names a type or relation the snapshot lacks.
        """
        snapshot = self.snapshot
        check_plan(plan, snapshot.node_type_names, snapshot.relation_names)
        labels = _labels(plan)
        bound = {
            anchor.var: link_anchor(
                snapshot,
                anchor,
                labels.get(anchor.var, []),
                self.link,
                dense=self.dense,
                depth=self.depth if anchor.var == plan.target.var and not plan.hops else None,
            )
            for anchor in plan.anchors
        }
        outcome = PlanOutcome(plan=plan, risk_level=plan.risk_level)
        outcome.bindings = {var: self._described(b) for var, b in bound.items()}
        if not plan.hops:  # a text plan: the target's own bindings, by the relevance text
            scores = bound[plan.target.var].as_dict() if plan.target.var in bound else {}
            outcome.n_cand = len(scores)
            outcome.ranking = self._ranked(scores, plan.target.relevance_text)
            return outcome
        reach = Reach(loose=self._loose(plan, bound), anchor_types=self._kinds(plan, bound))
        walks = [
            self._anchor_walk(plan, anchor.var, bound[anchor.var], labels)
            for anchor in plan.anchors
            if anchor.var in bound and anchor.var != plan.target.var
        ]
        walking = walk(walks, reach)
        requests = next(walking, [])
        while requests:
            listed = [self._listed(request) for request in requests]
            try:
                requests = walking.send(listed)
            except StopIteration:
                break
        outcome.n_cand = len(reach.nodes)
        outcome.ranking = [
            Candidate(
                node_id,
                reach.nodes[node_id].name,
                reach.nodes[node_id].type,
                reach.nodes[node_id].strength,
                sum(reach.nodes[node_id].anchors.values()),
                reach.nodes[node_id].relevance,
            )
            for node_id in reach.ranking()[: self.depth]
        ]
        return outcome

    def _kinds(self, plan: GraphPlan, bound: dict[str, Bindings]) -> dict[str, str]:
        """Each anchor's own type: its label, else its best binding's type."""
        kinds = {}
        for anchor in plan.anchors:
            bindings = bound.get(anchor.var)
            if anchor.label:
                kinds[anchor.var] = anchor.label
            elif bindings is not None and len(bindings.nodes):
                kinds[anchor.var] = self.snapshot.type_name(int(bindings.nodes[0]))
        return kinds

    def _loose(self, plan: GraphPlan, bound: dict[str, Bindings]) -> frozenset[str]:
        """Anchors whose words the graph's text mostly uses away from them (loose).

        Only in a plan whose hops name no relation (tools/mentions.py): their agreement
        with other anchors counts for nothing, as in the rule agent.
        """
        if any(hop.rel for hop in plan.hops):
            return frozenset()
        loose_vars = set()
        for anchor in plan.anchors:
            bindings = bound.get(anchor.var)
            if anchor.var != plan.target.var and bindings is not None and len(bindings.nodes):
                texts, near = usage(self.snapshot, anchor.text, int(bindings.nodes[0]))
                if near is not None and loose(texts, near):
                    loose_vars.add(anchor.var)
        return frozenset(loose_vars)

    def _anchor_walk(
        self, plan: GraphPlan, var: str, bindings: Bindings, labels: dict[str, list[str]]
    ) -> AnchorWalk:
        """One anchor's walk (tools/plans/walk.py) along the plan's hops to the target.

        It starts from each binding (its score is the anchor's relevance); its rows are
        ranked by the relevance text plus the other anchors' words.
        """
        snapshot = self.snapshot
        ids = bindings.nodes
        external, names, types = snapshot.labels(ids) if len(ids) else ([], [], [])
        starts = tuple(
            (ListedNode(node_id, name, kind), float(score))
            for node_id, name, kind, score in zip(
                external, names, types, bindings.scores.tolist(), strict=True
            )
        )
        hops = tuple(
            WalkHop(
                tuple(labels.get(hop.to_var if outward else hop.from_var, [])),
                (hop.rel,) if hop.rel else (),
                _direction(hop, outward),
            )
            for hop, outward in _chain(plan, var)
        )
        others = [a.text for a in plan.anchors if a.var != var]
        query = " ".join([plan.target.relevance_text, *others]).strip()
        return AnchorWalk(var, starts, hops, query)

    def _listed(self, request: Expand) -> list[ListedNode]:
        """`request`'s neighbourhood as the `neighbors` tool lists it (tools/neighbors.py).

        The last hop's unbounded: every neighbour, where the tool lists at most 50.
        """
        snapshot = self.snapshot
        node = snapshot.internal_id(request.node.node_id)
        codes = type_codes(snapshot, list(request.hop.node_types))
        relations = [snapshot.relation_code(r) for r in request.hop.relations] or None
        ranked = rank_neighbourhood(
            snapshot, self.order, node, codes, relations, request.query or None, request.limit
        )
        if ranked is None:
            return []
        nodes = ranked.members.nodes[ranked.shown]
        scores = ranked.scores[ranked.shown].tolist() if ranked.scores is not None else None
        external, names, types = snapshot.labels(nodes)
        links = ranked.links(snapshot, self.order)
        return [
            ListedNode(
                external[i],
                names[i],
                types[i],
                None if scores is None else float(scores[i]),
                tuple(Link(e.relation, e.outgoing, e.incoming) for e in links[i]),
            )
            for i in range(len(nodes))
        ]

    def _ranked(self, scores: dict[int, float], relevance_text: str) -> list[Candidate]:
        if not scores:
            return []
        nodes = np.fromiter(scores, dtype=np.int64, count=len(scores))
        anchor = np.array([scores[int(n)] for n in nodes])
        relevance = self._relevance(nodes, relevance_text)
        total = anchor + relevance
        order = np.lexsort((nodes, -anchor, -total))[: self.depth]
        ids, names, types = self.snapshot.labels(nodes[order])
        return [
            Candidate(i, n, t, float(total[o]), float(anchor[o]), float(relevance[o]))
            for i, n, t, o in zip(ids, names, types, order.tolist(), strict=True)
        ]

    def _relevance(self, nodes: np.ndarray, text: str) -> np.ndarray:
        if not text.strip():
            return np.zeros(len(nodes))
        if self.dense is not None:
            return np.asarray(
                self.dense.index.scores_of(self.dense.query_vector(text), nodes), dtype=np.float64
            )
        raw = np.asarray(self.snapshot.index.score_nodes(text, nodes), dtype=np.float64)
        top = raw.max() if len(raw) else 0.0
        return raw / top if top > 0 else np.zeros(len(nodes))

    def _described(self, bindings: Bindings) -> list[tuple[str, str, float]]:
        ids, names, _ = self.snapshot.labels(bindings.nodes)
        return [(i, n, float(s)) for i, n, s in zip(ids, names, bindings.scores, strict=True)]


def _chain(plan: GraphPlan, var: str) -> list[tuple[PlanHop, bool]]:
    """The hops from `var` to the target, each with whether it is walked from -> to."""
    out: list[tuple[PlanHop, bool]] = []
    seen, current = {var}, var
    while current != plan.target.var:
        step = next(
            (
                (hop, hop.from_var == current)
                for hop in plan.hops
                if current in (hop.from_var, hop.to_var)
                and (hop.to_var if hop.from_var == current else hop.from_var) not in seen
            ),
            None,
        )
        if step is None:
            return out
        out.append(step)
        current = step[0].to_var if step[1] else step[0].from_var
        seen.add(current)
    return out


def _direction(hop: PlanHop, outward: bool) -> Literal["out", "in"] | None:
    """The hop's direction as walked from the anchor's side ("out": edges away from it)."""
    if hop.direction is None:
        return None
    return hop.direction if outward else ("in" if hop.direction == "out" else "out")


def _labels(plan: GraphPlan) -> dict[str, list[str]]:
    """Each variable's allowed node types ([]: any)."""
    labels: dict[str, list[str]] = {plan.target.var: list(plan.target.labels)}
    for anchor in plan.anchors:
        if anchor.label:
            labels[anchor.var] = [anchor.label]
    for hop in plan.hops:
        if hop.to_label and (hop.to_var != plan.target.var or not labels[hop.to_var]):
            labels[hop.to_var] = labels.get(hop.to_var) or [hop.to_label]
    return labels
