"""The offline planner (`-m rules`): a plan from the question, its search hits and the schema.

The one place where the rule policy's relational logic lives. The rule agent replays the
plan through the tools (agent/models/rules/), the plan executor runs it directly
(tools/plans/execute.py); both feed it the hits of the same first search.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from graphs.snapshot.names import split_disambiguator
from tools.listing_parse import ListedNode, NamedListed
from tools.plans.model import TARGET_VAR, GraphPlan, PlanAnchor, PlanHop, PlanTarget
from tools.plans.rivals import Rivals
from tools.plans.rule_plan import Route, RoutedHop, RulePlan
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import (
    PhraseUses,
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
MIN_LABEL_MATCH = 0.5
"""A relation is named when its label's words, weighted by how few labels hold each, are
at least this share present in the question."""


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
            manifest.analyzer, manifest.node_types, manifest.relations, manifest.relation_phrases
        )
        self.schema = SchemaPaths.from_signatures(manifest.signatures)
        self.candidate_types = list(manifest.candidate_types)
        self.type_sizes = dict(manifest.node_types)
        self.rivals = Rivals(self.reader, self.schema, vocabulary)
        """What judges the plan's walks against the question's search hits."""

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
        # type and relation words inside a name name nothing ("Carrovich disease"), nor its
        # own type's word beside it ("the LRP4 gene"), unless the name is loose: used as
        # words, they may name the schema ("the parts of a house")
        anchor_types = [node.type for _, node, _ in mentions]
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
        phrases = None if relations else self._phrases(question, mentions, loose)
        if phrases is not None and phrases.relations:
            # the phrase's words name the relation ("kinds of glass"), not a node; when it
            # is written about a name, that name is what the question asks about
            mentions = [m for m in mentions if not phrases.words_only(self.reader, m[0])]
            about = [m for m in mentions if phrases.about(question, m[0])]
            mentions = about or mentions
            if not mentions:
                return self.text_plan(question)
            relations = list(phrases.relations)
            anchor_types = [node.type for _, node, _ in mentions]
        target = self.answer_type(unnamed, anchor_types, relations)
        whole = frozenset(labels.named(1.0))
        if target is None:
            target = self.relation_end(anchor_types, whole)
        elif relations and not self._reaches(anchor_types, relations, target):
            # the type word says something else ("clinical features": the relation's
            # phenotypes, not the type `clinical_course` no named relation leads to)
            target = self.relation_end(anchor_types, relations) or target
        relevance = self.reader.schema_free(
            self.reader.residual(question, [words for words, _, _ in mentions], self.vocabulary),
            relations,
            phrases,
        )
        walks = {
            f"A{number}": self.hops_for(
                node.type,
                target,
                relations,
                question,
                named,
                claimed=self._claimed(relations, anchor_types, number - 1, target),
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
                    loose=named in loose and (not relations or phrases is not None),
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
        return RulePlan(plan, tuple(routes), tuple(relations), named_ids=named_ids)

    def _phrases(
        self,
        question: str,
        mentions: Sequence[tuple[str, ListedNode, float]],
        loose: Collection[str],
    ) -> PhraseUses:
        """The relation phrases the question writes outside the names it holds.

        A mention that is only a phrase's words ("kinds" in "kinds of glass", linked to
        `kind (category)`) is read as the phrase; the words of other names say nothing of
        the schema ("Kind of Blue" names an album).
        """
        written = self.reader.phrase_uses(question)
        names = [
            self.reader.apposition(question, named, node.type)
            for named, node, _ in mentions
            if named not in loose and not written.words_only(self.reader, named)
        ]
        return self.reader.phrase_uses(_blanked(question, names))

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

    def _reaches(self, anchor_types: Sequence[str], relations: Sequence[str], target: str) -> bool:
        """Whether a walk along the named relations can end at `target`.

        It can when a relation touches the target type, or leads a named node's type to a
        type linked to it (a chain: a package's dependencies, then their maintainers).
        """
        return any(self.schema.touches(r, target) for r in relations) or any(
            self.schema.linked(end, target)
            for anchor_type in anchor_types
            for r in relations
            if self.schema.touches(r, anchor_type)
            for end in self.schema.other_ends(r, anchor_type)
        )

    def round_trip(
        self, named: Sequence[str], anchor_types: Sequence[str], relations: Sequence[str]
    ) -> bool:
        """Whether the question asks for nodes of a named node's own type through another.

        The first type it names (`named`, in order) is a named node's own type, it names
        another type too, it names a relation (none named: no round trip), and every
        relation it names links that type to one of the others and none links it to itself:
        the relation cannot reach the answers in one hop, so they lie across it and back
        ("What other diseases are caused by the same gene as Cenani-Lenz syndactyly
        syndrome?" walks disease -> gene -> disease along `gene_of`).
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


def written_as(mention: str, name: str) -> bool:
    """Whether the question's words `mention` are the node name `name` as written.

    Case, punctuation and the name's parenthesised disambiguator aside.
    """
    parts = split_disambiguator(name)
    forms = [words(name), *([words(parts[0])] if parts else [])]
    return words(mention) in forms


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
