"""The offline reader: a span of the type the question asks for, chosen from the evidence.

One reader serves every method, so offline methods differ only in the evidence they hand it
(SARG: the chains' sources first, weighted by the chain's score; Standard RAG: the top
passages in retrieval order). It has no model and no list of question phrasings:

1. **What is asked** (`AskedFor`) comes from the question's parse: an auxiliary verb first
   asks yes / no; two options joined by "or" (or "between A and B") ask for a choice; the
   wh-word names the entity labels that fit (who: a person; where: a place; when: a date;
   how many / how much / how + adjective: a number or quantity); "what / which NOUN" takes
   the labels whose glossary (spaCy's own `spacy.explain`) the encoder puts nearest the noun.
2. **Candidates** are the named entities of the evidence (spaCy's NER) and its proper-noun
   runs, never a span the question already names (the bridge is not the answer).
3. **Score**: how much of the question's other words (weighted by their rarity in this
   evidence) the candidate's sentence holds, how close they stand to it, whether the
   question's noun ("which *airport*") stands in that sentence, the label's fit to what is
   asked, and the evidence's own weight; summed over the passages a candidate recurs in
   with a diminishing return.

A yes / no question is answered "yes" (HotpotQA's more frequent answer; the reader cannot
check a claim), a choice by the option the evidence supports best.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from answer.encoding import Embedder

ENTITY_LABELS = (
    "PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
    "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL",
)  # fmt: skip
"""spaCy's OntoNotes entity labels (en_core_web_sm)."""

NUMBER_LABELS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
WH_LABELS: dict[str, frozenset[str]] = {
    "who": frozenset({"PERSON"}),
    "whom": frozenset({"PERSON"}),
    "whose": frozenset({"PERSON"}),
    "where": PLACE_LABELS,
    "when": frozenset({"DATE", "TIME"}),
}
"""The wh-words that name a kind of answer by themselves (English's closed class)."""

GLOSSARY_MARGIN = 0.04
"""Labels within this cosine of the best glossary match also fit a "which NOUN" question."""

IS_A = 1.0
"""Score for a candidate the evidence calls a NOUN ("X is a magazine", "Gatwick Airport")."""

YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
WORD = re.compile(r"\w+")


class AnswerKind(StrEnum):
    """What a question asks for, as the reader sees it."""

    yesno = "yesno"
    choice = "choice"
    typed = "typed"  # entities with the labels in AskedFor.labels
    open = "open"  # any entity or proper noun


@dataclass(frozen=True)
class AskedFor:
    """What a question asks for.

    Attributes:
        kind: yes / no, a choice between options, a typed entity, or anything.
        labels: Entity labels that fit (typed questions); empty otherwise.
        noun: The noun the wh-word asks about ("which *airport*", "how many *members*").
        options: The options of a choice question, in the question's order.
        strict: Only candidates with a fitting label are answers (dates and numbers).
    """

    kind: AnswerKind
    labels: frozenset[str] = frozenset()
    noun: str = ""
    options: tuple[str, ...] = ()
    strict: bool = False


@dataclass(frozen=True)
class EvidenceText:
    """One text the answer may come from, with its weight (rank prior or chain score).

    Attributes:
        name: A typed KG node's own name: a candidate answer itself ("" for passages).
        kind: The node's type; a "which NOUN" question whose noun names it fits it.
    """

    id: str
    text: str
    weight: float
    name: str = ""
    kind: str = ""


@dataclass(frozen=True)
class Reading:
    """The reader's answer and why.

    Attributes:
        answer: The answer span ("" when the evidence holds no candidate).
        asked: What the question was read as asking for.
        source: Id of the evidence the answer was read from ("" for yes / no).
        score: The answer's score (0 for yes / no).
        candidates: The best few candidates with their scores, best first.
    """

    answer: str
    asked: AskedFor
    source: str = ""
    score: float = 0.0
    candidates: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class _Candidate:
    text: str
    label: str
    best: float = 0.0
    source: str = ""
    passages: dict[str, float] = field(default_factory=dict)


