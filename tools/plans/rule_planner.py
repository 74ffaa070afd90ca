"""The offline planner (`-m rules`): a plan from the question, its search hits and the schema.

The one place where the rule policy's relational logic lives. The rule agent replays the
plan through the tools (agent/models/rules/), the plan executor runs it directly
(tools/plans/execute.py); both feed it the hits of the same first search.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tools.listing_parse import ListedNode, NamedListed
from tools.plans.anchors import MIN_LABEL_MATCH, AnchorReader, written_as
from tools.plans.answer_types import AnswerTypes
from tools.plans.chains import ChainReader
from tools.plans.model import TARGET_VAR, GraphPlan, PlanAnchor, PlanHop, PlanTarget
from tools.plans.rivals import LEADING_HITS, Rivals
from tools.plans.routes import RouteWriter
from tools.plans.rule_plan import Route, RoutedHop, RulePlan
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import (
    QuestionReader,
    TermStats,
    blanked,
)

if TYPE_CHECKING:
    from graphs.manifest import Manifest

MAX_HOMONYMS = 3
"""Nodes of one mention walked from (its homonyms of the chosen one's type, best first)."""
FIRST_SEARCH_K = 20
"""Hits of the question's first search the planner reads (the rule agent's first call)."""


class RulePlanner:
    """Writes a `GraphPlan` for a question from the snapshot's names, schema and search hits.

    No wording rule (beyond the language's closed class of function words, a stop list): what
    the question names is read from the graph's own names, relations and types.
    1. Anchors are the nodes the question names (`search`'s "names in the query", the name
       index; tools/mentions.py): each mention's best homonym, the longest and best-named
       mentions first, at most `MAX_ANCHORS` (`AnchorReader`, tools/plans/anchors.py).
       Without that block (the paper toolset), the search hits whose name occurs in the
       question.
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
       relation's words in the question (`QuestionReader.direction`). A question naming
       exactly two relation uses (and no answer type, or one the walk stays within) walks
       them in the order it writes them, from the name nearest them (`ChainReader`,
       tools/plans/chains.py).
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
        self.anchoring = AnchorReader(self.reader, self.schema)
        """Which named nodes the plan walks from (tools/plans/anchors.py)."""
        self.chains = ChainReader(self.reader, self.schema)
        """Two relations a question chains in order (tools/plans/chains.py)."""

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
        mentions = self.anchoring.named(question, hits if names is None else None, names)
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
        phrases = None if relations else self.anchoring.phrases(question, mentions, loose)
        aside: set[tuple[str, str]] = set()  # named, not written about: walked every way
        if phrases is not None and phrases.relations:
            mentions, aside = self.anchoring.phrase_anchors(question, mentions, phrases)
            if not mentions:
                return self.text_plan(question)
            relations = list(phrases.relations)
            anchor_types = [node.type for _, node, _ in mentions]
        elif relations:  # "the antonym of curious": a label's word written as a phrase
            mentions = self.anchoring.label_anchors(question, mentions, relations, loose)
            anchor_types = [node.type for _, node, _ in mentions]
        target = self.answers.answer_type(unnamed, anchor_types, relations)
        whole = frozenset(labels.named(1.0))
        if target is not None and phrases is not None and relations:
            target = self.answers.beyond_phrase(question, target, relations, phrases.objects)
        if target is None:  # a relation named by a mined phrase alone sets no answer type
            target = self.answers.relation_end(anchor_types, whole)
        elif relations and not self.answers.reaches(anchor_types, relations, target):
            # the type word says something else ("clinical features": the relation's
            # phenotypes, not the type `clinical_course` no named relation leads to)
            target = self.answers.relation_end(anchor_types, relations) or target
        written = [row.words for row in names] if names is not None else [m[0] for m in mentions]
        chain = self.chains.chain(
            question,
            [(named, node.type) for named, node, _ in mentions if named not in loose],
            [(words, words in loose) for words in dict.fromkeys(written)],
            target,
        )
        if chain is not None:  # two relations written in order: walked one after the other
            mentions = [mention for mention in mentions if mention[0] == chain.words][:1]
            relations, phrases = list(chain.relations), chain.uses
        relevance = self.reader.schema_free(
            self.reader.residual(question, [words for words, _, _ in mentions], self.vocabulary),
            relations,
            phrases,
            {question[start:end].lower() for start, end in compounds},
        )
        walks: dict[str, tuple[RoutedHop, ...]]
        if chain is not None:
            walks = {"A1": chain.hops}  # the one name the chain starts from
        else:
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
            types = {f"A{n}": node.type for n, (_, node, _) in enumerate(mentions, 1)}
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
        return RulePlan(
            plan, tuple(routes), tuple(relations), named_ids=named_ids, answer_type=target
        )

    def text_plan(self, question: str) -> RulePlan:
        """A plan with no walk: the question as one doc anchor bound to the target."""
        anchor = PlanAnchor(var=TARGET_VAR, text=question, match_mode="doc")
        target = PlanTarget(labels=list(self.candidate_types))
        plan = GraphPlan(anchors=[anchor], target=target, risk_level="no_trade")
        return RulePlan(plan)


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
