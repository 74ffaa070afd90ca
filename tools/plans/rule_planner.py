"""The offline planner (`-m rules`): a plan from the question, its search hits and the schema.

The one place where the rule policy's relational logic lives. The rule agent replays the
plan through the tools (agent/models/rules/), the plan executor runs it directly
(tools/plans/execute.py); both feed it the hits of the same first search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.listing_parse import ListedNode
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import (
    QuestionReader,
    Vocabulary,
    cased_word_starts,
    cased_words,
    find_span,
    words,
)
from tools.schemas import TARGET_VAR, GraphPlan, PlanAnchor, PlanHop, PlanTarget, RiskLevel

if TYPE_CHECKING:
    from graphs.manifest import Manifest

MAX_ANCHORS = 2
CLAUSE_ENDS = ".;:!?"
"""Punctuation after which a word is capitalised whatever it names."""
FIRST_SEARCH_K = 20
"""Hits of the question's first search the planner reads (the rule agent's first call)."""


@dataclass(frozen=True)
class RulePlan:
    """A plan and the node each anchor was read from.

    Attributes:
        plan: The plan (what the executor runs and `ark plan` prints).
        anchor_nodes: Anchor variable -> the search hit it names (the agent expands from it).
        relational: Whether the plan walks the graph (False: a text plan, one doc anchor).
        filters: Anchor variables bound to the target directly beside a chain that fan out
            more than the chain's anchor (`RulePlanner.hubs`): the rule agent checks them
            from the nodes the chain reached rather than lists their neighbours.
    """

    plan: GraphPlan
    anchor_nodes: dict[str, ListedNode]
    relational: bool
    filters: frozenset[str] = frozenset()


class RulePlanner:
    """Writes a `GraphPlan` for a question from the snapshot's schema and its search hits.

    The policy, in order:
    1. Anchors are hits of the question's search whose name occurs verbatim in the question
       (longest names first, at most two, none contained in another).
    2. Question words are matched to node-type and relation names (tools/plans/vocabulary.py).
       The answer type is the snapshot's only candidate type if it declares one, else the
       first candidate type named in the question.
    3. The plan is relational only when the question names an entity (`relational`). Then
       each anchor gets one hop to the target, or two through an intermediate type, read off
       the relation signatures (`hops_for`); of several anchors only one keeps a chain, the
       others constrain the target directly (`with_filters`); `relevance_text` is the
       question's content words minus the anchors' names. Otherwise the plan is a single
       doc anchor on the target (the question as text), risk level `no_trade`.

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
        self.type_sizes = dict(manifest.node_types)

    def plan(self, question: str, hits: Sequence[ListedNode]) -> RulePlan:
        """The plan for `question`, given the hits of its first search (best first)."""
        anchors = self.anchors(question, hits)
        if not self.relational(question, anchors):
            return self.text_plan(question)
        target = self.answer_type(question)
        relations = self.reader.mentioned_relations(question)
        plan_anchors, routes, nodes = [], {}, {}
        for number, hit in enumerate(anchors, start=1):
            var = f"A{number}"
            plan_anchors.append(PlanAnchor(var=var, text=hit.name, label=hit.type))
            routes[var] = self.hops_for(var, hit.type, question, target=target, relations=relations)
            nodes[var] = hit
        filtered = self.with_filters(routes, nodes, target=target, relations=relations)
        hops = [hop for route in filtered.values() for hop in route]
        plan = GraphPlan(
            anchors=plan_anchors,
            hops=hops,
            target=PlanTarget(
                labels=[target] if target else list(self.candidate_types),
                relevance_text=self.reader.residual(
                    question, [h.name for h in anchors], self.vocabulary
                ),
            ),
            risk_level=self.risk(question, anchors, target),
        )
        return RulePlan(plan, nodes, relational=True, filters=self.hubs(filtered, nodes))

    def text_plan(self, question: str) -> RulePlan:
        """A plan with no walk: the question as one doc anchor bound to the target."""
        anchor = PlanAnchor(var=TARGET_VAR, text=question, match_mode="doc")
        target = PlanTarget(labels=list(self.candidate_types))
        plan = GraphPlan(anchors=[anchor], target=target, risk_level="no_trade")
        return RulePlan(plan, {}, relational=False)

    def hops_for(
        self, var: str, anchor_type: str, question: str, *, target: str | None, relations: list[str]
    ) -> list[PlanHop]:
        """One hop to the target, or two through an intermediate type.

        Two hops through a type the question names (linked to both ends), through an end type
        of a named relation that does not touch the anchor's type, or through the best-linked
        type when the anchor's type has no direct link to the answer type.
        """
        near = [r for r in relations if self.schema.touches(r, anchor_type)]
        far = [r for r in relations if not self.schema.touches(r, anchor_type)]
        named = [
            t
            for t in self.reader.mentioned_types(question)
            if t not in (target, anchor_type) and self.schema.linked(anchor_type, t)
        ]
        middle = named[0] if named and target and self.schema.linked(named[0], target) else None
        if middle is None and far:
            middle = self.schema.entry_type(far, anchor_type)
        if middle is None and target and not self.schema.linked(anchor_type, target):
            middle = self.schema.bridge(anchor_type, target)
        if middle is None:
            return [_hop(var, _one(near), TARGET_VAR, target)]
        via = f"{var}_via"
        return [
            _hop(var, _one(near), via, middle),
            _hop(via, _one(far), TARGET_VAR, target),
        ]

    def with_filters(
        self,
        routes: dict[str, list[PlanHop]],
        nodes: dict[str, ListedNode],
        *,
        target: str | None,
        relations: list[str],
    ) -> dict[str, list[PlanHop]]:
        """One chain per question: the other anchors constrain the target directly.

        When several anchors would reach the target through a chain (the relation the question
        names once, walked from each), only the anchor whose type fans out least into the
        chain's first step keeps it (an author's few papers, not a field's hundreds); an anchor
        of another type that links to the target type directly becomes a filter, the target's
        own neighbour (GRASP's `(A)-[]-(T)` beside the chain), instead of a second walk that
        from a hub reaches nearly every node. Anchors of the chain owner's type keep their
        chains (two chains meeting at the target are the question's intersection).
        """
        chained = [var for var, hops in routes.items() if len(hops) > 1]
        if target is None or len(routes) < 2 or not chained:
            return routes
        owner = min(
            chained,
            key=lambda var: (self.fan_out(nodes[var].type, routes[var][0].to_label), var),
        )
        owner_type = nodes[owner].type
        direct = [
            r for r in relations if self.schema.touches(r, target) and r in self.schema.endpoints
        ]
        out = dict(routes)
        for var in routes:
            kind = nodes[var].type
            if var == owner or kind == owner_type or not self.schema.linked(kind, target):
                continue
            near = [r for r in direct if self.schema.touches(r, kind)]
            out[var] = [_hop(var, _one(near), TARGET_VAR, target)]
        return out

    def hubs(
        self, routes: dict[str, list[PlanHop]], nodes: dict[str, ListedNode]
    ) -> frozenset[str]:
        """Anchors bound to the target directly that fan out more than the chain they filter.

        Their type links to more target nodes, per node, than the chain's anchor links to its
        first step: listing their neighbours shows a slice of them, so the rule agent checks
        them from the nodes the chain reached instead.
        """
        chains = [(v, hops) for v, hops in routes.items() if len(hops) > 1]
        if not chains:
            return frozenset()
        floor = min(self.fan_out(nodes[v].type, hops[0].to_label) for v, hops in chains)
        return frozenset(
            v
            for v, hops in routes.items()
            if len(hops) == 1 and self.fan_out(nodes[v].type, hops[0].to_label) > floor
        )

    def fan_out(self, source: str, other: str | None) -> float:
        """Edges per `source` node into type `other` (any type when None), from the schema."""
        size = self.type_sizes.get(source, 0)
        links = self.schema.links.get(source, {})
        edges = links.get(other, 0) if other is not None else sum(links.values())
        return edges / size if size else float("inf")

    def relational(self, question: str, anchors: Sequence[ListedNode]) -> bool:
        """A relational plan fits: the question names an entity of the graph.

        A hit whose name has capitals and occurs in the question written the same way is a
        name (`Flatrev`). A hit whose name occurs only in another case (`Pink` as "coral
        pink") is an ordinary word. A lower-case name (`asthma`) names an entity only when
        the question also names a node type or a relation to follow from it. A question
        written without any capital gives no case signal: every match counts as a name.
        """
        kinds = {_mention(question, hit) for hit in anchors}
        if "name" in kinds:
            return True
        return "word" in kinds and bool(
            self.reader.mentioned_types(question) or self.reader.mentioned_relations(question)
        )

    def risk(self, question: str, anchors: Sequence[ListedNode], target: str | None) -> RiskLevel:
        """The risk level: `normal` for a written name and a known answer type, else `weak`."""
        named = any(_mention(question, hit) == "name" for hit in anchors)
        return "normal" if named and target else "weak"

    def answer_type(self, question: str) -> str | None:
        """The node type the answers should have, if the question or snapshot tells."""
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        mentioned = self.reader.mentioned_types(question)
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        return allowed[0] if allowed else None

    def anchors(self, question: str, hits: Sequence[ListedNode]) -> list[ListedNode]:
        """Search hits whose name occurs in the question, longest first."""
        question_words = words(question)
        found: list[tuple[int, int, ListedNode, str]] = []
        for rank, hit in enumerate(hits):
            name_words = words(hit.name)
            if not self.reader.content_words(hit.name):
                continue
            if find_span(question_words, name_words) is not None:
                found.append((-len(name_words), rank, hit, " ".join(name_words)))
        chosen: list[tuple[ListedNode, str]] = []
        for _, _, hit, name in sorted(found, key=lambda f: (f[0], f[1])):
            if any(f" {name} " in f" {other} " for _, other in chosen):
                continue
            chosen.append((hit, name))
        return [hit for hit, _ in chosen[:MAX_ANCHORS]]


