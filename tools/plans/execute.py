"""The plan executor: bind the anchors, walk each anchor's hops on the CSR, rank what they reach.

Anchors bind as in GRASP (Appendix 7; tools/plans/linking.py). Where GRASP's compiled Cypher
keeps only the nodes every branch reaches and scores them by summed binding scores, the
executor ranks the nodes reached by the one rule the rule agent uses too
(tools/plans/reach.py): agreement between anchors (the intersection first, the rest kept
after it), then lying on the question's relation in its direction (a hop's `rel` and
`direction`, a soft preference: no edge is dropped), then the BM25 score of the remaining
words (the relevance text plus the other anchors' words), then the anchor's binding score.
A hop filtered by type or relation that finds nothing from a node is walked unfiltered, as
the agent retries it. A plan with no hop (a text plan) ranks the target's own bindings by
their score plus the relevance text's similarity: the cosine with its embedding (dense) or
its BM25 score divided by the best candidate's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from tools.mentions import loose, usage
from tools.plans.linking import Bindings, LinkConfig, link_anchor, type_codes
from tools.plans.reach import MAX_INTERMEDIATES, Reach, Step, path_on, path_text
from tools.plans.validate import check_plan
from tools.schemas import GraphPlan, PlanHop, RiskLevel

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
        reach = Reach(loose=self._loose(plan, bound))
        for anchor in plan.anchors:
            if anchor.var in bound and anchor.var != plan.target.var:
                others = [a.text for a in plan.anchors if a.var != anchor.var]
                query = " ".join([plan.target.relevance_text, *others]).strip()
                self._walk_anchor(plan, anchor.var, bound[anchor.var], labels, query, reach)
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

    def _walk_anchor(
        self,
        plan: GraphPlan,
        var: str,
        bindings: Bindings,
        labels: dict[str, list[str]],
        query: str,
        reach: Reach,
    ) -> None:
        """Walk one anchor's hops to the target; add what the last reaches to `reach`.

        The walk the rule agent replays through `neighbors` (agent/models/rules/), from each
        of the anchor's bindings (its score is the anchor's relevance): a hop filtered by
        type or relation that finds nothing is walked again unfiltered; an intermediate hop
        keeps the `MAX_INTERMEDIATES` best nodes by the remaining words (`query`), the last
        keeps every node, each scored by BM25 of them.
        """
        chain = _chain(plan, var)
        if not chain or not len(bindings.nodes):
            return
        snapshot = self.snapshot
        bound = bindings.as_dict()
        paths: dict[int, tuple[list[int], list[Step], int | None]] = {
            n: ([n], [], None) for n in bound
        }
        for index, (hop, outward) in enumerate(chain):
            to_var = hop.to_var if outward else hop.from_var
            codes = type_codes(snapshot, labels.get(to_var, []))
            relation = snapshot.relation_code(hop.rel) if hop.rel else None
            wanted = _wanted_direction(hop, outward)
            reached: dict[int, tuple[list[int], list[Step], int | None]] = {}
            for node, (nodes, steps, before) in paths.items():
                hood = snapshot.neighbors(
                    node, node_types=codes, relations=None if relation is None else [relation]
                )
                if not len(hood) and relation is not None:  # the agent's retry: any relation
                    hood = snapshot.neighbors(node, node_types=codes)
                rows = zip(
                    hood.nodes.tolist(),
                    hood.relations.tolist(),
                    hood.directions.tolist(),
                    strict=True,
                )
                for n, r, d in rows:
                    if n in nodes:
                        continue
                    on = path_on(
                        before,
                        None if relation is None else int(r == relation) * (1 + (d == wanted)),
                    )
                    held = reached.get(n)
                    if held is None or (on or 0) > (held[2] or 0):
                        step = Step(snapshot.relation_names[r], forward=d > 0)
                        reached[n] = ([*nodes, n], [*steps, step], on)
            if not reached:
                return
            ids = np.fromiter(reached, dtype=np.int64, count=len(reached))
            relevance = (
                np.asarray(snapshot.index.score_nodes(query, ids), dtype=np.float64)
                if query
                else np.zeros(len(ids))
            )
            if index < len(chain) - 1:  # along the question's path first, then its words
                on_path = np.array([reached[int(n)][2] or 0 for n in ids])
                keep = np.lexsort((ids, -relevance, -on_path))[:MAX_INTERMEDIATES].tolist()
                paths = {int(ids[i]): reached[int(ids[i])] for i in keep}
                continue
            external, names, types = snapshot.labels(ids)
            for i, node_id in enumerate(external):
                nodes, steps, on = reached[int(ids[i])]
                reach.add(
                    node_id,
                    name=names[i],
                    type=types[i],
                    anchor=var,
                    anchor_score=bound[nodes[0]],
                    relevance=float(relevance[i]),
                    on_path=on or 0,
                    path=path_text([snapshot.name(n) for n in nodes], steps),
                )

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


def _wanted_direction(hop: PlanHop, outward: bool) -> int:
    """+1 when the walk's edges should point away from the anchor, -1 toward it, 0 either."""
    if hop.direction is None:
        return 0
    sign = 1 if hop.direction == "out" else -1
    return sign if outward else -sign


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
