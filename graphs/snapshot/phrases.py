"""Relation phrases: the words a graph's own texts use for its relations.

A node's text that writes ``<word> of <a neighbour's name>`` (an article between or not) says
with ``<word>`` how the two are related: WordNet's glosses write "a kind of ..." before the
name of a node's hypernym and "genus of ..." before its family, HPO's definitions "A type
of ..." before a term's `is_a` parent, Debian's descriptions "part of ..." before a binary
package's source. Counted over the graph's edges, a word is a phrase of one relation, in one
direction, when

* it stands before a neighbour's name along that relation and direction at least
  `MIN_COUNT` times,
* at least `MIN_PRECISION` of its uses before any neighbour's name are along it (so
  "small" in "a small dog", before names along every relation, is no phrase), and
* at least `MIN_LINK` of all its ``<word> of`` uses in the texts stand before such a name
  (the link probability of entity linking, as in tools/mentions.py: "mass of frozen water"
  is mostly not about a neighbour).

The direction is that of the edge as seen from the node whose text holds the phrase:
``out`` when that node is the edge's source (WordNet's `beer glass -[hypernym]-> glass`,
its text "a kind of glass"), ``in`` when it is the target. A question that writes the
phrase names the relation (tools/plans/vocabulary.py), and which side of the phrase the
named node stands on gives the walk's direction: "kinds of glass" asks for the nodes whose
text could say "a kind of glass", "a goblet is a kind of what" for the other end.

Mined once at import (both builds) from the node store and the CSR, at most `MAX_NODES`
texts, each against at most `MAX_NEIGHBOURS` neighbours (both evenly spaced, so the cost is
bounded at any size), and kept in
the manifest (`Manifest.relation_phrases`); a snapshot built before has none, and its
questions are read by the relation labels' own words alone.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from graphs.bm25.tokenize import Tokenizer
from graphs.layout import CSR_DIR, STORE_FILE
from graphs.snapshot.csr import CSR, OUT
from graphs.snapshot.name_keys import name_words, split_disambiguator
from graphs.snapshot.nodestore import NodeStore

MAX_NODES = 500_000
"""Texts read at most (every k-th node past that: about ten seconds of one core)."""
MAX_NEIGHBOURS = 1_000
"""Neighbours' names a text is compared with at most (evenly spaced along its row: a hub's
text rarely names one of its thousands of neighbours, and reading them all would not be
bounded)."""
MIN_COUNT = 3
"""Uses before a neighbour's name along the relation that make a word its phrase."""
MIN_PRECISION = 0.6
"""Share of a word's uses before neighbours' names that must be along the one relation."""
MIN_LINK = 0.05
"""Share of all of a word's ``<word> of`` uses that must stand before such a name."""
MIN_WORD_CHARS = 3
"""Shorter words are no phrases (as names and schema words, tools/plans/vocabulary.py)."""

Direction = Literal["out", "in"]
Phrases = dict[str, dict[str, Direction]]
"""Relation -> {phrase word's stem -> the direction its text's node has on the edge}."""