class Reader:
    """Reads an answer span from evidence texts with spaCy's parser and NER and an encoder."""

    def __init__(self, nlp: Any, encoder: Embedder) -> None:
        """Keep the pipeline and encode spaCy's label glossary once.

        Args:
            nlp: A spaCy pipeline with a parser and NER (en_core_web_sm).
            encoder: The sentence encoder (types "which NOUN" by spaCy's label glossary).
        """
        import spacy

        self.nlp = nlp
        self.encoder = encoder
        glossary = [spacy.explain(label) or label for label in ENTITY_LABELS]
        self._glossary = encoder.encode(glossary)

    def asked_for(self, question: str) -> AskedFor:
        """What `question` asks for (see the module docstring)."""
        return self._asked(self.nlp(question))

    def read(self, question: str, evidence: Sequence[EvidenceText]) -> Reading:
        """The best-supported span of the asked-for type in `evidence`."""
        doc = self.nlp(question)
        asked = self._asked(doc)
        if asked.kind is AnswerKind.yesno:
            return Reading("yes", asked)
        words = _content_words(doc)
        named = {_norm(span) for span in [*doc.ents, *doc.noun_chunks]} | {
            _norm(t.text) for t in doc if t.pos_ == "PROPN"
        }
        docs = list(self.nlp.pipe([item.text for item in evidence]))
        idf = _rarity(words, [sent for d in docs for sent in d.sents])
        found: dict[str, _Candidate] = {}
        for item, passage in zip(evidence, docs, strict=True):
            own = _norm(item.name)
            if own and own not in named and not _inside_question(own, named):
                score = _named_fit(item.kind, asked) + _held(passage, words, idf) + item.weight
                self._keep(found, own, item.name, item.kind, item.id, score)
            for sent in passage.sents:
                for span, label in _spans(sent):
                    key = _candidate_key(span, asked, named)
                    fit = _fit(label, asked) if key is not None else None
                    if key is None or fit is None:
                        continue
                    score = fit + _support(span, sent, words, idf, asked.noun) + item.weight
                    if asked.noun and _is_a(span, asked.noun):
                        score += IS_A
                    self._keep(found, key, _answer_text(span, asked), label, item.id, score)
        return self._best(asked, found)

    def _asked(self, doc: Any) -> AskedFor:
        options = _options(doc)
        if options:
            return AskedFor(AnswerKind.choice, options=options)
        wh = next((t for t in doc if _interrogative(t)), None)
        first = next((t for t in doc if not t.is_punct and not t.is_space), None)
        if (wh is None and first is not None and first.pos_ == "AUX") or _do_question(first):
            return AskedFor(AnswerKind.yesno)
        if wh is None:
            return AskedFor(AnswerKind.open)
        word = wh.lower_
        following = doc[wh.i + 1] if wh.i + 1 < len(doc) else None
        if word == "how" and following is not None and following.pos_ in ("ADJ", "ADV"):
            noun = _noun_after(following)
            counted = following.lower_ in ("many", "much")  # a count, not an age or a length
            labels = NUMBER_LABELS if counted else NUMBER_LABELS | {"DATE"}
            return AskedFor(AnswerKind.typed, labels, noun, strict=True)
        if word in WH_LABELS:
            labels = WH_LABELS[word]
            return AskedFor(AnswerKind.typed, labels, strict=word == "when")
        noun = _asked_noun(wh)
        if not noun:
            return AskedFor(AnswerKind.open)
        if "year" in noun.split():  # "what year": a date, read down to the year
            return AskedFor(AnswerKind.typed, frozenset({"DATE"}), "year", strict=True)
        return AskedFor(AnswerKind.typed, self._labels_for(noun), noun)

    def _labels_for(self, noun: str) -> frozenset[str]:
        similarity = self._glossary @ np.asarray(self.encoder.encode([noun])[0])
        best = float(similarity.max())
        fitting = np.flatnonzero(similarity >= best - GLOSSARY_MARGIN)
        return frozenset(ENTITY_LABELS[i] for i in fitting.tolist())

    @staticmethod
    def _keep(
        found: dict[str, _Candidate], key: str, text: str, label: str, source: str, score: float
    ) -> None:
        candidate = found.setdefault(key, _Candidate(text, label))
        if score > candidate.passages.get(source, -math.inf):
            candidate.passages[source] = score
        if score > candidate.best:
            candidate.best, candidate.text, candidate.label, candidate.source = (
                score,
                text,
                label,
                source,
            )

    @staticmethod
    def _best(asked: AskedFor, found: dict[str, _Candidate]) -> Reading:
        scored = []
        for candidate in found.values():
            others = sorted(candidate.passages.values(), reverse=True)[1:]
            total = candidate.best + sum(0.5**i * 0.25 * s for i, s in enumerate(others, 1))
            scored.append((total, candidate))
        scored.sort(key=lambda pair: -pair[0])
        if not scored:
            fallback = asked.options[0] if asked.options else ""
            return Reading(fallback, asked)
        total, best = scored[0]
        text = best.text
        if asked.kind is AnswerKind.choice:
            text = next(o for o in asked.options if _norm(o) == _option(_norm(text), asked.options))
        ranking = [(c.text, round(s, 4)) for s, c in scored[:5]]
        return Reading(text, asked, best.source, round(total, 4), ranking)


