"""The language check: foreign questions named, English ones (and keywords) left alone."""

from __future__ import annotations

import pytest

from graphs.bm25.language import LanguageCheck
from graphs.bm25.tokenize import Tokenizer


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Welche Pakete hängen von Perl ab?", "de"),
        ("Wer hat den Film Alien gedreht?", "de"),
        ("Quels paquets dépendent de perl ?", "fr"),
        ("¿Qué países limitan con Francia?", "es"),
        ("東京の人口は何人ですか", "ja"),
    ],
)
def test_a_foreign_question_is_named(question: str, language: str) -> None:
    check = LanguageCheck(Tokenizer("english-stem"))
    assert check.foreign(question) == language
    warning = check.warning(question)
    assert warning is not None and f"'{language}'" in warning and "--analyzer plain" in warning


@pytest.mark.parametrize(
    "question",
    [
        "Who directed Alien Resurrection?",  # no stopword: the identifier decides
        "What films did Penélope Cruz star in?",  # a diacritic: the identifier decides
        "Ada Lovelace papers",  # keywords are never judged
        "tmux",
    ],
)
def test_english_and_keywords_are_not_flagged(question: str) -> None:
    assert LanguageCheck(Tokenizer("english")).foreign(question) is None


def test_an_english_question_with_stopwords_never_loads_the_identifier() -> None:
    check = LanguageCheck(Tokenizer("english"))
    assert check.foreign("Which packages depend on perl?") is None
    assert check._identifier is None


def test_the_plain_analyzer_has_no_language() -> None:
    assert LanguageCheck(Tokenizer("plain")).foreign("Welche Pakete hängen von Perl ab?") is None
