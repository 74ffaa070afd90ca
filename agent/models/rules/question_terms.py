"""Reading a question against a graph's schema: its type words, relation words and named anchors."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "all",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "each",
        "few",
        "find",
        "for",
        "from",
        "get",
        "give",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "list",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "show",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def stem(word: str) -> str:
    """A deliberately small English stemmer: enough to match "cites"/"cited"/"citing" to "cite"."""
    word = word.lower()
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def cased_words(text: str) -> list[str]:
    """The alphanumeric words of `text` as written (case kept)."""
    return _WORD.findall(text)


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric words of `text`."""
    return [w.lower() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class SchemaVocabulary:
    """Stemmed words of a graph's node-type and relation names, for matching question words."""

    type_words: dict[str, frozenset[str]]
    relation_words: dict[str, frozenset[str]]

    @classmethod
    def from_names(cls, node_types: Iterable[str], relations: Iterable[str]) -> SchemaVocabulary:
        """Build the vocabulary from the snapshot's type and relation names."""
        type_words = {t: _content_stems(t) for t in node_types}
        all_type_stems = frozenset().union(*type_words.values()) if type_words else frozenset()
        relation_words = {r: _content_stems(r) - all_type_stems for r in relations}
        return cls(type_words=type_words, relation_words=relation_words)

    def mentioned_types(self, question: str) -> list[str]:
        """Node types named in the question, in order of first mention."""
        return _mentioned(self.type_words, question)

    def mentioned_relations(self, question: str) -> list[str]:
        """Relations whose distinctive words occur in the question, in order of first mention."""
        return _mentioned(self.relation_words, question)


def _content_stems(name: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(name) if w not in STOPWORDS and len(w) >= 3)


def _mentioned(vocabulary: dict[str, frozenset[str]], question: str) -> list[str]:
    first_mention: dict[str, int] = {}
    for position, word in enumerate(words(question)):
        stemmed = stem(word)
        for name, stems in vocabulary.items():
            if stemmed in stems:
                first_mention.setdefault(name, position)
    return sorted(first_mention, key=first_mention.__getitem__)


def find_name_span(question_tokens: Sequence[str], name_tokens: Sequence[str]) -> int | None:
    """Start of the first occurrence of `name_tokens` as a contiguous run in the question."""
    n = len(name_tokens)
    if n == 0:
        return None
    for start in range(len(question_tokens) - n + 1):
        if list(question_tokens[start : start + n]) == list(name_tokens):
            return start
    return None
