"""The offline planner (`-m rules`): a plan from the question, its search hits and the schema.

The one place where the rule policy's relational logic lives. The rule agent replays the
plan through the tools (agent/models/rules/), the plan executor runs it directly
(tools/plans/execute.py); both feed it the hits of the same first search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tools.listing_parse import ListedNode, NamedListed
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader, Vocabulary, find_span, words
from tools.schemas import TARGET_VAR, GraphPlan, PlanAnchor, PlanHop, PlanTarget

if TYPE_CHECKING:
    from graphs.manifest import Manifest

MAX_ANCHORS = 3
"""Mentions expanded (the longest and best-named first)."""
FIRST_SEARCH_K = 20
"""Hits of the question's first search the planner reads (the rule agent's first call)."""
MIN_LABEL_MATCH = 0.5
"""A relation is named when its label's words, weighted by how few labels hold each, are
at least this share present in the question."""


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
        name_score: BM25 of the question's words naming it (its relevance as an anchor).
        hops: One hop, or two through an intermediate type.
        query: The question's remaining words for this anchor: the plan's relevance text
            plus the other anchors' words (ranks the last hop).
    """

    var: str
    node: ListedNode
    name_score: float
    hops: tuple[RoutedHop, ...]
    query: str


@dataclass(frozen=True)
class RulePlan:
    """A plan and the walks it asks for.

    Attributes:
        plan: The plan (what the executor runs and `ark plan` prints).
        anchor_nodes: Anchor variable -> the node it names (the agent expands from it).
        relational: Whether the plan walks the graph (False: a text plan, one doc anchor).
        routes: Each anchor's walk, in anchor order.
    """

    plan: GraphPlan
    anchor_nodes: dict[str, ListedNode]
    relational: bool
    routes: tuple[Route, ...] = ()


