"""How a node name, or a run of a question's words, becomes keys of the name index.

A name's key is a 64-bit hash of its normalised words: FNV-1a over each word's own 64-bit
BLAKE2b hash, so the keys of every run of a question's words are made in one pass over the
question (`NameForms.candidates`). Each name is keyed in its *exact* form (lower-cased words,
punctuation dropped: ``Glass (container)`` -> ``glass container``), its *stem* form (tantivy's
Snowball English stemmer: ``glasses`` finds ``glass``), and, for a name ending in a
parenthesised disambiguator (``glass (container)``, ``Paris (Texas)``), the words before it in
both forms: the *base* forms. The index itself is graphs/snapshot/names.py.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

from graphs.bm25.tokenize import Tokenizer

MIN_NAME_CHARS = 3
"""Names shorter than this (letters and digits only) are not linked (`C`, `of`, `US`... are
too often ordinary words)."""
MAX_NAME_WORDS = 32
"""Names of more words are not indexed (classification entries reach 20-30 words; a
question rarely quotes a longer title)."""
CACHE_WORDS = 1_000_000
"""Distinct words whose stem and hash a `NameForms` remembers."""

EXACT = 0
"""Form flags: bit 0 set = stemmed, bit 1 set = the base before a disambiguator, bit 2 set =
one of the node's aliases (graphs/snapshot/aliases.py), not its name."""
STEMMED = 1
BASE = 2
ALIAS = 4

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DISAMBIGUATOR = re.compile(r"^(?P<base>.*?\S)\s*\((?P<qualifier>[^()]+)\)\s*$")
_STEMMER_NAME = "english-stem"


def name_words(text: str) -> list[str]:
    """The lower-cased alphanumeric words of `text` (the exact form's words)."""
    return [word.lower() for word in _WORD.findall(text)]


def split_disambiguator(name: str) -> tuple[str, str] | None:
    """(base, qualifier) of a name ending in a parenthesised qualifier, else None."""
    match = _DISAMBIGUATOR.match(name)
    if match is None:
        return None
    return match.group("base"), match.group("qualifier")


def base_words(name: str, base: bool) -> list[str]:
    """The exact-form words a name is matched by.

    All of them, or, for a base match (`base`), those before its disambiguator
    (``glass (container)`` -> ``glass``).
    """
    parts = split_disambiguator(name) if base else None
    return name_words(parts[0] if parts else name)


def inflection_alike(words: Sequence[str], others: Sequence[str]) -> bool:
    """Whether two word runs differ at most by regular English inflections, word for word.

    Each pair of words is equal, or one is the other with a regular inflectional ending
    (`_inflects`): ``canals`` and ``canal``, ``glasses`` and ``glass``, ``allergies`` and
    ``allergy``, ``measuring`` and ``measure``, ``spotted`` and ``spot``. The stem form
    matches more (Snowball's ``canal`` is also the stem of ``canalization``, ``measur`` of
    ``measurement``): an inflection of a name is closer to it than a word derived from the
    same stem (`tools/mentions.py`).
    """
    return len(words) == len(others) and all(
        a == b or _inflects(a, b) or _inflects(b, a) for a, b in zip(words, others, strict=True)
    )


def _inflects(word: str, lemma: str) -> bool:
    """Whether `word` is `lemma` with a regular English inflectional ending.

    Plural and third person ``-s``, ``-es`` after a sibilant or ``-o`` (``boxes``,
    ``glasses``, ``heroes``; ``-ies`` for a final ``-y``), past ``-ed`` and ``-d`` (``-ied``),
    present participle ``-ing`` (a final ``-e`` dropped, ``-ie`` as ``-ying``), and a final
    consonant doubled before ``-ed``, ``-ing`` and, after ``-s`` or ``-z``, ``-es``
    (``spotted``, ``busses``, ``quizzes``).
    """
    if not lemma or len(word) <= len(lemma) or not word.startswith(lemma[:-2]):
        return False
    endings = {lemma + "s", lemma + "ed", lemma + "ing"}
    if lemma.endswith(_SIBILANT_ENDINGS):
        endings.add(lemma + "es")
    if lemma.endswith("e"):
        endings |= {lemma + "d", lemma[:-1] + "ing"}
    if lemma.endswith("ie"):
        endings.add(lemma[:-2] + "ying")
    if lemma.endswith("y"):
        endings |= {lemma[:-1] + "ies", lemma[:-1] + "ied"}
    if lemma[-1:].isalpha() and lemma[-1:] not in "aeiouwxy":
        doubled = lemma + lemma[-1]
        endings |= {doubled + "ed", doubled + "ing"}
        if lemma[-1] in "sz":
            endings.add(doubled + "es")
    return word in endings


_SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh", "o")
"""Lemma endings that take ``-es`` for ``-s`` (``boxes``, ``churches``, ``heroes``)."""
_MASK = (1 << 64) - 1
_PRIME = 0x100000001B3
_SEEDS = (0xCBF29CE484222325, 0x9E3779B97F4A7C15)
"""FNV-1a's offset basis for exact runs, another constant for stemmed ones (two key spaces)."""


def word_key(word: str) -> int:
    """A word's own 64-bit hash."""
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")


def fold(form: int, word_keys: Sequence[int]) -> int:
    """The key of a run of words in one form: FNV-1a over the words' own hashes."""
    key = _SEEDS[form & STEMMED]
    for word in word_keys:
        key = ((key ^ word) * _PRIME) & _MASK
    return key


class NameForms:
    """Turns names and question word runs into index keys (analyzer and stemmer in one place).

    Args:
        analyzer: The snapshot's analyzer: a name it keeps no word of is not indexed.
    """

    def __init__(self, analyzer: str) -> None:
        self.analyzer = Tokenizer(analyzer)
        self.stemmer = Tokenizer(_STEMMER_NAME)
        self._stems: dict[str, str] = {}
        self._keys: dict[str, int] = {}

    def word_keys(self, words: Sequence[str]) -> list[int]:
        """Each word's own hash (remembered: names and questions repeat their words)."""
        keys = []
        for word in words:
            key = self._keys.get(word)
            if key is None:
                key = word_key(word)
                if len(self._keys) < CACHE_WORDS:
                    self._keys[word] = key
            keys.append(key)
        return keys

    def stem(self, word: str) -> str:
        """The Snowball stem of one lower-cased word (stopwords stay as they are)."""
        found = self._stems.get(word)
        if found is None:
            tokens = self.stemmer.tokenize(word)
            found = tokens[0] if len(tokens) == 1 else word
            if len(self._stems) < CACHE_WORDS:
                self._stems[word] = found
        return found

    def stems(self, words: Sequence[str]) -> list[str]:
        """The stem of each word."""
        return [self.stem(word) for word in words]

    def linkable(self, words: Sequence[str]) -> bool:
        """Whether a name of these words can be linked (long enough, not only stopwords)."""
        if not words or len(words) > MAX_NAME_WORDS:
            return False
        if sum(len(word) for word in words) < MIN_NAME_CHARS:
            return False
        return bool(self.analyzer.tokenize(" ".join(words)))

    def keys(self, name: str, flags: int = 0) -> list[tuple[int, int, int, int]]:
        """(key, form flags, first word's key, words) under which `name` is indexed.

        Empty when the name is not linkable. The first word's key is the key of the run of
        that one word in the same form (what a question's word is looked up under first).
        `flags` are added to every key's (`ALIAS` for an alias).
        """
        found: dict[int, tuple[int, int, int, int]] = {}
        runs = [(name_words(name), 0)]
        parts = split_disambiguator(name)
        if parts is not None:
            runs.append((name_words(parts[0]), BASE))
        for words, base in runs:
            if not self.linkable(words):
                continue
            for form, run in ((EXACT, words), (STEMMED, self.stems(words))):
                hashes = self.word_keys(run)
                key = fold(form, hashes)
                if key not in found:
                    found[key] = (key, form | base | flags, fold(form, hashes[:1]), len(run))
        return list(found.values())

    def candidates(
        self, words: Sequence[str], longest: Callable[[list[int]], list[int]]
    ) -> tuple[list[tuple[int, int, int]], list[int]]:
        """Every run of `words` worth looking up, as (start, end, form), and its key.

        In both forms, a run is tried only from a word some name begins with, and only as
        long as the longest such name (`longest`: the most words of a name each one-word key
        begins, 0 for none); each run's key extends the one before it (the rolling FNV-1a of
        `fold`), so the keys of every run are made in one pass over the question.
        """
        forms = [(EXACT, list(words)), (STEMMED, self.stems(words))]
        hashes = [self.word_keys(run) for _, run in forms]
        firsts = [
            ((_SEEDS[form] ^ h) * _PRIME) & _MASK
            for (form, _), row in zip(forms, hashes, strict=True)
            for h in row
        ]
        reach = longest(firsts)
        found: list[tuple[int, int, int]] = []
        keys: list[int] = []
        for index, ((form, run), row) in enumerate(zip(forms, hashes, strict=True)):
            for start, length in enumerate(reach[index * len(run) : (index + 1) * len(run)]):
                key = _SEEDS[form]
                for end in range(start, min(len(run), start + length)):
                    key = ((key ^ row[end]) * _PRIME) & _MASK
                    found.append((start, end + 1, form))
                    keys.append(key)
        return found, keys