def _candidate_key(span: Any, asked: AskedFor, named: set[str]) -> str | None:
    """The candidate a span stands for, or None.

    An option of a choice question; otherwise a name the question does not already give.
    """
    key = _norm(span.text)
    if asked.kind is AnswerKind.choice:
        return _option(key, asked.options)
    if not key or key in named or _inside_question(key, named):
        return None
    return key


def _spans(sent: Any) -> list[tuple[Any, str]]:
    """The sentence's entities with their labels, then proper-noun runs NER did not label."""
    spans = [(ent, ent.label_) for ent in sent.ents]
    covered = {token.i for ent in sent.ents for token in ent}
    run: list[Any] = []
    for token in [*sent, None]:
        if token is not None and token.pos_ == "PROPN" and token.i not in covered:
            run.append(token)
            continue
        if run:
            spans.append((sent.doc[run[0].i : run[-1].i + 1], ""))
            run = []
    return spans


def _fit(label: str, asked: AskedFor) -> float | None:
    """How well an entity label fits what is asked; None rules the candidate out."""
    if asked.kind is not AnswerKind.typed:
        return 0.0
    if label in asked.labels:
        return 1.0
    if asked.strict:
        return None
    return 0.0 if label and label not in NUMBER_LABELS | {"DATE", "ORDINAL"} else -0.5


def _named_fit(kind: str, asked: AskedFor) -> float:
    """How well a KG node's type fits what is asked: its type is the question's noun."""
    if asked.kind is not AnswerKind.typed:
        return 0.0
    words = {_norm(part) for part in kind.replace("_", " ").split()}
    noun = asked.noun
    if noun and (noun in words or f"{noun}s" in words or noun.rstrip("s") in words):
        return 1.0 + IS_A
    return 0.0 if not asked.strict else -1.0


def _held(doc: Any, words: set[str], idf: dict[str, float]) -> float:
    """Share of the question's (rarity-weighted) words a whole text holds."""
    total = sum(idf[w] for w in words)
    if not total:
        return 0.0
    present = {token.lemma_.lower() for token in doc} & words
    return 2.0 * sum(idf[w] for w in present) / total


def _support(span: Any, sent: Any, words: set[str], idf: dict[str, float], noun: str) -> float:
    """Share of the question's (rarity-weighted) words in the sentence, their nearness, the noun."""
    if not words:
        return 0.0
    total = sum(idf[w] for w in words) or 1.0
    inside = {token.i for token in span}
    positions: dict[str, list[int]] = defaultdict(list)
    for token in sent:
        if token.i not in inside and token.lemma_.lower() in words:
            positions[token.lemma_.lower()].append(token.i)
    held = sum(idf[w] for w in positions) / total
    near = 0.0
    for word, spots in positions.items():
        distance = min(min(abs(spot - span.start), abs(spot - span.end + 1)) for spot in spots)
        near += idf[word] / (1.0 + distance / 4.0)
    noun_here = bool(noun) and any(t.lemma_.lower() == noun for t in sent if t.i not in inside)
    return 2.0 * held + near / total + (0.5 if noun_here else 0.0)


def _answer_text(span: Any, asked: AskedFor) -> str:
    """The span as an answer: a year read out of a date; a count with the noun it counts."""
    text = re.sub(r"(?:'s|’s|')$", "", span.text.strip())
    if asked.noun == "year":
        year = YEAR.search(text)
        return year.group(0) if year else text
    if asked.strict and asked.noun and span.label_ in NUMBER_LABELS:
        after = span.doc[span.end] if span.end < len(span.doc) else None
        if after is not None and after.lemma_.lower() == asked.noun:
            return f"{text} {after.text}"
    return text


def _options(doc: Any) -> tuple[str, ...]:
    """The options of "A or B" (or "between A and B"): the two noun phrases the word joins.

    A conjunction inside a quoted title ("With or Without You") joins no nouns and is skipped.
    """
    for token in doc:
        joined = token.lower_ == "or" or (
            token.lower_ == "and" and any(a.lower_ == "between" for a in token.head.ancestors)
        )
        if not joined or token.dep_ != "cc":
            continue
        head = token.head
        conjuncts = [c for c in head.conjuncts if c.i > token.i]
        if conjuncts and {head.pos_, conjuncts[0].pos_} <= {"NOUN", "PROPN"}:
            right = doc[conjuncts[0].left_edge.i : conjuncts[0].right_edge.i + 1]
            left = doc[_phrase_start(doc, token.i) : token.i]
            return tuple(_strip(span.text) for span in (left, right))
    return ()


