"""Tokenisation identical to tantivy's default analyzer, for indexing, queries and snippets."""

from __future__ import annotations

from collections.abc import Iterable

import tantivy

MAX_TOKEN_BYTES = 40
"""Tokens of this many UTF-8 bytes or more are dropped, as tantivy's ``RemoveLongFilter`` does."""


class Tokenizer:
    """tantivy's ``default`` text analyzer, usable from Python.

    The default analyzer splits on every character that is not Unicode alphanumeric, drops
    tokens of 40 bytes or more (measured before lower-casing) and lower-cases each character
    on its own (so a final capital sigma becomes ``σ``, unlike ``str.lower``). Running the very
    same analyzer here is the only way to be sure that what we look up is what tantivy indexed.
    """

    def __init__(self) -> None:
        self._analyzer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
            .filter(tantivy.Filter.lowercase())
            .build()
        )

    def tokenize(self, text: str) -> list[str]:
        """Split text into the tokens tantivy indexes for it, in order, duplicates kept.

        Args:
            text: Any string (empty, punctuation-only and non-ASCII text are all fine).

        Returns:
            The lower-cased tokens.
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