_OF = re.compile(r"\b([^\W_]+) of (?:(?:a|an|the) )?", re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def phrases_of(
    directory: Path, relation_names: Sequence[str], num_types: int, analyzer: str
) -> Phrases:
    """The relation phrases of the snapshot being written in `directory` (its store and CSR)."""
    store = NodeStore(directory / STORE_FILE)
    return mine_phrases(store, CSR(directory / CSR_DIR, num_types), relation_names, analyzer)


def mine_phrases(
    store: NodeStore, csr: CSR, relation_names: Sequence[str], analyzer: str
) -> Phrases:
    """The relation phrases of a built graph (see the module doc).

    Args:
        store: The graph's node store (names and texts).
        csr: Its adjacency, both directions.
        relation_names: Relation names in code order.
        analyzer: The snapshot's analyzer: a word it drops (a stopword) is no phrase.
    """
    counter = _PhraseCounter(Tokenizer(analyzer), Tokenizer("english-stem"))
    for node in _sample(csr.num_nodes):
        text = store.get("text", node).lower()
        uses = [(m.group(1), m.end()) for m in _OF.finditer(text)]
        if not uses:
            continue
        start, stop = int(csr.indptr[node]), int(csr.indptr[node + 1])
        if start == stop:
            counter.unlinked(word for word, _ in uses)
            continue
        row = start + _sample(stop - start, MAX_NEIGHBOURS)
        by_first = _by_first_word(
            store.get_many("name", np.asarray(csr.neighbors[row], dtype=np.int64)),
            csr.relations[row].tolist(),
            (csr.directions[row] == OUT).tolist(),
        )
        for word, at in uses:
            counter.use(word, _edges_named_at(text, at, by_first))
    return counter.phrases(relation_names)


def _sample(size: int, most: int | None = None) -> np.ndarray:
    """0..size-1, or `most` of them evenly spaced (default `MAX_NODES`: the texts read)."""
    most = MAX_NODES if most is None else most
    if size <= most:
        return np.arange(size)
    return np.unique(np.linspace(0, size - 1, most).astype(np.int64))


def _by_first_word(
    names: list[str], relations: list[int], outgoing: list[bool]
) -> dict[str, list[tuple[str, int, bool]]]:
    """Each neighbour's name (its disambiguator dropped, lower-cased) under its first word."""
    found: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for name, relation, out in zip(names, relations, outgoing, strict=True):
        parts = split_disambiguator(name)
        base = (parts[0] if parts else name).lower().strip()
        words = name_words(base)
        if words and len(base) >= MIN_WORD_CHARS:
            found[words[0]].append((base, relation, out))
    return found


def _edges_named_at(
    text: str, at: int, by_first: dict[str, list[tuple[str, int, bool]]]
) -> set[tuple[int, bool]]:
    """(relation, outgoing) of the edges whose neighbour's name `text` writes from `at`."""
    first = _WORD.match(text, at)
    if first is None:
        return set()
    named = set()
    for base, relation, out in by_first.get(first.group(), ()):
        end = at + len(base)
        if text.startswith(base, at) and (end == len(text) or not text[end].isalnum()):
            named.add((relation, out))
    return named


def _most_used(item: tuple[tuple[str, int, bool], int]) -> tuple[int, str, int, bool]:
    """Sort key of a (stem, relation, outgoing) count: the most used first, then by name."""
    (stem, relation, out), count = item
    return (-count, stem, relation, out)


class _PhraseCounter:
    """Counts each word's ``<word> of`` uses, and those before neighbours' names by edge."""

    def __init__(self, analyzer: Tokenizer, stemmer: Tokenizer) -> None:
        self.analyzer = analyzer
        self.stemmer = stemmer
        self.stems: dict[str, str | None] = {}
        self.all_uses: Counter[str] = Counter()
        self.named_uses: Counter[str] = Counter()
        self.by_edge: Counter[tuple[str, int, bool]] = Counter()

    def stem(self, word: str) -> str | None:
        """The word's stem, None for a stopword or a word too short to mean."""
        if word not in self.stems:
            keep = len(word) >= MIN_WORD_CHARS and bool(self.analyzer.tokenize(word))
            stems = self.stemmer.tokenize(word) if keep else []
            self.stems[word] = stems[0] if len(stems) == 1 else None
        return self.stems[word]

    def unlinked(self, words: Iterable[str]) -> None:
        """Count uses in a text whose node has no neighbours."""
        for word in words:
            stem = self.stem(word)
            if stem is not None:
                self.all_uses[stem] += 1

    def use(self, word: str, edges: set[tuple[int, bool]]) -> None:
        """Count one use of `word`, standing before the names of neighbours along `edges`."""
        stem = self.stem(word)
        if stem is None:
            return
        self.all_uses[stem] += 1
        if edges:
            self.named_uses[stem] += 1
        for relation, out in edges:
            self.by_edge[(stem, relation, out)] += 1

    def phrases(self, relation_names: Sequence[str]) -> Phrases:
        """The words that pass the module doc's three tests, by relation, most used first."""
        found: Phrases = {}
        for (stem, relation, out), count in sorted(self.by_edge.items(), key=_most_used):
            if (
                count >= MIN_COUNT
                and count >= MIN_PRECISION * self.named_uses[stem]
                and count >= MIN_LINK * self.all_uses[stem]
            ):
                found.setdefault(relation_names[relation], {})[stem] = "out" if out else "in"
        return found