def _phrase_start(doc: Any, before: int) -> int:
    """Where the phrase ending just before token `before` starts.

    After the last comma or "between", else at the start of the noun phrase or entity that
    ends there.
    """
    for index in range(before - 1, -1, -1):
        if doc[index].is_punct or doc[index].lower_ == "between":
            return index + 1
    for span in [*doc.ents, *doc.noun_chunks]:
        if span.end == before:
            return int(span.start)
    return before - 1


def _strip(text: str) -> str:
    return text.strip().strip(",?.!\"'“”").strip()


def _interrogative(token: Any) -> bool:
    """A wh-word that asks (not a relative pronoun: "the university *where* X taught")."""
    if token.tag_ not in ("WDT", "WP", "WP$", "WRB"):
        return False
    return not any(a.dep_ in ("relcl", "acl") for a in [token, *token.ancestors][:3])


def _is_a(span: Any, noun: str) -> bool:
    """The evidence calls the span a `noun`.

    The noun is in the name ("Gatwick Airport"), the span is the subject of "is a ... NOUN",
    or it stands in apposition to one.
    """
    if any(token.lemma_.lower() == noun for token in span):
        return True
    root = span.root
    if root.dep_ in ("nsubj", "nsubjpass") and root.head.lemma_ == "be":
        attributes = [c for c in root.head.children if c.dep_ in ("attr", "acomp")]
        if any(t.lemma_.lower() == noun for a in attributes for t in a.subtree):
            return True
    return any(
        c.dep_ == "appos" and any(t.lemma_.lower() == noun for t in c.subtree)
        for c in root.children
    )


def _option(key: str, options: Sequence[str]) -> str | None:
    """The option `key` names (the whole option, or the option's own name inside it)."""
    for option in options:
        norm = _norm(option)
        if key == norm or (key and (f" {key} " in f" {norm} " or f" {norm} " in f" {key} ")):
            return norm
    return None


def _do_question(first: Any) -> bool:
    return first is not None and first.lemma_.lower() == "do" and first.i == 0


def _asked_noun(wh: Any) -> str:
    """The noun a "what / which" asks about: the noun it determines, or "the NOUN of" after is."""
    if wh.dep_ == "det" and wh.head.pos_ in ("NOUN", "PROPN"):
        return str(wh.head.lemma_).lower()
    for token in wh.doc[wh.i + 1 : wh.i + 4]:
        if token.pos_ == "NOUN":
            return str(token.lemma_).lower()
    return ""


def _noun_after(token: Any) -> str:
    """The noun a "how many / how much" counts, if it follows."""
    for after in token.doc[token.i + 1 : token.i + 3]:
        if after.pos_ == "NOUN":
            return str(after.lemma_).lower()
    return ""


def _content_words(doc: Any) -> set[str]:
    """The question's words that can locate an answer: no stop words, wh-words or punctuation."""
    return {
        token.lemma_.lower()
        for token in doc
        if not (token.is_stop or token.is_punct or token.is_space)
        and token.tag_ not in ("WDT", "WP", "WP$", "WRB")
        and WORD.fullmatch(token.lemma_)
    }


def _rarity(words: set[str], sentences: Sequence[Any]) -> dict[str, float]:
    """Inverse sentence frequency of each question word in this evidence."""
    df: Counter[str] = Counter()
    for sent in sentences:
        df.update({token.lemma_.lower() for token in sent} & words)
    n = max(len(sentences), 1)
    return {word: math.log(1.0 + n / (1.0 + df[word])) for word in words}


def _norm(text: Any) -> str:
    """Lower-cased words of a span or string, articles and possessives dropped."""
    words = WORD.findall(str(text).lower())
    return " ".join(w for w in words if w not in ("the", "a", "an", "s"))


def _inside_question(key: str, named: set[str]) -> bool:
    """The candidate is one of the question's names, or all its words are in one of them."""
    return any(f" {key} " in f" {name} " for name in named if name)


def load_reader(encoder: Embedder, spacy_model: str | None = None) -> Reader:
    """The reader over spaCy's en_core_web_sm (the `answer` extra installs it).

    `spacy_model` names another spaCy English pipeline (a package name or a directory).

    Raises:
        ExtractorDownError: spaCy or its weights are not installed, or the model cannot load.
    """
    from graphs.importers.documents.spacy_extractor import load_pipeline

    return Reader(load_pipeline(spacy_model), encoder)
