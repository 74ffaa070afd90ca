"""The offline planner (`-m rules`): a plan from the question, its search hits and the schema.

The one place where the rule policy's relational logic lives. The rule agent replays the
plan through the tools (agent/models/rules/), the plan executor runs it directly
(tools/plans/execute.py); both feed it the hits of the same first search.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from graphs.snapshot.name_keys import split_disambiguator
from tools.listing_parse import ListedNode, NamedListed
from tools.plans.answer_types import AnswerTypes
from tools.plans.model import TARGET_VAR, GraphPlan, PlanAnchor, PlanHop, PlanTarget
from tools.plans.rivals import LEADING_HITS, Rivals
from tools.plans.routes import RouteWriter
from tools.plans.rule_plan import Route, RoutedHop, RulePlan
from tools.plans.schema_paths import SchemaPaths
from tools.plans.type_words import written_at
from tools.plans.vocabulary import (
    PhraseUses,
    QuestionReader,
    TermStats,
    blanked,
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
       type the relations named whole lead to from the named nodes (`AnswerTypes`,
       tools/plans/answer_types.py). A label's word written before "of" is written about
       the name after it (`QuestionReader.label_uses`: "the antonym of curious
       (inquisitive)"): a name before it that names its node only by its base ("Give" for
       `give (transfer)`) or is loose is no anchor.
    3. Each anchor walks one hop to the target along the named relation that touches its
       type (every relation when none does), or two through an intermediate type when the
       named relation or answer type lies beyond its neighbours' types (`RouteWriter`,
       tools/plans/routes.py). The
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
        self.answers = AnswerTypes(self.reader, self.schema, tuple(self.candidate_types))
        """What the schema says of the answers' type (tools/plans/answer_types.py)."""
        self.routes = RouteWriter(self.reader, self.schema, dict(manifest.node_types))
        """How each named node walks to them (tools/plans/routes.py)."""
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
        unnamed = blanked(
            question,
            [
                self.reader.apposition(question, named, node.type)
                for named, node, _ in mentions
                if named not in loose
            ],
        )
        # a type word in a compound the first hits write ("source control") names no type
        compounds = self.reader.compound_type_words(
            unnamed, [hit.snippet for hit in hits[:LEADING_HITS]]
        )
        for start, end in compounds:
            unnamed = unnamed[:start] + " " * (end - start) + unnamed[end:]
        labels = self.reader.label_matches(unnamed)
        relations = labels.named(MIN_LABEL_MATCH)
        phrases = None if relations else self._phrases(question, mentions, loose)
        aside: set[tuple[str, str]] = set()  # named, not written about: walked every way
        if phrases is not None and phrases.relations:
            mentions, aside = self._phrase_anchors(question, mentions, phrases)
            if not mentions:
                return self.text_plan(question)
            relations = list(phrases.relations)
            anchor_types = [node.type for _, node, _ in mentions]
        elif relations:  # "the antonym of curious": a label's word written as a phrase
            mentions = self._label_anchors(question, mentions, relations, loose)
            anchor_types = [node.type for _, node, _ in mentions]
        target = self.answers.answer_type(unnamed, anchor_types, relations)
        whole = frozenset(labels.named(1.0))
        if target is None:
            target = self.answers.relation_end(anchor_types, whole)
        elif relations and not self.answers.reaches(anchor_types, relations, target):
            # the type word says something else ("clinical features": the relation's
            # phenotypes, not the type `clinical_course` no named relation leads to)
            target = self.answers.relation_end(anchor_types, relations) or target
        relevance = self.reader.schema_free(
            self.reader.residual(question, [words for words, _, _ in mentions], self.vocabulary),
            relations,
            phrases,
            {question[start:end].lower() for start, end in compounds},
        )
        walks = {
            f"A{number}": self.routes.hops_for(
                node.type,
                target,
                [] if (named, node.node_id) in aside else relations,
                question,
                named,
                claimed=self.routes.claimed(relations, anchor_types, number - 1, target),
                whole=whole,
                schema_text=blanked(unnamed, [named]),
            )
            for number, (named, node, _) in enumerate(mentions, start=1)
        }
        types = {f"A{number}": node.type for number, (_, node, _) in enumerate(mentions, 1)}
        walks = self.routes.one_chain(walks, types, target, relations)
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

    def _phrase_anchors(
        self,
        question: str,
        mentions: Sequence[tuple[str, ListedNode, float]],
        phrases: PhraseUses,
    ) -> tuple[list[tuple[str, ListedNode, float]], set[tuple[str, str]]]:
        """The anchors of a question that names its relation by a phrase, and those aside.

        The phrase's words name the relation ("kinds of glass"), not a node. When the phrase
        is written about a name, that name is what the question asks about; a name written
        whole with its disambiguator is named all the same, but the phrase says nothing of
        it: it is aside, (words, node id), walked along every relation.
        """
        kept = [m for m in mentions if not phrases.words_only(self.reader, m[0])]
        about = [m for m in kept if phrases.about(question, m[0])]
        if not about:
            return kept, set()
        kept = [m for m in kept if m in about or qualified(m[0])]
        return kept, {(m[0], m[1].node_id) for m in kept if m not in about}

    def _label_anchors(
        self,
        question: str,
        mentions: Sequence[tuple[str, ListedNode, float]],
        relations: Sequence[str],
        loose: Collection[str],
    ) -> list[tuple[str, ListedNode, float]]:
        """The anchors of a question that writes a named label's word before "of".

        "Give me the antonym of curious (inquisitive)": the label's word is written about the
        name after "of" (`QuestionReader.label_uses`). A name written before the phrase word
        that names its node only by its base ("Give" for `give (transfer)`) or is loose is
        then no anchor; a name written whole, and any name after the phrase word ("Which
        parts of a knife (edge tool) are blades?"), stays.
        """
        used = self.reader.label_uses(question, relations)
        if not any(used.about(question, named) for named, _, _ in mentions):
            return list(mentions)
        phrase_at = min(at for at, _ in used.places)

        def kept(named: str, node: ListedNode) -> bool:
            whole = split_disambiguator(node.name) is None and named not in loose
            return (
                whole
                or qualified(named)
                or used.about(question, named)
                or written_at(question, named) > phrase_at
            )

        return [mention for mention in mentions if kept(mention[0], mention[1])]

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
        return self.reader.phrase_uses(blanked(question, names))

    def text_plan(self, question: str) -> RulePlan:
        """A plan with no walk: the question as one doc anchor bound to the target."""
        anchor = PlanAnchor(var=TARGET_VAR, text=question, match_mode="doc")
        target = PlanTarget(labels=list(self.candidate_types))
        plan = GraphPlan(anchors=[anchor], target=target, risk_level="no_trade")
        return RulePlan(plan)

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
        position = {w: written_at(question, w) for w in chosen}
        return [(w, *best[w]) for w in sorted(chosen, key=position.__getitem__)]


def written_as(mention: str, name: str) -> bool:
    """Whether the question's words `mention` are the node name `name` as written.

    Case, punctuation and the name's parenthesised disambiguator aside.
    """
    parts = split_disambiguator(name)
    forms = [words(name), *([words(parts[0])] if parts else [])]
    return words(mention) in forms


def qualified(written: str) -> bool:
    """Whether a name is written whole with its parenthesised disambiguator.

    "football (field game)" names the node; the question cannot have meant it as words.
    """
    return split_disambiguator(written) is not None


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
