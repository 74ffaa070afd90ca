"""The answer type of a planned question: from the types it names, else the relations' end.

What the offline planner (tools/plans/rule_planner.py) asks of the schema about the answers:
which type the question names for them (the farthest from the named nodes' types over the
schema, or a named node's own type across a relation and back), the one type the named
relations lead to, and whether a walk along the named relations can end at a type at all.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader


@dataclass(frozen=True)
class AnswerTypes:
    """The schema's answers to the planner's questions about answer types.

    Attributes:
        reader: The question reader (which types a question names).
        schema: The snapshot's relation signatures as type-to-type paths.
        candidate_types: The snapshot's candidate answer types (empty: every type).
    """

    reader: QuestionReader
    schema: SchemaPaths
    candidate_types: tuple[str, ...]

    def answer_type(
        self, question: str, anchor_types: Sequence[str] = (), relations: Sequence[str] = ()
    ) -> str | None:
        """The node type the answers should have, if the question or snapshot tells.

        The snapshot's only candidate type; else, of the candidate types the question names:
        - a type written right after "same" is shared, not asked for (`shared_types`); a
          question naming a relation, a shared type and no other asks for the named node's
          own type, across the shared node and back ("What other disorders are caused by
          that same gene?");
        - of several, the one its wh-phrase names (`asked_type`: "Eyelid apraxia shows up
          in several diseases. Which genes cause those diseases?");
        - else the first, when the question asks for a round trip from a named node's own
          type (`round_trip`);
        - else the one farthest from the named nodes' types over the schema (the others
          lie on the way: "X acts on some genes; what diseases are those genes associated
          with?" walks drug -> gene -> disease), the first named among equals.
        """
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        shared, question = self.reader.shared_types(question)
        mentioned = [t for t in self.reader.mentioned_types(question) if t not in shared]
        if shared and relations and anchor_types:
            mentioned = mentioned or [anchor_types[0]]  # across the shared node and back
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        asked = self.reader.asked_type(question)
        if len(allowed) > 1 and asked in allowed:
            return asked
        if self.round_trip(allowed, anchor_types, relations):
            return allowed[0]
        if len(allowed) > 1 and anchor_types:
            return max(allowed, key=lambda t: self._nearest(anchor_types, t))
        return allowed[0] if allowed else None

    def beyond_phrase(
        self, question: str, target: str, relations: Collection[str], objects: Sequence[int]
    ) -> str:
        """The answer type when a relation phrase is written about the named type `target`.

        "the features of the diseases that ENAM mutations cause": the phrase ("features of")
        is about the type `disease` (its words at one of `objects`, where the phrases' objects
        begin), so the relation starts there and the answers lie at its other end (the
        phenotypes). `target` otherwise.
        """
        about = {
            named
            for at in objects
            for named in self.reader.mentioned_types(
                question[at : self.reader.type_run(question, at, skip_function_words=False)]
            )
        }
        end = self.relation_end([target], relations) if target in about else None
        return end if end is not None else target

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

    def reaches(self, anchor_types: Sequence[str], relations: Sequence[str], target: str) -> bool:
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
        ("Which other diseases are caused by a gene of Cenani-Lenz syndactyly
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
