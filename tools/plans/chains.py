"""Chains of two relations a question writes in order, read without the types' help.

In a graph whose relations link nodes of the same kinds (WordNet's synsets: `hypernym`,
`part_holonym`, `entails` between nouns or verbs alike), the schema cannot say that a question
asks for two hops: the types of the ends are the same. The question says it by naming two
relations, each once ("A car door is part of something. What is that something a type of?":
`part_holonym`, then `hypernym`). A use is a word naming one relation: a relation phrase the
graph's texts write before "of" (graphs/snapshot/phrases.py: "type of", "part of"), or else a
word that alone names a relation label (`QuestionReader.label_matches`: "entails", "parts").

English nests "of" phrases from the named node outward ("the kinds of [the parts of [a
bird]]"), and chains sentences from it onward ("X is part of something; that something is a
type of what?"): either way the use nearest the named node is walked first. Its direction is
read as for one hop (the named node as the phrase's object after "of" turns the phrase's own
direction around, tools/plans/vocabulary.py). The far use is written about the intermediate
nodes: in its own direction when the chain runs onward, turned around when it nests ("the
kinds of the parts of a bird": the kinds *of* the parts, their hyponyms).

Only a question that names exactly two uses and a node whose type the first relation touches
is read this way, and, when it names an answer type, only within that type: two different
relations that each link the named node's type to itself ("the dependencies of the packages
that bbdb3 recommends": `recommends`, then `depends`, packages throughout), and the question
naming no other node with confidence (loose names and function words aside). A type's word is
no use ("the phenotype ontology" is not `has_phenotype`), nor a phrase word right after a
wh-word ("What kind of thing is a car door part of?" asks for a thing). Two relation words
coordinated ("both provide and conflict with X") link one pair of nodes, and another name the
chain would walk past is met, not passed ("kinds of room that are part of a dwelling"): an
intersection. Anything else is left to the one-hop and typed readings (tools/plans/routes.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tools.plans.anchors import MIN_LABEL_MATCH, function_only
from tools.plans.rule_plan import RoutedHop
from tools.plans.schema_paths import SchemaPaths
from tools.plans.type_words import WH, written_at, written_spans
from tools.plans.vocabulary import PhraseUses, QuestionReader
from tools.plans.vocabulary import words as word_list

Direction = Literal["out", "in"]
CONJUNCTIONS = frozenset({"and", "or", "nor"})
"""The coordinating conjunctions that join two relation words into one pair (`coordinated`)."""
SENTENCE_END = re.compile(r"[.?!;]")
"""A mark no coordination crosses (`coordinated`)."""
WH_BEFORE = re.compile(WH.pattern + r"\s+$", re.IGNORECASE)
"""A wh-word right before a phrase word: "what kind of thing" asks for a thing (`uses`)."""


@dataclass(frozen=True)
class Use:
    """One word of the question that names one relation.

    Attributes:
        start: Its offset in the question.
        end: Offset after it.
        stem: Its stem.
        relation: The relation it names.
        own: The direction the word gives the relation for the node written before it (its
            subject): a phrase's direction in the graph's texts; "out" for a label's word.
        about: Where the words after its "of" begin (None: not written before "of").
    """

    start: int
    end: int
    stem: str
    relation: str
    own: Direction
    about: int | None = None


@dataclass(frozen=True)
class Chain:
    """A two-hop walk read from the order of two relation uses.

    Attributes:
        words: The question's words naming the node walked from.
        hops: The hop along the near use's relation, then along the far one's.
        relations: The two relations, near first (once each).
        uses: The two uses as relation phrases (their words name the schema, not the answers).
    """

    words: str
    hops: tuple[RoutedHop, RoutedHop]
    relations: tuple[str, ...]
    uses: PhraseUses


@dataclass(frozen=True)
class ChainReader:
    """Reads a chain of two relations from a question (see the module doc).

    Attributes:
        reader: The snapshot's question reader (labels, phrases, stems).
        schema: The snapshot's relation signatures.
    """

    reader: QuestionReader
    schema: SchemaPaths

    def uses(self, question: str) -> list[Use]:
        """Every word of `question` that names one relation, in question order."""
        phrases = self.reader.phrase_uses(question)
        before_of = dict(zip(phrases.places, phrases.objects, strict=True))
        found = []
        for start, end, stem in self.reader.stemmer.word_spans(question):
            if stem in self.reader.type_stems:
                continue  # "the phenotype ontology": a type's word, not `has_phenotype`
            about = before_of.get((start, stem))
            named = self.reader.label_matches(question[start:end]).named(MIN_LABEL_MATCH)
            if len(named) == 1:
                found.append(Use(start, end, stem, named[0], "out", about))
                continue
            if about is None or WH_BEFORE.search(question[:start]):
                continue  # "What kind of thing is X part of?": the wh-phrase, not `hypernym`
            holders = self.reader.phrase_holders.get(stem, ())
            if len(holders) == 1:
                own = self.reader.phrases[holders[0]][stem]
                found.append(Use(start, end, stem, holders[0], _direction(own), about))
        return found

    def chain(
        self,
        question: str,
        anchors: Sequence[tuple[str, str]],
        names: Sequence[tuple[str, bool]],
        answer_type: str | None,
    ) -> Chain | None:
        """The chain the question writes from one of its anchors, if it writes one.

        Args:
            question: The question.
            anchors: (words, node type) of each name the plan would walk from (not loose).
            names: (words, loose) of every name the question writes.
            answer_type: The type the question names for its answers (None: none); the
                chain then stays within it (see the module doc).
        """
        written = [(w, lo, written_at(question, w)) for w, lo in names]
        written = [(w, lo, at) for w, lo, at in written if at >= 0]
        inside = [span for w, _ in anchors for span in written_spans(question, w)]
        uses = [
            use
            for use in self.uses(question)
            if not any(a <= use.start < b for a, b in inside)  # "depend-x" names a package
        ]
        if len(uses) != 2 or coordinated(question[uses[0].end : uses[1].start]):
            return None  # "pre-depend", "both provide and conflict with X": one pair of nodes
        best = None
        for words, node_type in anchors:
            at = written_at(question, words)
            if at < 0:
                continue
            end = at + len(words)
            near, far = sorted(uses, key=lambda use: _distance(use, at, end))
            if not self.schema.touches(near.relation, node_type):
                continue
            if answer_type is not None and not (
                answer_type == node_type
                and near.relation != far.relation
                and all(self.schema.joins(use.relation, node_type, node_type) for use in uses)
            ):
                continue  # the types tell the walk (tools/plans/routes.py), or one restated
            distance = _distance(near, at, end)
            if best is None or distance < best[0]:
                best = (distance, words, at, near, far)
        if best is None:
            return None
        _, words, at, near, far = best
        onward = far.start > at
        for other, loose, other_at in written:
            overlaps = any(other_at <= use.start < other_at + len(other) for use in uses)
            if other == words or overlaps or function_only(other):
                continue
            if answer_type is not None and not loose:
                return None  # "the packages X depends on that Y recommends": two names met
            if other_at < far.start:
                continue
            if not (onward and loose and other_at == far.about):
                return None  # a name the far use leads to: two names met, not a chain
        first = self._near_direction(question, words, at, near)
        nested = far.start < near.start < at
        second = _turned(far.own) if nested else far.own
        places = tuple((use.start, use.stem) for use in (near, far))
        relations = tuple(dict.fromkeys((near.relation, far.relation)))
        return Chain(
            words,
            (
                RoutedHop(None, (near.relation,), first),
                RoutedHop(answer_type, (far.relation,), second),
            ),
            relations,
            PhraseUses(places, relations),
        )

    def _near_direction(self, question: str, words: str, at: int, near: Use) -> Direction | None:
        """The first hop's direction: the node as the phrase's object, its subject, or by order."""
        if near.about is not None and near.about == at:
            return _turned(near.own)
        if near.start > at:
            return near.own
        return self.reader.direction(question, words, [near.relation])


def coordinated(gap: str) -> bool:
    """Whether two relation words with `gap` between say one pair of nodes, not a chain.

    Written together ("pre-depend": `pre_depends`), or joined by a coordinating conjunction
    with nothing but function words in the same sentence ("both provide and conflict with
    X", "Breaks and Replaces against X": both relations link the answers to X).
    """
    if SENTENCE_END.search(gap):
        return False
    found = word_list(gap)
    return not found or (function_only(gap) and any(word in CONJUNCTIONS for word in found))


def _distance(use: Use, at: int, end: int) -> int:
    """Characters between a use and the name at `at:end`."""
    return use.start - end if use.start >= end else at - use.end


def _direction(value: str) -> Direction:
    return "in" if value == "in" else "out"


def _turned(direction: Direction) -> Direction:
    return "in" if direction == "out" else "out"
