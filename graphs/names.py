"""The name index: which nodes a run of words names, for linking a question to the graph.

Every node name is indexed under up to four keys, each the 64-bit BLAKE2b hash of a
normalised word sequence (``names/keys.npy``, sorted, with ``nodes.npy`` and ``forms.npy``
aligned):

* the name's words, lower-cased, punctuation dropped (``Glass (container)`` -> ``glass
  container``): the *exact* form;
* the same words stemmed (tantivy's Snowball English stemmer, so ``glasses`` finds
  ``glass``): the *stem* form;
* for a name ending in a parenthesised disambiguator, as lexical and encyclopaedic graphs
  write them (``glass (container)``, ``Paris (Texas)``), the words before it, exact and
  stemmed: the *base* forms, which make the node one of the homonyms of ``glass``.

A lookup hashes a word run both ways and reads the matching entries; each is checked
against the node's name, so a hash collision never links a wrong node. Names whose words
are all stopwords of the snapshot's analyzer, or shorter than `MIN_NAME_CHARS`, are not
indexed: they name nothing a question could mean. The index is built at import from
nodes.arrow (both builds) and stamped with the build's content hash like csr/ and ids/.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.bm25.tokenize import Tokenizer
from graphs.errors import SnapshotError
from graphs.layout import META_FILE
from graphs.nodestore import NodeStore

NAMES_FORMAT_VERSION = 1
MIN_NAME_CHARS = 3
"""Names shorter than this (letters and digits only) are not linked (`C`, `of`, `US`... are
too often ordinary words)."""
MAX_NAME_WORDS = 12
"""Names of more words are not indexed (a question rarely quotes a title that long)."""
BATCH = 65_536

EXACT = 0
"""Form flags: bit 0 set = stemmed, bit 1 set = the base before a disambiguator."""
STEMMED = 1
BASE = 2

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


def key_hash(form: int, words: Sequence[str]) -> int:
    """The 64-bit key of a word run in one form (exact or stemmed)."""
    text = f"{form & STEMMED}\x00" + " ".join(words)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


class NameForms:
    """Turns names and question word runs into index keys (analyzer and stemmer in one place).

    Args:
        analyzer: The snapshot's analyzer: a name it keeps no word of is not indexed.
    """

    def __init__(self, analyzer: str) -> None:
        self.analyzer = Tokenizer(analyzer)
        self.stemmer = Tokenizer(_STEMMER_NAME)
        self._stems: dict[str, str] = {}

    def stem(self, word: str) -> str:
        """The Snowball stem of one lower-cased word (stopwords stay as they are)."""
        found = self._stems.get(word)
        if found is None:
            tokens = self.stemmer.tokenize(word)
            found = tokens[0] if len(tokens) == 1 else word
            if len(self._stems) < 1_000_000:
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

    def keys(self, name: str) -> list[tuple[int, int]]:
        """(key hash, form flags) under which `name` is indexed (empty: not linkable)."""
        found: dict[int, int] = {}
        runs = [(name_words(name), 0)]
        parts = split_disambiguator(name)
        if parts is not None:
            runs.append((name_words(parts[0]), BASE))
        for words, base in runs:
            if not self.linkable(words):
                continue
            for form, run in ((EXACT, words), (STEMMED, self.stems(words))):
                found.setdefault(key_hash(form, run), form | base)
        return list(found.items())


@dataclass(frozen=True)
class NameMatch:
    """A node whose name a word run names.

    Attributes:
        node: Internal node id.
        stemmed: Matched only after stemming (``glasses`` for ``glass``).
        base: Matched the name without its disambiguator (one homonym of several).
    """

    node: int
    stemmed: bool
    base: bool


class NameIndex:
    """The name index of a snapshot, memory-mapped (see the module doc).

    Args:
        directory: The snapshot's names/ directory.
        forms: The key maker (the snapshot's analyzer).
        max_words: The longest indexed name, in words.
    """

    def __init__(
        self,
        keys: np.ndarray,
        nodes: np.ndarray,
        forms: np.ndarray,
        name_forms: NameForms,
        max_words: int,
    ) -> None:
        self.keys = keys
        self.nodes = nodes
        self.forms = forms
        self.name_forms = name_forms
        self.max_words = max_words

    @classmethod
    def open(cls, directory: Path, analyzer: str, content_hash: str) -> NameIndex:
        """Map a names/ directory written by `write_name_index`.

        Raises:
            SnapshotError: a file is missing or damaged, or from another build.
        """
        try:
            meta = json.loads((directory / META_FILE).read_text())
            keys = np.load(directory / "keys.npy", mmap_mode="r")
            nodes = np.load(directory / "nodes.npy", mmap_mode="r")
            forms = np.load(directory / "forms.npy", mmap_mode="r")
        except (OSError, ValueError) as error:
            raise SnapshotError(f"cannot read the name index in {directory} ({error})") from error
        if meta.get("content_hash") != content_hash:
            raise SnapshotError(f"{directory} was built from another snapshot (content hash)")
        if meta.get("format") != NAMES_FORMAT_VERSION or not (
            len(keys) == len(nodes) == len(forms)
        ):
            raise SnapshotError(f"{directory}: unknown format or arrays of different lengths")
        return cls(keys, nodes, forms, NameForms(analyzer), int(meta.get("max_words", 0)))

    @classmethod
    def from_names(cls, names: Iterable[str], analyzer: str) -> NameIndex:
        """An index built in memory (a snapshot written before the name index existed)."""
        forms = NameForms(analyzer)
        keys, nodes, flags, max_words = _collect(names, forms)
        return cls(keys, nodes, flags, forms, max_words)

    def lookup(self, words: Sequence[str]) -> list[NameMatch]:
        """The nodes named by exactly this word run (lower-cased words), exact forms first.

        The caller checks each match against the node's name when it must be certain
        (`confirmed`): keys are 64-bit hashes.
        """
        if not words or len(words) > self.max_words:
            return []
        matches: dict[int, NameMatch] = {}
        for form, run in ((EXACT, words), (STEMMED, self.name_forms.stems(words))):
            key = np.uint64(key_hash(form, run))
            start = int(np.searchsorted(self.keys, key, side="left"))
            end = int(np.searchsorted(self.keys, key, side="right"))
            for position in range(start, end):
                flags = int(self.forms[position])
                if flags & STEMMED != form:
                    continue
                node = int(self.nodes[position])
                if node not in matches:
                    matches[node] = NameMatch(node, bool(flags & STEMMED), bool(flags & BASE))
        return list(matches.values())

    def confirmed(self, words: Sequence[str], match: NameMatch, name: str) -> bool:
        """Whether `name` (the matched node's) really normalises to `words` in the match's form."""
        parts = split_disambiguator(name) if match.base else None
        target = name_words(parts[0] if parts else name)
        if match.stemmed:
            return self.name_forms.stems(target) == self.name_forms.stems(list(words))
        return target == list(words)


def write_name_index(directory: Path, store_file: Path, analyzer: str, content_hash: str) -> None:
    """Write names/ from the names in nodes.arrow (internal order), read a batch at a time."""
    names = NodeStore(store_file).column("name")
    batches = (names.slice(start, BATCH).to_pylist() for start in range(0, len(names), BATCH))
    _write(directory, (name for batch in batches for name in batch), analyzer, content_hash)


def _write(directory: Path, names: Iterable[str], analyzer: str, content_hash: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    keys, nodes, forms, max_words = _collect(names, NameForms(analyzer))
    np.save(directory / "keys.npy", keys)
    np.save(directory / "nodes.npy", nodes)
    np.save(directory / "forms.npy", forms)
    meta = {
        "format": NAMES_FORMAT_VERSION,
        "content_hash": content_hash,
        "entries": len(keys),
        "max_words": max_words,
    }
    (directory / META_FILE).write_text(json.dumps(meta))


def _collect(
    names: Iterable[str], forms: NameForms
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Sorted keys with their nodes and form flags, and the longest name in words."""
    key_parts: list[np.ndarray] = []
    node_parts: list[np.ndarray] = []
    form_parts: list[np.ndarray] = []
    keys: list[int] = []
    nodes: list[int] = []
    flags: list[int] = []
    max_words = 0

    def flush() -> None:
        key_parts.append(np.array(keys, dtype=np.uint64))
        node_parts.append(np.array(nodes, dtype=np.int64))
        form_parts.append(np.array(flags, dtype=np.uint8))
        keys.clear()
        nodes.clear()
        flags.clear()

    for node, name in enumerate(names):
        for key, form in forms.keys(name or ""):
            keys.append(key)
            nodes.append(node)
            flags.append(form)
            max_words = max(max_words, min(len(name_words(name)), MAX_NAME_WORDS))
        if len(keys) >= BATCH:
            flush()
    flush()
    all_keys = np.concatenate(key_parts)
    order = np.argsort(all_keys, kind="stable")
    all_nodes = np.concatenate(node_parts)[order]
    dtype = np.int32 if len(all_nodes) == 0 or all_nodes.max() < 2**31 else np.int64
    return all_keys[order], all_nodes.astype(dtype), np.concatenate(form_parts)[order], max_words
