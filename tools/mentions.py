"""The graph's names a question mentions: linking from the snapshot's name index.

A question is read as its run of words (lower-cased, punctuation dropped, as the name index
normalises names; graphs/names.py). Every run of up to the index's longest name is looked up
at once (one vectorised search over the sorted keys), and the mentions are chosen longest
first: a run inside one already linked is skipped (`glass (container)` is one mention, not
also `glass`). A run that names several nodes (homonyms: `glass` names `glass (container)`
and `glass (material)`) keeps them all, ordered by the question's BM25 score of each node, so
the question's other words choose between them. Each linked node also carries its *name
score*: the BM25 score of the mention's own words for that node, how strongly the words
name it (a rare name scores high, a common word low), on the scale of search scores.

Used by the `search` tool (its "names in the query" block), the offline planner and the
plan executor alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphs.names import key_hash, name_words, split_disambiguator

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

MAX_HOMONYMS = 5
"""Nodes kept for one mention (the best by the question's text)."""
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Mention:
    """A run of the question's words that names nodes of the graph.

    Attributes:
        text: The words as written in the question (from the first to the last word).
        start: Index of its first word among the question's words.
        end: Index after its last word.
        nodes: Internal ids of the nodes it names, best first by the question's BM25.
        name_scores: BM25 of the mention's words for each of those nodes.
        stemmed: Whether it matched only after stemming.
    """

    text: str
    start: int
    end: int
    nodes: tuple[int, ...]
    name_scores: tuple[float, ...]
    stemmed: bool = False


def question_words(question: str) -> list[tuple[int, int, str]]:
    """(start, end, lower-cased word) of each word of the question."""
    return [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(question)]


def find_mentions(snapshot: Snapshot, question: str) -> list[Mention]:
    """The mentions of the snapshot's node names in `question`, in question order."""
    spans = question_words(question)
    words = [word for _, _, word in spans]
    names = snapshot.names
    longest = min(names.max_words, len(words))
    runs = [(i, i + n) for n in range(longest, 0, -1) for i in range(len(words) - n + 1)]
    if not runs or not len(names.keys):
        return []
    stems = names.name_forms.stems(words)
    exact = np.array([key_hash(0, words[a:b]) for a, b in runs], dtype=np.uint64)
    stemmed = np.array([key_hash(1, stems[a:b]) for a, b in runs], dtype=np.uint64)
    found = _present(names.keys, exact) | _present(names.keys, stemmed)
    taken = np.zeros(len(words), dtype=bool)
    chosen: list[tuple[int, int, list[int], bool]] = []
    for (a, b), hit in zip(runs, found.tolist(), strict=True):  # longest runs first
        if not hit or taken[a:b].any():
            continue
        run = words[a:b]
        matches = [m for m in names.lookup(run) if names.confirmed(run, m, snapshot.name(m.node))]
        if not matches:
            continue
        taken[a:b] = True
        nodes = [m.node for m in matches if not m.stemmed] or [m.node for m in matches]
        chosen.append((a, b, nodes, all(m.stemmed for m in matches)))
    chosen.sort()
    return [_scored(snapshot, question, spans, a, b, nodes, st) for a, b, nodes, st in chosen]


def _name_score(snapshot: Snapshot, node: int, stemmed: bool, text: str) -> float:
    query = _matched_name(snapshot.name(node), stemmed, text)
    return float(snapshot.index.score_nodes(query, np.array([node]))[0])


def _matched_name(name: str, stemmed: bool, text: str) -> str:
    """The words of `name` the mention matched (its own, or the name's when stemmed)."""
    if not stemmed:
        return text
    parts = split_disambiguator(name)
    return parts[0] if parts and len(name_words(text)) < len(name_words(name)) else name


def _present(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Which of `wanted` occur in the sorted `keys` (one binary search each)."""
    positions = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.asarray(keys[positions] == wanted)


def _scored(
    snapshot: Snapshot,
    question: str,
    spans: list[tuple[int, int, str]],
    a: int,
    b: int,
    nodes: list[int],
    stemmed: bool,
) -> Mention:
    end = spans[b - 1][1]
    end += question[end : end + 1] == ")"  # a disambiguator's closing parenthesis
    text = question[spans[a][0] : end]
    array = np.asarray(nodes, dtype=np.int64)
    by_question = snapshot.index.score_nodes(question, array)
    order = np.lexsort((array, -by_question))[:MAX_HOMONYMS]
    kept = array[order]
    name_scores = [  # the words as the node's name has them (a stem or a base matched)
        _name_score(snapshot, node, stemmed, text) for node in kept.tolist()
    ]
    return Mention(
        text=text,
        start=a,
        end=b,
        nodes=tuple(int(n) for n in kept),
        name_scores=tuple(name_scores),
        stemmed=stemmed,
    )
