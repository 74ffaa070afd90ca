"""The plan executor: bind the anchors, walk the typed hops on the CSR, rescore, rank.

Semantics follow GRASP's compiled Cypher (§3.1): every hop is an undirected match of its
relation (any relation when `rel` is null) to a node of its `to_label`; a target reached
along a path scores the sum of the anchor bindings' scores on that path, and the maximum over
paths. The hops form a tree (`GraphPlan` checks it), so the maximum over whole matches is
the sum over the branches meeting at a variable of each branch's maximum: a variable that
several branches reach keeps only the nodes every branch reaches (the intersection of
neighbourhoods). A variable with neither an anchor nor an anchor below it constrains
nothing. When `relevance_text` is not empty each candidate adds its similarity to it: the
cosine with the text's embedding (dense) or its BM25 score divided by the best candidate's.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from tools.plans.linking import Bindings, LinkConfig, link_anchor, type_codes
from tools.plans.validate import check_plan
from tools.schemas import GraphPlan, PlanHop, RiskLevel

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot
    from tools.dense import DenseSearch

logger = logging.getLogger(__name__)

MAX_FRONTIER = 2_000
"""A variable's best nodes expanded further (bounds a walk through hubs)."""
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
        scores = self._value(plan, plan.target.var, None, bound, labels) or {}
        outcome = PlanOutcome(plan=plan, n_cand=len(scores), risk_level=plan.risk_level)
        outcome.bindings = {var: self._described(b) for var, b in bound.items()}
        outcome.ranking = self._ranked(scores, plan.target.relevance_text)
        return outcome

    def _value(
        self,
        plan: GraphPlan,
        var: str,
        parent: PlanHop | None,
        bound: dict[str, Bindings],
        labels: dict[str, list[str]],
    ) -> dict[int, float] | None:
        """Best path-score sum per node of `var` over its subtree away from `parent`."""
        parts = [bound[var].as_dict()] if var in bound else []
        for hop in plan.hops:
            if hop is parent or var not in (hop.from_var, hop.to_var):
                continue
            child = hop.to_var if hop.from_var == var else hop.from_var
            below = self._value(plan, child, hop, bound, labels)
            if below is not None:
                parts.append(self._walk(below, hop.rel, labels.get(var, [])))
        if not parts:
            return None
        common = set(parts[0]).intersection(*parts[1:])
        return {node: sum(part[node] for part in parts) for node in common}

    def _walk(
        self, scores: dict[int, float], rel: str | None, labels: list[str]
    ) -> dict[int, float]:
        """Nodes one hop from `scores`' best nodes, each with the best score that reaches it."""
        codes = type_codes(self.snapshot, labels)
        relations = [self.snapshot.relation_code(rel)] if rel else None
        reached: dict[int, float] = defaultdict(lambda: float("-inf"))
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        if len(best) > MAX_FRONTIER:
            logger.info("plan walk expands the best %d of %d nodes", MAX_FRONTIER, len(best))
        for node, score in best[:MAX_FRONTIER]:
            hood = self.snapshot.neighbors(node, node_types=codes, relations=relations)
            for neighbour in np.unique(hood.nodes).tolist():
                if score > reached[neighbour]:
                    reached[neighbour] = score
        return dict(reached)

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
