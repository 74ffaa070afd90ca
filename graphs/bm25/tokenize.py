"""Analyzers: the tantivy text analysis a snapshot indexes with, usable from Python alike."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import tantivy

from graphs.errors import GraphError

MAX_TOKEN_BYTES = 40
"""Tokens of this many UTF-8 bytes or more are dropped, as tantivy's ``RemoveLongFilter`` does."""

ANALYZERS: dict[str, str] = {
    "english": "lower-case, drop English stopwords (the Lucene/bm25s list of 33 words)",
    "english-stem": "lower-case, drop English stopwords, Snowball English stemming",
    "plain": "lower-case only (every word is indexed; the analyzer of snapshots before analyzers)",
}
"""Analyzer names accepted at import (``--analyzer``), with what each does."""
DEFAULT_ANALYZER = "english"

_WORD = re.compile(r"[^\W_]+")
MIN_WORDS_TO_JUDGE = 4
"""Shorter texts (keywords, names) are never judged foreign: they need no function words, and
a language identifier cannot tell `Ada Lovelace papers` from Spanish."""


def check_analyzer(name: str) -> str:
    """Return ``name`` if it is a known analyzer.

    Raises:
        GraphError: Naming the valid analyzers.
    """
    if name not in ANALYZERS:
        choices = "; ".join(f"{key} ({what})" for key, what in ANALYZERS.items())
        raise GraphError(f"unknown analyzer {name!r}; choose one of: {choices}")
    return name


class Tokenizer:
    """One of the :data:`ANALYZERS`, built from tantivy's own filters.

    Every analyzer splits on each character that is not Unicode alphanumeric, drops tokens of
    40 bytes or more (measured before lower-casing) and lower-cases each character on its own
    (so a final capital sigma becomes ``σ``, unlike ``str.lower``); ``english`` also drops
    stopwords and ``english-stem`` stems. Running the very same tantivy analyzer here is the
    only way to be sure that what we look up is what tantivy indexed.

    Attributes:
        name: The analyzer's name (a key of :data:`ANALYZERS`).
        stems: Whether tokens can differ from the lower-cased words of the text.
    """

    def __init__(self, name: str = DEFAULT_ANALYZER) -> None:
        self.name = check_analyzer(name)
        self.stems = name == "english-stem"
        self._analyzer = self.tantivy_analyzer()

    def __reduce__(self) -> tuple[type[Tokenizer], tuple[str]]:
        # tantivy's analyzer does not pickle: a worker process rebuilds it from the name
        return (Tokenizer, (self.name,))

    def tantivy_analyzer(self) -> tantivy.TextAnalyzer:
        """A fresh tantivy analyzer of this kind (to register with an index)."""
        builder = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
            .filter(tantivy.Filter.lowercase())
        )
        if self.name != "plain":
            builder = builder.filter(tantivy.Filter.stopword("english"))
        if self.stems:
            builder = builder.filter(tantivy.Filter.stemmer("english"))
        return builder.build()

    def tokenize(self, text: str) -> list[str]:
        """Split text into the tokens tantivy indexes for it, in order, duplicates kept.

        Args:
            text: Any string (empty, punctuation-only and non-ASCII text are all fine).

        Returns:
            The tokens (lower-cased, stopwords dropped, stemmed, as the analyzer says).
        """
        return list(self._analyzer.analyze(text))

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokenise a batch of texts (see :meth:`tokenize`)."""
        analyze = self._analyzer.analyze
        return [analyze(text) for text in texts]

    def query_tokens(self, query: str) -> list[str]:
        """Tokenise a query and drop repeated tokens, keeping first occurrences in order.

        A token repeated in a query counts once: ``"graph graph"`` scores like ``"graph"``.

        Args:
            query: Raw user or model text; never parsed as query syntax.

        Returns:
            The distinct tokens.
        """
        return list(dict.fromkeys(self._analyzer.analyze(query)))

    def word_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, token) of every word of ``text`` that the analyzer keeps.

        Words are runs of alphanumeric characters (as the tokenizer splits them); stopwords
        and over-long words are left out, stemmed words carry their stem.
        """
        spans = []
        analyze = self._analyzer.analyze
        for match in _WORD.finditer(text):
            tokens = analyze(match.group())
            if len(tokens) == 1:
                spans.append((match.start(), match.end(), tokens[0]))
        return spans

    def maybe_foreign(self, text: str) -> bool:
        """A cheap first test of whether `text` is not in the analyzer's language (English).

        English prose of four words or more almost always holds one of the analyzer's own
        stopwords (`the`, `of`, `is`, `to`, ...), the words it drops, and rarely a letter with
        a diacritic; text mostly in a non-Latin script is foreign however it splits. True
        only says "worth a closer look" (graphs/bm25/language.py decides). `plain` has no
        language and judges nothing.
        """
        if self.name == "plain":
            return False
        letters = [ch for ch in text if ch.isalpha()]
        latin = [ch for ch in letters if unicodedata.name(ch, "").startswith("LATIN")]
        if letters and len(latin) < len(letters) / 2:
            return True
        words = _WORD.findall(text)
        if len(words) < MIN_WORDS_TO_JUDGE:
            return False
        if any(not ch.isascii() for ch in latin):
            return True
        analyze = self._analyzer.analyze
        return not any(len(w.encode()) < MAX_TOKEN_BYTES and not analyze(w) for w in words)
