"""Which named nodes anchor a question's plan: the mentions kept, and those a phrase sets aside.

The offline planner (tools/plans/rule_planner.py) walks from these anchors. A mention is
(the question's words, the node they name, its score). One node per mention, at most
`MAX_ANCHORS`, in question order; a relation phrase ("kinds of glass") or a label's word
written before "of" ("the antonym of curious") says which names the question is about; a
mention made only of function words ("through", "what") is no anchor beside a name written
with confidence.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from graphs.snapshot.name_keys import split_disambiguator
from tools.listing_parse import ListedNode, NamedListed
from tools.plans.function_words import FUNCTION_WORDS
from tools.plans.schema_paths import SchemaPaths
from tools.plans.type_words import CLAUSE_MARK, WORD, written_at
from tools.plans.vocabulary import PhraseUses, QuestionReader, blanked, find_span, words

MAX_ANCHORS = 3
"""Mentions expanded (the longest and best-named first)."""
MIN_LABEL_MATCH = 0.5
"""A relation is named when its label's words, weighted by how few labels hold each, are
at least this share present in the question."""

Mention = tuple[str, ListedNode, float]
"""(the question's words, the node they name, its score)."""


@dataclass(frozen=True)
class AnchorReader:
    """Reads a question's anchors from its search's names (or hits) and the schema.

    Attributes:
        reader: The snapshot's question reader.
        schema: The snapshot's relation signatures (which relations touch which types).
    """

    reader: QuestionReader
    schema: SchemaPaths

    def named(
        self,
        question: str,
        hits: Sequence[ListedNode] | None,
        names: Sequence[NamedListed] | None,
    ) -> list[Mention]:
        """(the question's words, the node they name, its score), at most MAX_ANCHORS.

        One node per mention: its best homonym by the question's text, among those whose type
        a relation the question names touches when there are such; longer mentions first,
        then higher scores, a node named twice once, function words giving way to names
        (`capped`); returned in question order.
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
        chosen = self.capped(chosen, {row.words for row in names or () if row.loose})
        position = {w: written_at(question, w) for w in chosen}
        return [(w, *best[w]) for w in sorted(chosen, key=position.__getitem__)]

    @staticmethod
    def capped(chosen: Sequence[str], loose: Collection[str]) -> list[str]:
        """The first `MAX_ANCHORS` of `chosen` (best first), function words giving way.

        A mention made only of function words (tools/plans/function_words.py: `through
        (direct)` and `both` are WordNet nodes, `what` a function of Python's imghdr) gives
        its place, the last such first, to the best mention the cap leaves out that is named
        with confidence: neither loose nor function words only ("List every country that the
        Danube flows through": `country`, not `through`); and beside a kept mention named
        with confidence it is no anchor at all ("What functions does the json module
        define?" walks from json alone). Only when every other mention is loose does it keep
        its place: the question may use either as words.
        """
        kept, rest = list(chosen[:MAX_ANCHORS]), chosen[MAX_ANCHORS:]
        sure = [w for w in rest if w not in loose and not function_only(w)]
        for at in reversed(range(len(kept))):
            if sure and function_only(kept[at]):
                kept[at] = sure.pop(0)
        if any(w not in loose and not function_only(w) for w in kept):
            kept = [w for w in kept if not function_only(w)]
        return kept

    def phrase_anchors(
        self,
        question: str,
        mentions: Sequence[Mention],
        phrases: PhraseUses,
    ) -> tuple[list[Mention], set[tuple[str, str]]]:
        """The anchors of a question that names its relation by a phrase, and those aside.

        The phrase's words name the relation ("kinds of glass"), not a node. When the phrase
        is written about a name, that name is what the question asks about; a name written
        whole with its disambiguator is named all the same, but the phrase says nothing of
        it: it is aside, (words, node id), walked along every relation. So is every name when
        the phrase is written about other words, which no name holds ("which of them are
        forms of neurofibromatosis?" asks what of Cafe-au-lait spot's neighbours the text
        calls so, not for the phenotype's `is_a`); not when it is written about nothing ("What
        is a goblet a kind of?").
        """
        kept = [m for m in mentions if not phrases.words_only(self.reader, m[0])]
        about = [m for m in kept if phrases.about(question, m[0])]
        if not about and any(
            self._about_other_words(question, at, [m[0] for m in kept]) for at in phrases.objects
        ):  # "forms of neurofibromatosis"
            return kept, {(m[0], m[1].node_id) for m in kept}
        if not about:
            return kept, set()
        kept = [m for m in kept if m in about or qualified(m[0])]
        return kept, {(m[0], m[1].node_id) for m in kept if m not in about}

    def _about_other_words(self, question: str, at: int, names: Sequence[str]) -> bool:
        """Whether the phrase object at `at` is words that neither a name nor a type holds.

        The object is read as written, from its first word (after an article) up to the next
        mark or function word. It is about a name written there ("kinds of tall glass
        (container)"), about a type when a type's words begin it ("features of the
        diseases", which `AnswerTypes.beyond_phrase` reads), and about nothing named when
        a function word begins it ("a more specific kind of which symptom?") or none follows.
        """
        first = WORD.search(question, at)
        if (
            first is None
            or first.group().lower() in FUNCTION_WORDS
            or CLAUSE_MARK.search(question, at, first.start())
        ):
            return False  # "a kind of which symptom?", "a kind of?": about nothing named
        start = first.start()
        if self.reader.type_run(question, start, skip_function_words=False) > start:
            return False
        stop = CLAUSE_MARK.search(question, start)
        end = stop.start() if stop else len(question)
        closing = next(
            (w for w in WORD.finditer(question, start, end) if w.group().lower() in FUNCTION_WORDS),
            None,
        )
        end = closing.start() if closing else end
        return not any(start <= written_at(question, name) < end for name in names)

    def label_anchors(
        self,
        question: str,
        mentions: Sequence[Mention],
        relations: Sequence[str],
        loose: Collection[str],
    ) -> list[Mention]:
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

    def phrases(
        self,
        question: str,
        mentions: Sequence[Mention],
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


def function_only(written: str) -> bool:
    """Whether `written` has words and every one is a function word ("through", "both")."""
    found = words(written)
    return bool(found) and all(word in FUNCTION_WORDS for word in found)
