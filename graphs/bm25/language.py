"""Does a question match the snapshot's analyzer's language? A warning, never a refusal.

ARK's analyzers read English (`english`, `english-stem`: English stopwords, English stems);
a question in German or Japanese searched against them finds little, with no sign why. The
check has two stages: the analyzer's own cheap test (`Tokenizer.maybe_foreign`: four words
or more and not one English stopword, or mostly a non-Latin script), which passes almost
every English question at once, then a language identifier (py3langid, a naive Bayes model
over character n-grams, 97 languages, loaded only when the first stage asks) that names the
language when English is all but ruled out.
"""

from __future__ import annotations

from typing import Any

from graphs.bm25.tokenize import Tokenizer

NOT_ENGLISH = 0.01
"""The identifier's probability of English below which a question is called foreign (English
questions of four words or more score 0.3 and up; German, French, Spanish 0.0001-0.0003)."""


class LanguageCheck:
    """Names the language of questions the analyzer cannot read well (see the module doc).

    Args:
        tokenizer: The snapshot's analyzer.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self._identifier: Any = None

    def foreign(self, text: str) -> str | None:
        """The language code of `text` when it is not the analyzer's language, else None."""
        if not self.tokenizer.maybe_foreign(text):
            return None
        identifier = self._load()
        ranked = dict(identifier.rank(text))
        if ranked.get("en", 0.0) >= NOT_ENGLISH:
            return None
        return str(max(ranked, key=ranked.__getitem__))

    def warning(self, text: str) -> str | None:
        """A one-line warning for a foreign `text`, saying what to do, else None."""
        language = self.foreign(text)
        if language is None:
            return None
        return (
            f"the question looks written in '{language}', but this snapshot's analyzer "
            f"({self.tokenizer.name}) reads English: search will match few of its words. "
            "Ask in English, or rebuild the snapshot with `--analyzer plain` (lower-case "
            "only, no stopwords or stems) for text in another language"
        )

    def _load(self) -> Any:
        if self._identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            self._identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        return self._identifier
