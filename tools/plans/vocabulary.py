"""Reading a question with the snapshot's analyzer and vocabulary: type words, relation words, text.

Words are what the snapshot's BM25 analyzer keeps (graphs/bm25/tokenize.py): the same
stopwords the index drops are dropped here. Type and relation names are matched by their
Snowball stems (tantivy's English stemmer, the ``english-stem`` analyzer), so "cites",
"cited" and "citing" all name a relation `cites`, whatever analyzer the index uses. The
relevance text keeps the words that can rank nodes: with the snapshot's vocabulary
statistics (`TermStats`), words no node holds and words more than half the nodes hold
(BM25 weighs those near zero: "from", "which", "show me") are left out.

Relations are named by their labels' words first. A question whose words name no label may
name one by a phrase the graph's own texts use for it (`Manifest.relation_phrases`,
graphs/snapshot/phrases.py): a phrase word written as the texts write it, before "of"
("kinds of glass", "a goblet is a type of what"). Which side of the phrase the named node
stands on gives the walk's direction, as a label's words do.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from graphs.bm25.tokenize import Tokenizer
from tools.plans.function_words import FUNCTION_WORDS
from tools.plans.type_words import BY, MIN_CONTENT_CHARS, WORD, TypeReader, passive, written_at

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

_OF = re.compile(r"\s+of(?:\s+(?:a|an|the))?\b", re.IGNORECASE)
"""What follows a phrase word where the graph's texts use it (graphs/snapshot/phrases.py)."""


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric words of `text` (stopwords kept)."""
    return [w.lower() for w in WORD.findall(text)]


def blanked(question: str, names: Sequence[str]) -> str:
    """`question` with the first occurrence of each name (case aside) blanked out."""
    for name in names:
        at = written_at(question, name)
        if at >= 0:
            question = question[:at] + " " * len(name) + question[at + len(name) :]
    return question


def find_span(question_tokens: Sequence[str], name_tokens: Sequence[str]) -> int | None:
    """Start of the first occurrence of `name_tokens` as a contiguous run in the question."""
    n = len(name_tokens)
    if n == 0:
        return None
    for start in range(len(question_tokens) - n + 1):
        if list(question_tokens[start : start + n]) == list(name_tokens):
            return start
    return None


MAX_DOC_SHARE = 0.5
"""A word held by more than this share of the nodes ranks nothing (its BM25 idf is near 0)."""


@dataclass(frozen=True)
class TermStats:
    """The snapshot's index vocabulary statistics: how many nodes hold each token.

    Attributes:
        doc_freqs: Token list -> node counts (the BM25 index's `doc_freqs`).
        num_docs: Nodes indexed.
    """

    doc_freqs: Callable[[Sequence[str]], list[int]]
    num_docs: int

    @classmethod
    def of(cls, snapshot: Snapshot) -> TermStats:
        """The statistics of `snapshot`'s BM25 index."""
        return cls(snapshot.index.doc_freqs, snapshot.index.num_docs)

    def idf(self, tokens: Sequence[str]) -> list[float]:
        """log(N / df) of each index token (0 for a token no node holds)."""
        return [
            math.log(self.num_docs / count) if count else 0.0
            for count in self.doc_freqs(list(tokens))
        ]

    def ranks_by(self, tokens: Sequence[str]) -> list[bool]:
        """For each index token: does it occur in some but not most node documents?"""
        limit = MAX_DOC_SHARE * self.num_docs
        return [0 < count <= limit for count in self.doc_freqs(list(tokens))]


@dataclass(frozen=True)
class LabelMatches:
    """Each relation label's match in one question: (weighted share of its words, words held).

    Attributes:
        shares: Relation -> (share, matched words), for the labels the question holds a word of.
    """

    shares: dict[str, tuple[float, int]]

    def named(self, min_share: float) -> list[str]:
        """The best-matching labels whose share is at least `min_share` (none below it).

        Ties go to the label matching more words: `optionally requires` names
        `optionally_requires`, `requires` names `requires`.
        """
        scored = {r: score for r, score in self.shares.items() if score[0] >= min_share}
        if not scored:
            return []
        best = max(scored.values())
        return [relation for relation, score in scored.items() if score == best]


@dataclass(frozen=True)
class PhraseUses:
    """The relation phrases a question writes: "kinds of glass" uses `kind` of `hypernym`.

    Attributes:
        places: (character offset, stem) of each phrase word the question writes before
            "of", for every relation it is a phrase of.
        relations: The relations named: those whose phrases the question uses most.
        objects: Where the words after each phrase's "of" (and an article) begin: what the
            phrase is written about.
    """

    places: tuple[tuple[int, str], ...] = ()
    relations: tuple[str, ...] = ()
    objects: tuple[int, ...] = ()

    def about(self, question: str, words: str) -> bool:
        """Whether the phrase is written about the name `words`: "kinds of glass" of glass."""
        lowered = question.lower()
        return any(lowered.startswith(words.lower(), at) for at in self.objects)

    def words_only(self, reader: QuestionReader, text: str) -> bool:
        """Whether every word of `text` is a phrase word used (so it names no node)."""
        stems = {stem for _, _, stem in reader.stemmer.word_spans(text)}
        return bool(stems) and stems <= {stem for _, stem in self.places}


@dataclass(frozen=True)
class QuestionReader(TypeReader):
    """The snapshot's analyzer and the stems of its type and relation names.

    The type words are read as `TypeReader` reads them (tools/plans/type_words.py).

    Attributes:
        label_weights: Each relation label's stems, each weighted 1 / (labels holding it).
        label_joins: Each relation label's stems of the function words it is written with
            (tools/plans/function_words.py: "from" in `built_from`, "has" in `has_tag`).
        phrases: Each relation's phrase words (stems) and the direction their text's node
            has on its edges (`Manifest.relation_phrases`; empty for an older snapshot).
    """

    label_weights: dict[str, dict[str, float]] = field(default_factory=dict)
    label_joins: Mapping[str, frozenset[str]] = field(default_factory=dict)
    phrases: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    phrase_holders: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each phrase word (stem) -> the relations it is a phrase of (read once per word)."""

    @classmethod
    def build(
        cls,
        analyzer: str,
        node_types: Iterable[str],
        relations: Iterable[str],
        phrases: Mapping[str, Mapping[str, str]] | None = None,
    ) -> QuestionReader:
        """Read the schema's names with the snapshot's analyzer `analyzer`.

        `phrases`: the graph's relation phrases (`Manifest.relation_phrases`), if any.
        """
        stemmer = Tokenizer("english-stem")
        type_words = {t: _stems(stemmer, t) for t in node_types}
        labels = {r: _stems(stemmer, r) for r in relations}
        holders = {
            s: sum(s in own for own in labels.values()) for own in labels.values() for s in own
        }
        weights = {r: {s: 1.0 / holders[s] for s in own} for r, own in labels.items()}
        joins = {r: _stems(stemmer, r, among=FUNCTION_WORDS) for r in labels}
        type_holders: dict[str, int] = {}
        for stems in type_words.values():
            for stem in stems:
                type_holders[stem] = type_holders.get(stem, 0) + 1
        phrases = dict(phrases or {})
        phrase_holders: dict[str, tuple[str, ...]] = {}
        for relation, said in phrases.items():
            for word in said:
                phrase_holders[word] = (*phrase_holders.get(word, ()), relation)
        return cls(
            analyzer=Tokenizer(analyzer),
            stemmer=stemmer,
            type_words=type_words,
            type_holders=type_holders,
            label_weights=weights,
            label_joins=joins,
            phrases=phrases,
            phrase_holders=phrase_holders,
        )

    @cached_property
    def schema_stems(self) -> frozenset[str]:
        """Every stem of the types' names and the relations' labels."""
        return self.type_stems.union(*self.label_weights.values())

    def content_words(self, text: str) -> list[str]:
        """Lower-cased words of `text` that the analyzer keeps and are long enough to mean."""
        return [
            text[start:end].lower()
            for start, end, _ in self.analyzer.word_spans(text)
            if end - start >= MIN_CONTENT_CHARS
        ]

    def label_matches(self, question: str) -> LabelMatches:
        """How much of each relation label the question holds (one pass over the labels).

        A label's words (stemmed) are weighted by how few labels hold each (`has` in every
        `has_*` label weighs little); its match is the weighted share of them in the question.
        A label is not matched by part of it made only of words several types' names share
        (`kind_word`): WordNet's "verb" names its fifteen `verb.*` types' kind, not half of
        `verb_group`; nor by part of it made only of the function words the label is written
        with (`label_joins`), unless they tell it from a label holding its other words
        (`told_apart`): "from" in "read commands from a file" is not half of Debian's
        `built_from`. The whole label still matches.
        """
        stems = {stem for _, _, stem in self.stemmer.word_spans(question)}
        shares: dict[str, tuple[float, int]] = {}
        for relation, weights in self.label_weights.items():
            total = sum(weights.values())
            matched = [stem for stem in weights if stem in stems]
            if not total or not matched:
                continue
            if len(matched) < len(weights) and all(self.kind_word(s) for s in matched):
                continue  # "which verb means...": a kind of word, not half of `verb_group`
            joins = self.label_joins.get(relation, frozenset())
            if (
                len(matched) < len(weights)
                and all(self.kind_word(s) or s in joins for s in matched)
                and not self.told_apart(relation)
            ):
                continue  # "commands from a file": a joining word, not half of `built_from`
            share = sum(weights[stem] for stem in matched) / total
            shares[relation] = (round(share, 6), len(matched))
        return LabelMatches(shares)

    def told_apart(self, relation: str) -> bool:
        """Whether another label holds every other word of `relation`'s label.

        Its function words then tell the two apart (`located_above` and `located_below`):
        "Which organ lies above the liver?" names `located_above` by "above" alone.
        """
        rest = set(self.label_weights.get(relation, ())) - self.label_joins.get(relation, set())
        return bool(rest) and any(
            other != relation and rest <= set(weights)
            for other, weights in self.label_weights.items()
        )

    def phrase_uses(self, question: str) -> PhraseUses:
        """The relation phrases `question` writes before "of", and the relations they name.

        The planner reads them only when no relation label is named (see the module doc); a
        relation is named by the most phrase words used, ties naming each.
        """
        if not self.phrases:
            return PhraseUses()
        places, objects = self._written_before_of(question, self.phrase_holders)
        counts: dict[str, int] = {}
        for _, stem in places:
            for relation in self.phrase_holders[stem]:
                counts[relation] = counts.get(relation, 0) + 1
        best = max(counts.values(), default=0)
        named = tuple(r for r in self.label_weights if best and counts.get(r) == best)
        return PhraseUses(tuple(places), named, tuple(objects))

    def label_uses(self, question: str, relations: Sequence[str]) -> PhraseUses:
        """The words of the named `relations`' labels that `question` writes before "of".

        A label's word used as the graph's texts use a relation phrase ("the antonym of
        curious") is written about the name after it, as a phrase is (`phrase_uses`).
        """
        stems = {stem for relation in relations for stem in self.label_weights.get(relation, {})}
        places, objects = self._written_before_of(question, stems)
        return PhraseUses(tuple(places), tuple(relations), tuple(objects))

    def _written_before_of(
        self, question: str, stems: Collection[str]
    ) -> tuple[list[tuple[int, str]], list[int]]:
        """Where each word of `stems` is written before "of", and what follows.

        Returns:
            (offset, stem) of each such word, and where the words after its "of" (and an
            article) begin.
        """
        places, objects = [], []
        for start, end, stem in self.stemmer.word_spans(question):
            of = _OF.match(question, end)
            if of is not None and stem in stems:
                places.append((start, stem))  # one space after "of": names may be blanked
                objects.append(of.end() + question[of.end() : of.end() + 1].isspace())
        return places, objects

    def direction(
        self, question: str, words: str, relations: Sequence[str]
    ) -> Literal["out", "in"] | None:
        """Which way the named relations leave the anchor named by `words`, if the order says.

        The question is compared with the two ways of writing the path, `anchor relation
        answer` and `answer relation anchor`: when every word of the relations' labels comes
        after the anchor's words, the anchor is the relation's subject (`out`); when every one
        comes before, its object (`in`); otherwise (or no relation) the order says nothing.
        A label's word followed by "by" is read in the passive and votes the other way
        ("cited by X": X cites them), unless a named label holds "by" itself (`maintained_by`
        is written "maintained by X" in the active).
        A question holding no label word is read by the relations' phrases it writes: a
        phrase whose text's node is the edge's target (`in`) turns the reading around.
        """
        if not relations:
            return None
        spans = self.stemmer.word_spans(question)
        at = written_at(question, words)
        if at < 0:
            return None
        label = set().union(*(self.label_weights.get(r, {}) for r in relations))
        outside = [
            (start, end, stem) for start, end, stem in spans if not at <= start < at + len(words)
        ]
        written_by = any("by" in WORD.findall(r.lower()) for r in relations)
        votes = {
            (start > at) != (not written_by and self._passive(question, start, end, at))
            for start, end, stem in outside
            if stem in label
        }
        if not votes:
            phrases = {s: d for r in relations for s, d in self.phrases.get(r, {}).items()}
            used = set(self.phrase_uses(question).places)
            votes = {
                (start > at) == (phrases[stem] == "out")
                for start, _, stem in outside
                if stem in phrases and (start, stem) in used
            }
        if votes == {True}:
            return "out"
        if votes == {False}:
            return "in"
        return None

    @staticmethod
    def _passive(question: str, start: int, end: int, anchor: int) -> bool:
        """Whether the label's word at `start:end` is read in the passive.

        It is when "by" follows it and it is written as a participle ("cited by", "written
        by") or the anchor comes right after "by" ("built by X"); "require by default" is not.
        """
        by = BY.match(question, end)
        if by is None:
            return False
        gap = question[by.end() : anchor]
        return passive(question, start, end) or (anchor >= by.end() and (not gap or gap.isspace()))

    def schema_free(
        self,
        text: str,
        relations: Iterable[str],
        phrases: PhraseUses | None = None,
        words: Collection[str] = (),
    ) -> str:
        """`text` without the words that name a node type or one of `relations` (by stem).

        What the question says through the schema is what the walk follows; the words left
        describe the answers themselves, and they alone rank and judge what the walk reached.
        `phrases`: the relation phrases the question used to name them (their words go too).
        `words`: lower-cased words that stay, being no schema word where the question wrote
        them (`compound_type_words`: "source" in "source control").
        """
        used = {stem for _, stem in phrases.places} if phrases is not None else set()
        schema = set().union(
            self.type_stems, *(self.label_weights.get(r, {}) for r in relations), used
        )
        spans = self.stemmer.word_spans(text)
        return " ".join(
            text[start:end]
            for start, end, stem in spans
            if stem not in schema or text[start:end].lower() in words
        )

    def residual(
        self, question: str, drop_names: Iterable[str], vocabulary: TermStats | None = None
    ) -> str:
        """The question's words that can rank nodes, minus the names `drop_names`, as written.

        A name the question holds as written (case aside) leaves out that one occurrence,
        so its words stay where the question uses them again ("Under Asthma, which entry is
        used for mild asthma?" keeps the second "asthma"); a name it does not hold leaves
        out every occurrence of its words.

        Args:
            question: The question.
            drop_names: The names to leave out (the anchors').
            vocabulary: The snapshot's statistics; without them every analyzer-kept word stays.
        """
        ranges: list[tuple[int, int]] = []
        loose: set[str] = set()
        for name in drop_names:
            at = written_at(question, name)
            if at >= 0:
                ranges.append((at, at + len(name)))
            else:
                loose.update(words(name))
        spans = [
            (start, end, token)
            for start, end, token in self.analyzer.word_spans(question)
            if question[start:end].lower() not in loose
            and not any(a <= start < b for a, b in ranges)
        ]
        if vocabulary is not None and spans:
            keep = vocabulary.ranks_by([token for _, _, token in spans])
            spans = [span for span, kept in zip(spans, keep, strict=True) if kept]
        return " ".join(question[start:end] for start, end, _ in spans)


def _stems(stemmer: Tokenizer, name: str, among: Collection[str] | None = None) -> frozenset[str]:
    """The stems of a schema name's content-length words (those `among`, when given)."""
    text = name.replace("_", " ")
    return frozenset(
        stem
        for start, end, stem in stemmer.word_spans(text)
        if end - start >= MIN_CONTENT_CHARS and (among is None or text[start:end].lower() in among)
    )
