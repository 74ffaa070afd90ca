"""The offline planner (`-m rules`): a plan from the question, its search hits and the schema.

The one place where the rule policy's relational logic lives. The rule agent replays the
plan through the tools (agent/models/rules/), the plan executor runs it directly
(tools/plans/execute.py); both feed it the hits of the same first search.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from graphs.snapshot.names import name_words, split_disambiguator
from tools.listing_parse import ListedNode, NamedListed
from tools.plans.model import TARGET_VAR, GraphPlan, PlanAnchor, PlanHop, PlanTarget
from tools.plans.reach import Reach
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import (
    MIN_CONTENT_CHARS,
    QuestionReader,
    TermStats,
    find_span,
    words,
)

if TYPE_CHECKING:
    from graphs.manifest import Manifest

MAX_ANCHORS = 3
"""Mentions expanded (the longest and best-named first)."""
MAX_HOMONYMS = 3
"""Nodes of one mention walked from (its homonyms of the chosen one's type, best first)."""
FIRST_SEARCH_K = 20
"""Hits of the question's first search the planner reads (the rule agent's first call)."""
RIVAL_SHARE = 0.5
"""Share of an anchor's name weight a search hit's name must hold to rival the anchor."""
LEADING_HITS = 3
"""Hits of the whole question's search (of the answer types) that rival loose anchors."""
CLEAR_LEAD = 1.5
"""How many times the next hit's score the whole question's first hit must score to answer a
question that asks for no walk (`RulePlanner.clear_winner`). On the development graphs the
first hits that were the answer while the walk's were not led by 1.70x and 1.97x, and every
one that was not the answer where the walk's was, by at most 1.20x."""
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
    named: frozenset[str] = frozenset()
    """Every node the question's words name (each homonym of each mention, of any type)."""

    @property
    def relational(self) -> bool:
        """Whether the plan walks the graph."""
        return bool(self.routes)

    @property
    def loose(self) -> bool:
        """Whether an anchor is loose (`Route.loose`): the plan's reading of it is unsure."""
        return any(route.loose for route in self.routes)

    @property
    def anchor_nodes(self) -> dict[str, ListedNode]:
        """Anchor variable -> the node it names (its best homonym)."""
        return {route.var: route.node for route in self.routes}


class RulePlanner:
    """Writes a `GraphPlan` for a question from the snapshot's names, schema and search hits.

    No wording rule: what the question names is read from the graph's own names, relations
    and types.
    1. Anchors are the nodes the question names (`search`'s "names in the query", the name
       index; tools/mentions.py): each mention's best homonym, the longest and best-named
       mentions first, at most `MAX_ANCHORS`. Without that block (the paper toolset), the
       search hits whose name occurs in the question.
    2. Relations are named when the question holds their label's words (`QuestionReader.
       label_matches`: whole labels, so `requires` is not read inside
       `optionally_requires`); the answer type is the snapshot's only candidate type, else the
       first candidate type the question names (outside the anchors' names), else the one
       type the relations named whole lead to from the named nodes (`relation_end`).
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

    def __init__(self, manifest: Manifest, vocabulary: TermStats | None = None) -> None:
        self.vocabulary = vocabulary
        self.reader = QuestionReader.build(
            manifest.analyzer, manifest.node_types, manifest.relations
        )
        self.schema = SchemaPaths.from_signatures(manifest.signatures)
        self.candidate_types = list(manifest.candidate_types)
        self.type_sizes = dict(manifest.node_types)

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
        homonyms: dict[str, list[tuple[ListedNode, float]]] = {}
        loose = {row.words for row in names or () if row.loose}
        for row in names or ():
            held = homonyms.setdefault(row.words, [])
            if all(node.node_id != row.node.node_id for node, _ in held):  # named twice
                held.append((row.node, row.node.score or 0.0))
        if not mentions:
            return self.text_plan(question)
        # type and relation words inside a name name nothing ("Carrovich disease"), unless
        # the name is loose: used as words, they may name the schema ("the parts of a house")
        unnamed = _blanked(
            question,
            [
                self.reader.apposition(question, named, node.type)
                for named, node, _ in mentions
                if named not in loose
            ],
        )
        labels = self.reader.label_matches(unnamed)
        relations = labels.named(MIN_LABEL_MATCH)
        target = self.answer_type(unnamed, [node.type for _, node, _ in mentions], relations)
        whole = frozenset(labels.named(1.0))
        if target is None:
            target = self.relation_end([node.type for _, node, _ in mentions], whole)
        relevance = self.reader.schema_free(
            self.reader.residual(question, [words for words, _, _ in mentions], self.vocabulary),
            relations,
        )
        types_named = [node.type for _, node, _ in mentions]
        walks = {
            f"A{number}": self.hops_for(
                node.type,
                target,
                relations,
                question,
                named,
                claimed=self._claimed(relations, types_named, number - 1, target),
                whole=whole,
                schema_text=_blanked(unnamed, [named]),
            )
            for number, (named, node, _) in enumerate(mentions, start=1)
        }
        types = {f"A{number}": node.type for number, (_, node, _) in enumerate(mentions, 1)}
        walks = self.one_chain(walks, types, target, relations)
        plan_anchors, hops, routes = [], [], []
        for number, (named, node, score) in enumerate(mentions, start=1):
            var = f"A{number}"
            plan_anchors.append(PlanAnchor(var=var, text=node.name, label=node.type))
            others = [w for w, n, _ in mentions if n is not node]
            query = " ".join([relevance, *others]).strip()
            found = homonyms.get(named, [(node, score)])
            same = tuple((n, sc) for n, sc in found if n.type == node.type)
            routes.append(
                Route(
                    var, node, score, walks[var], query, named, same[:MAX_HOMONYMS],
                    loose=named in loose and not relations,
                    inflected=not written_as(named, node.name),
                )
            )  # fmt: skip
            hops += _plan_hops(var, walks[var])
        plan = GraphPlan(
            anchors=plan_anchors,
            hops=hops,
            target=PlanTarget(
                labels=[target] if target else list(self.candidate_types),
                relevance_text=relevance,
            ),
            risk_level="normal" if target else "weak",
        )
        named_ids = frozenset(row.node.node_id for row in names or ())
        return RulePlan(plan, tuple(routes), tuple(relations), named_ids)

    def text_plan(self, question: str) -> RulePlan:
        """A plan with no walk: the question as one doc anchor bound to the target."""
        anchor = PlanAnchor(var=TARGET_VAR, text=question, match_mode="doc")
        target = PlanTarget(labels=list(self.candidate_types))
        plan = GraphPlan(anchors=[anchor], target=target, risk_level="no_trade")
        return RulePlan(plan)

    def hops_for(
        self,
        anchor_type: str,
        target: str | None,
        relations: list[str],
        question: str,
        words: str,
        *,
        claimed: Collection[str] = (),
        whole: Collection[str] = frozenset(),
        schema_text: str | None = None,
    ) -> tuple[RoutedHop, ...]:
        """One hop to the target, or two through an intermediate type.

        Two hops through a type the question names that links both ends, through an end type
        of a named relation that does not touch the anchor's type (when the question names
        the answer type or every word of the relation's label: "also" alone, half of
        WordNet's `also_see`, does not send a walk from a painter through the adjectives),
        through the far end of a named relation that leaves the anchor's type but does not
        reach the answer type while another named relation goes on to it ("the packages that
        recommend patch: who maintains them?" walks `recommends`, then `maintained_by`; a
        relation `claimed` by another anchor, which joins its type to the answer type, is
        that anchor's), or through the best-linked type when the anchor's type has no direct
        link to the answer type.
        """
        near = tuple(r for r in relations if self.schema.touches(r, anchor_type))
        far = tuple(r for r in relations if not self.schema.touches(r, anchor_type))
        named = [
            t
            for t in self.reader.mentioned_types(
                _blanked(question, [words]) if schema_text is None else schema_text
            )
            if t not in (target, anchor_type) and self.schema.linked(anchor_type, t)
        ]
        middle = named[0] if named and target and self.schema.linked(named[0], target) else None
        direct = target is not None and self.schema.linked(anchor_type, target)
        if (
            middle is None
            and far
            and not near
            and (target is not None or any(r in whole for r in far))
        ):
            entry = self.schema.entry_type(list(far), anchor_type)
            joined = (
                target is not None
                and entry is not None
                and any(self.schema.joins(r, entry, target) for r in far)
            )
            if entry is not None and (joined or not direct):
                middle = entry
        if middle is None and target is not None:
            chain = self._step_then_target(anchor_type, target, near, relations, claimed)
            if chain is not None:
                step, last = chain
                first = self._first(near, anchor_type, target, claimed, step)
                return (
                    RoutedHop(step, first, self.reader.direction(question, words, first)),
                    RoutedHop(target, last),
                )
        if middle is None and target and not direct:
            middle = self.schema.bridge(anchor_type, target)
        if middle is None:
            direction = self.reader.direction(question, words, near)
            return (RoutedHop(target, near, direction),)
        first = tuple(r for r in near if self.schema.touches(r, middle))
        return (
            RoutedHop(middle, first, self.reader.direction(question, words, first)),
            RoutedHop(target, far, self.reader.direction(question, words, far)),
        )

    def _first(
        self,
        near: Sequence[str],
        anchor_type: str,
        target: str,
        claimed: Collection[str],
        step: str,
    ) -> tuple[str, ...]:
        """The named relations leaving `anchor_type` for `step` that do not reach `target`."""
        return tuple(
            r
            for r in near
            if r not in claimed
            and not self.schema.joins(r, anchor_type, target)
            and self.schema.joins(r, anchor_type, step)
        )

    def _step_then_target(
        self,
        anchor_type: str,
        target: str,
        near: Sequence[str],
        relations: Sequence[str],
        claimed: Collection[str],
    ) -> tuple[str, tuple[str, ...]] | None:
        """A chain of two named relations from `anchor_type` to `target` (see `hops_for`).

        Returns:
            (the intermediate type, the last hop's relations), or None when there is none.
        """
        for relation in near:
            if relation in claimed or self.schema.joins(relation, anchor_type, target):
                continue
            for step in self.schema.other_ends(relation, anchor_type):
                last = tuple(
                    r for r in relations if r != relation and self.schema.joins(r, step, target)
                )
                if last:
                    return step, last
        return None

    def _claimed(
        self, relations: Sequence[str], types: Sequence[str], own: int, target: str | None
    ) -> frozenset[str]:
        """Named relations joining another anchor's type to the answer type (that anchor's)."""
        if target is None:
            return frozenset()
        others = [t for i, t in enumerate(types) if i != own]
        return frozenset(r for r in relations for t in others if self.schema.joins(r, t, target))

    def one_chain(
        self,
        walks: dict[str, tuple[RoutedHop, ...]],
        types: dict[str, str],
        target: str | None,
        relations: list[str],
    ) -> dict[str, tuple[RoutedHop, ...]]:
        """One chain per question: the other anchors constrain the target directly.

        The relation the question names is walked once. When an anchor walks it in one hop,
        no other anchor walks it; else, of the anchors that would walk two hops, only the
        one whose type fans out least into the first step keeps the chain (a brand's few
        products, not a category's hundreds). The others, of another type linked to the
        target type directly, walk one hop to it instead, so the target is reached from all
        (their agreement is the question's intersection).
        """
        chained = [var for var, walk in walks.items() if len(walk) > 1]
        if target is None or len(walks) < 2 or not chained:
            return walks
        walked = [v for v, walk in walks.items() if len(walk) == 1 and walk[0].relations]
        owner = (
            walked[0]
            if walked
            else min(chained, key=lambda v: (self.fan_out(types[v], walks[v][0].node_type), v))
        )
        out = dict(walks)
        for var in chained:
            kind = types[var]
            if var == owner or kind == types[owner] or not self.schema.linked(kind, target):
                continue
            near = tuple(r for r in relations if self.schema.joins(r, kind, target))
            out[var] = (RoutedHop(target, near),)
        return out

    def fan_out(self, source: str, other: str | None) -> float:
        """Edges per `source` node into type `other` (any type when None), from the schema."""
        size = self.type_sizes.get(source, 0)
        links = self.schema.links.get(source, {})
        edges = links.get(other, 0) if other is not None else sum(links.values())
        return edges / size if size else float("inf")

    def rival_score(
        self,
        rule_plan: RulePlan,
        hits: Sequence[ListedNode],
        reached: Collection[str] = (),
        leading: Collection[str] = (),
    ) -> float | None:
        """The best search score of a hit that rivals the anchors as the question's subject.

        A rival is of the answer types, is not an anchor and was not reached, and either the
        whole question's search ranks it first (`leading`: its first `LEADING_HITS` hits of
        the answer types, given only while an anchor is loose, its words mostly used as
        words in the graph's text, or while the relation the question names lies along no
        path walked: the reading of the question is then unconfirmed), or its name shares
        with the words naming an anchor at least half of their weight (words matched by
        stem, weighted by their inverse document frequency, so sharing "other" or
        "unspecified" is not sharing "finger"): a more specific node of the named kind
        (`highball glass` for `glass`), which a question describing it by text would find.
        Any other hit matches only the question's other words, the words the reached nodes
        are ranked by; it does not compete with a path from what was named.

        A named node of the answer types rivals too when the question names no relation
        leaving a named node's type (as `describing_rival`): nothing asks for a walk, and a
        question whose words left are the named node's own text ("Which diagnosis code
        covers ... pancytopenia?", quoting the notes of `Pancytopenia`) is answered by it,
        not by its children.
        """
        anchors = {node.node_id for route in rule_plan.routes for node, _ in route.starts()}
        weighted = [self._weighted_stems(route.words) for route in rule_plan.routes]
        types = set(rule_plan.plan.target.labels)
        unwalked = not self.walks_named(rule_plan)
        scores = []
        for hit in hits:
            if hit.node_id in anchors and unwalked and (not types or hit.type in types):
                if hit.node_id not in reached and hit.score is not None:
                    scores.append(hit.score)
                continue
            if hit.node_id in anchors or hit.node_id in reached or hit.score is None:
                continue
            if types and hit.type not in types:
                continue  # not of the answer types: it cannot be the answer instead
            if hit.node_id in leading:
                scores.append(hit.score)
                continue
            stems = set(self._weighted_stems(hit.name))
            for named in weighted:
                total = sum(named.values())
                shared = sum(weight for stem, weight in named.items() if stem in stems)
                if total and shared >= RIVAL_SHARE * total:
                    scores.append(hit.score)
                    break
        return max(scores, default=None)

    def describing_rival(
        self, rule_plan: RulePlan, hits: Sequence[ListedNode], reached: Collection[str] = ()
    ) -> ListedNode | None:
        """The whole question's first hit, when it rivals the named nodes as its subject.

        Only for a question that names no relation leaving a named node (none at all, or one
        that touches none of their types, as "buy" names `also_buy` between products in
        "Looking to buy a pet carrier ..."): it asks for no walk from them and may be asking
        for a node like them. The rival is the first of `hits` of the answer types, if it is
        neither named nor `reached` and its name or snippet holds at least `RIVAL_SHARE` of an
        anchor's name weight (its text uses the name's words: `kronometer`, "simple stopwatch
        application", for the package `stopwatch`). None otherwise.
        """
        types = set(rule_plan.plan.target.labels)
        if self.walks_named(rule_plan):
            return None
        top = next((hit for hit in hits if not types or hit.type in types), None)
        anchors = {node.node_id for route in rule_plan.routes for node, _ in route.starts()}
        if top is None or top.node_id in anchors or top.node_id in reached:
            return None
        stems = set(self._weighted_stems(f"{top.name} {top.snippet}"))
        for route in rule_plan.routes:
            named = self._weighted_stems(route.words)
            total = sum(named.values())
            if (
                total
                and sum(w for stem, w in named.items() if stem in stems) >= RIVAL_SHARE * total
            ):
                return top
        return None

    def clear_winner(self, rule_plan: RulePlan, hits: Sequence[ListedNode]) -> bool:
        """Whether the whole question's search has a clear winner that answers it.

        For a question that names no relation leaving a named node (it asks for no walk):
        its first hit is of the answer types, is no node the question names (of any type)
        and scores at least `CLEAR_LEAD` times the next hit. It matches the question
        clearly better than anything else in the graph, reached or not ("how do i make big
        ASCII banners out of normal text": `figlet`, whatever `make` and the section `text`
        agree on).
        """
        if self.walks_named(rule_plan) or not hits or hits[0].score is None:
            first, types = None, set()
        else:
            first, types = hits[0], set(rule_plan.plan.target.labels)
        anchors = {node.node_id for route in rule_plan.routes for node, _ in route.starts()}
        if (
            first is None
            or (types and first.type not in types)
            or first.node_id in anchors
            or first.node_id in rule_plan.named
        ):
            return False
        return len(hits) < 2 or CLEAR_LEAD * (hits[1].score or 0.0) <= (first.score or 0.0)

    def walks_named(self, rule_plan: RulePlan) -> bool:
        """Whether a relation the question names leaves a named node's type (asks for a walk)."""
        return any(
            self.schema.touches(relation, route.node.type)
            for relation in rule_plan.relations
            for route in rule_plan.routes
        )

    def leading_rivals(
        self, rule_plan: RulePlan, hits: Sequence[ListedNode], reach: Reach
    ) -> list[str]:
        """The whole question's leading hits that rival the walk (`rival_score`'s `leading`).

        Only while the plan's reading is unsure: an anchor is loose (its words mostly used as
        words in the graph's text), unless the search's own top hit is a node named with
        confidence (the question is about it); or the relation the question names lies along
        no path the walks took. Otherwise none.
        """
        leading = self.leading(rule_plan, hits)
        sure = {n.node_id for r in rule_plan.routes if not r.loose for n, _ in r.starts()}
        named_top = bool(leading) and leading[0] in sure
        unconfirmed = bool(rule_plan.relations) and not any(
            node.on_path for node in reach.nodes.values()
        )
        return leading if (rule_plan.loose and not named_top) or unconfirmed else []

    def leading(self, rule_plan: RulePlan, hits: Sequence[ListedNode]) -> list[str]:
        """The whole question's first `LEADING_HITS` search hits of the plan's answer types."""
        types = set(rule_plan.plan.target.labels)
        return [hit.node_id for hit in hits if not types or hit.type in types][:LEADING_HITS]

    def _weighted_stems(self, text: str) -> dict[str, float]:
        """The stems of `text`'s content words, each with its word's idf (1.0 without stats)."""
        spans = [
            (text[start:end], stem)
            for start, end, stem in self.reader.stemmer.word_spans(text)
            if end - start >= MIN_CONTENT_CHARS
        ]
        if self.vocabulary is None:
            return {stem: 1.0 for _, stem in spans}
        tokens = [(self.reader.analyzer.tokenize(word) or [""])[0] for word, _ in spans]
        weights = self.vocabulary.idf(tokens)
        return {stem: weight for (_, stem), weight in zip(spans, weights, strict=True)}

    def relation_end(self, anchor_types: Sequence[str], relations: Collection[str]) -> str | None:
        """The one type the relations named whole lead to from the named nodes' types.

        A question that names no answer type but a relation ("What symptom of X can Y cause
        as a side effect?") asks for what lies at the relation's other end (`side_effect`
        leads a drug to phenotypes); None when the ends disagree or are no candidate type.
        """
        ends = {
            end
            for anchor_type in anchor_types
            for relation in relations
            if self.schema.touches(relation, anchor_type)
            for end in self.schema.other_ends(relation, anchor_type)
        }
        if len(ends) != 1:
            return None
        end = next(iter(ends))
        return end if not self.candidate_types or end in self.candidate_types else None

    def answer_type(
        self, question: str, anchor_types: Sequence[str] = (), relations: Sequence[str] = ()
    ) -> str | None:
        """The node type the answers should have, if the question or snapshot tells.

        The snapshot's only candidate type; else of the candidate types the question names,
        the first when the question asks for a round trip from a named node's own type
        (`round_trip`), else the one farthest from the named nodes' types over the schema
        (the others lie on the way: "X acts on some genes; what diseases are those genes
        associated with?" walks drug -> gene -> disease), the first named among equals.
        """
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        mentioned = self.reader.mentioned_types(question)
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        if self.round_trip(allowed, anchor_types, relations):
            return allowed[0]
        if len(allowed) > 1 and anchor_types:
            return max(allowed, key=lambda t: self._nearest(anchor_types, t))
        return allowed[0] if allowed else None

    def round_trip(
        self, named: Sequence[str], anchor_types: Sequence[str], relations: Sequence[str]
    ) -> bool:
        """Whether the question asks for nodes of a named node's own type through another.

        The first type it names (`named`, in order) is a named node's own type, it names
        another type too, and every relation it names links that type to one of the others
        and none links it to itself: the relation cannot reach the answers in one hop, so
        they lie across it and back ("What other diseases are caused by the same gene as
        Cenani-Lenz syndactyly syndrome?" walks disease -> gene -> disease along `gene_of`).
        """
        if len(named) < 2 or named[0] not in anchor_types or not relations:
            return False
        own, others = named[0], [t for t in named[1:] if t != named[0]]
        return all(
            any(self.schema.joins(r, own, other) for other in others)
            and not self.schema.joins(r, own, own)
            for r in relations
        )

    def _nearest(self, anchor_types: Sequence[str], node_type: str) -> int:
        """Schema hops from the nearest of `anchor_types` to `node_type` (-1: unlinked)."""
        found = [self.schema.distance(a, node_type) for a in anchor_types]
        return min((d for d in found if d is not None), default=-1)

    def anchors(
        self,
        question: str,
        hits: Sequence[ListedNode] | None,
        names: Sequence[NamedListed] | None,
    ) -> list[tuple[str, ListedNode, float]]:
        """(the question's words, the node they name, its score), at most MAX_ANCHORS.

        One node per mention: its best homonym by the question's text, among those whose type
        a relation the question names touches when there are such; longer mentions first,
        then higher scores, a node named twice once; returned in question order.
        """
        relations = self.reader.label_matches(question).named(MIN_LABEL_MATCH)
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
        chosen: list[str] = []
        for name in sorted(best, key=lambda w: (-len(words(w)), -best[w][1])):
            inner = f" {' '.join(words(name))} "
            if names is None and any(inner in f" {' '.join(words(o))} " for o in chosen):
                continue  # a hit's name inside a longer one chosen is not another mention
            if any(best[o][0].node_id == best[name][0].node_id for o in chosen):
                continue  # named twice ("Can you ... that can"): one anchor
            chosen.append(name)  # (the name index's mentions never overlap)
        chosen = chosen[:MAX_ANCHORS]
        position = {w: question.lower().find(w.lower()) for w in chosen}
        return [(w, *best[w]) for w in sorted(chosen, key=position.__getitem__)]


def written_as(words_: str, name: str) -> bool:
    """Whether `words_` are the node name `name` as written.

    Case, punctuation and the name's parenthesised disambiguator aside.
    """
    parts = split_disambiguator(name)
    forms = [name_words(name), *([name_words(parts[0])] if parts else [])]
    return name_words(words_) in forms


def _blanked(question: str, names: Sequence[str]) -> str:
    """`question` with the first occurrence of each name (case aside) blanked out."""
    lowered = question.lower()
    for name in names:
        at = lowered.find(name.lower())
        if at >= 0:
            question = question[:at] + " " * len(name) + question[at + len(name) :]
    return question


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