class RulePlanner:
    """Writes a `GraphPlan` for a question from the snapshot's names, schema and search hits.

    No wording rule: what the question names is read from the graph's own names, relations
    and types.
    1. Anchors are the nodes the question names (`search`'s "names in the query", the name
       index; tools/mentions.py): each mention's best homonym, the longest and best-named
       mentions first, at most `MAX_ANCHORS`. Without that block (the paper toolset), the
       search hits whose name occurs in the question.
    2. Relations are named when the question holds their label's words (`QuestionReader.
       named_relations`: whole labels, so `requires` is not read inside
       `optionally_requires`); the answer type is the snapshot's only candidate type, else the
       first candidate type the question names.
    3. Each anchor walks one hop to the target along the named relation that touches its
       type (every relation when none does), or two through an intermediate type when the
       named relation or answer type lies beyond its neighbours' types (`hops_for`). The
       direction of a named relation is judged from the order of the anchor and the
       relation's words in the question (`QuestionReader.direction`).
    4. No anchor: a text plan, the question as one doc anchor (risk level `no_trade`).

    Args:
        manifest: The snapshot's schema and analyzer.
        vocabulary: The snapshot's index statistics, to keep only the words of the relevance
            text that can rank nodes (None: every word the analyzer keeps).
    """

    def __init__(self, manifest: Manifest, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary
        self.reader = QuestionReader.build(
            manifest.analyzer, manifest.node_types, manifest.relations
        )
        self.schema = SchemaPaths.from_signatures(manifest.signatures)
        self.candidate_types = list(manifest.candidate_types)

    def plan(
        self,
        question: str,
        hits: Sequence[ListedNode],
        names: Sequence[NamedListed] | None = None,
    ) -> RulePlan:
        """The plan for `question`.

        Args:
            question: The question.
            hits: Its first search's hits, best first.
            names: The search's "names in the query" rows; None when the search showed no
                such block (then the hits whose name the question holds are the anchors).
        """
        mentions = self.anchors(question, hits if names is None else None, names)
        if not mentions:
            return self.text_plan(question)
        target = self.answer_type(question)
        relations = self.reader.named_relations(question, MIN_LABEL_MATCH)
        relevance = self.reader.residual(
            question, [words for words, _, _ in mentions], self.vocabulary
        )
        plan_anchors, hops, routes = [], [], []
        for number, (named, node, score) in enumerate(mentions, start=1):
            var = f"A{number}"
            plan_anchors.append(PlanAnchor(var=var, text=node.name, label=node.type))
            walk = self.hops_for(node.type, target, relations, question, named)
            others = [w for w, n, _ in mentions if n is not node]
            query = " ".join([relevance, *others]).strip()
            routes.append(Route(var, node, score, walk, query))
            hops += _plan_hops(var, walk)
        plan = GraphPlan(
            anchors=plan_anchors,
            hops=hops,
            target=PlanTarget(
                labels=[target] if target else list(self.candidate_types),
                relevance_text=relevance,
            ),
            risk_level="normal" if target else "weak",
        )
        anchor_nodes = {route.var: route.node for route in routes}
        return RulePlan(plan, anchor_nodes, relational=True, routes=tuple(routes))

    def text_plan(self, question: str) -> RulePlan:
        """A plan with no walk: the question as one doc anchor bound to the target."""
        anchor = PlanAnchor(var=TARGET_VAR, text=question, match_mode="doc")
        target = PlanTarget(labels=list(self.candidate_types))
        plan = GraphPlan(anchors=[anchor], target=target, risk_level="no_trade")
        return RulePlan(plan, {}, relational=False)

    def hops_for(
        self,
        anchor_type: str,
        target: str | None,
        relations: list[str],
        question: str,
        words: str,
    ) -> tuple[RoutedHop, ...]:
        """One hop to the target, or two through an intermediate type.

        Two hops through a type the question names that links both ends, through an end type
        of a named relation that does not touch the anchor's type, or through the best-linked
        type when the anchor's type has no direct link to the answer type.
        """
        near = tuple(r for r in relations if self.schema.touches(r, anchor_type))
        far = tuple(r for r in relations if not self.schema.touches(r, anchor_type))
        named = [
            t
            for t in self.reader.mentioned_types(question)
            if t not in (target, anchor_type) and self.schema.linked(anchor_type, t)
        ]
        middle = named[0] if named and target and self.schema.linked(named[0], target) else None
        direct = target is not None and self.schema.linked(anchor_type, target)
        if middle is None and far and not near and not direct:
            middle = self.schema.entry_type(list(far), anchor_type)
        if middle is None and target and not direct:
            middle = self.schema.bridge(anchor_type, target)
        if middle is None:
            direction = self.reader.direction(question, words, near)
            return (RoutedHop(target, near, direction),)
        first = tuple(r for r in near if self.schema.touches(r, middle))
        return (
            RoutedHop(middle, first, self.reader.direction(question, words, first)),
            RoutedHop(target, far),
        )

    def answer_type(self, question: str) -> str | None:
        """The node type the answers should have, if the question or snapshot tells."""
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        mentioned = self.reader.mentioned_types(question)
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        return allowed[0] if allowed else None

    def anchors(
        self,
        question: str,
        hits: Sequence[ListedNode] | None,
        names: Sequence[NamedListed] | None,
    ) -> list[tuple[str, ListedNode, float]]:
        """(the question's words, the node they name, its name score), at most MAX_ANCHORS.

        One node per mention: its best homonym by the question's text, among those whose type
        a relation the question names touches when there are such; longer mentions first,
        then higher name scores; returned in question order.
        """
        relations = self.reader.named_relations(question, MIN_LABEL_MATCH)
        best: dict[str, tuple[ListedNode, float]] = {}
        for row in names or ():
            fits = any(self.schema.touches(r, row.node.type) for r in relations)
            held = best.get(row.words)
            if held is not None and (
                not fits or any(self.schema.touches(r, held[0].type) for r in relations)
            ):
                continue
            if self.reader.content_words(row.words):
                best[row.words] = (row.node, row.node.score or 0.0)
        question_words = words(question)
        for hit in hits or ():
            span = find_span(question_words, words(hit.name))
            if span is not None and self.reader.content_words(hit.name):
                best.setdefault(hit.name, (hit, hit.score or 0.0))
        chosen = sorted(best, key=lambda w: (-len(words(w)), -best[w][1]))[:MAX_ANCHORS]
        position = {w: question.lower().find(w.lower()) for w in chosen}
        return [(w, *best[w]) for w in sorted(chosen, key=position.__getitem__)]


def _plan_hops(var: str, walk: tuple[RoutedHop, ...]) -> list[PlanHop]:
    """The plan's hops for one anchor's walk (its intermediate variable is VAR_via)."""
    ends = [f"{var}_via"] * (len(walk) - 1) + [TARGET_VAR]
    starts = [var, *ends[:-1]]
    return [
        _hop(start, _one(hop.relations), end, hop.node_type, hop.direction)
        for start, end, hop in zip(starts, ends, walk, strict=True)
    ]


def _hop(
    source: str, rel: str | None, to_var: str, to_label: str | None, direction: str | None
) -> PlanHop:
    return PlanHop.model_validate(
        {"from": source, "rel": rel, "to_var": to_var, "to_label": to_label, "direction": direction}
    )


def _one(relations: Sequence[str]) -> str | None:
    """The relation of a hop: the one named, or any (None) when none or several are."""
    return relations[0] if len(relations) == 1 else None