def _hop(source: str, rel: str | None, to_var: str, to_label: str | None) -> PlanHop:
    return PlanHop.model_validate(
        {"from": source, "rel": rel, "to_var": to_var, "to_label": to_label}
    )


def _one(relations: Sequence[str]) -> str | None:
    """The relation of a hop: the one named, or any (None) when none or several are."""
    return relations[0] if len(relations) == 1 else None


def _mention(question: str, hit: ListedNode) -> str:
    """How a hit's name occurs in the question: "name", "word" (lower case) or "other".

    A capital tells a name from an ordinary word only where the question would not have
    one anyway: an occurrence whose only capital is the first letter of a clause's first
    word ("...; Migraine with aura without headache") counts as written in lower case.
    """
    if question == question.lower():
        return "name"
    if hit.name == hit.name.lower():
        return "word"
    written = cased_word_starts(question)
    name = cased_words(hit.name)
    tokens = [word for _, word in written]
    found = False
    for start in range(len(tokens) - len(name) + 1):
        if tokens[start : start + len(name)] != name:
            continue
        found = True
        if not _clause_initial(question, written[start][0]) or _capital_inside(name):
            return "name"
    return "word" if found else "other"


def _clause_initial(question: str, offset: int) -> bool:
    """Whether the word at `offset` opens the question or a clause (after . ; : ! ?)."""
    before = question[:offset].rstrip(" \t\n\"'(\u201c")
    return not before or before[-1] in CLAUSE_ENDS


def _capital_inside(name: list[str]) -> bool:
    """A capital other than the first letter of the first word (`Acme Co`, `McKee`)."""
    return any(c.isupper() for c in name[0][1:]) or any(
        c.isupper() for word in name[1:] for c in word
    )
