"""The graph's names a question mentions: linking from the snapshot's name index.

A question is read as its run of words (lower-cased, punctuation dropped, as the name index
normalises names; graphs/names.py). Every run of up to the index's longest name is looked up
at once (one vectorised search over the sorted keys), and the mentions are chosen longest
first: a run inside one already linked is skipped (`glass (container)` is one mention, not
also `glass`). A run that names several nodes (homonyms: `glass` names `glass (container)`
and `glass (material)`) keeps them all: the nodes it names whole first, then those it names
without their disambiguator, each group ordered by the question's BM25 score of each node,
so the question's other words choose between them. Each linked node also carries its *name
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

from graphs.names import name_words, split_disambiguator

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
    taken = [False] * len(words)
    chosen: list[tuple[int, int, list[int], list[bool], bool]] = []
    for a, b in names.runs(words):  # longest runs first
        if any(taken[a:b]):
            continue
        run = words[a:b]
        matches = [m for m in names.lookup(run) if names.confirmed(run, m, snapshot.name(m.node))]
        if not matches:
            continue
        taken[a:b] = [True] * (b - a)
        kept = [m for m in matches if not m.stemmed] or matches
        nodes = [m.node for m in kept]
        bases = [m.base for m in kept]
        chosen.append((a, b, nodes, bases, all(m.stemmed for m in matches)))
    chosen.sort()
    return [
        _scored(snapshot, question, spans, (a, b), nodes, bases, stemmed)
        for a, b, nodes, bases, stemmed in chosen
    ]


def _name_score(snapshot: Snapshot, node: int, text: str) -> float:
    """BM25 of a stemmed mention's node for its own name (less a disambiguator not matched)."""
    query = _matched_name(snapshot.name(node), text)
    return float(snapshot.index.score_nodes(query, np.array([node]))[0])


def _matched_name(name: str, text: str) -> str:
    """The words of `name` a stemmed mention `text` matched."""
    parts = split_disambiguator(name)
    return parts[0] if parts and len(name_words(text)) < len(name_words(name)) else name


def _scored(
    snapshot: Snapshot,
    question: str,
    spans: list[tuple[int, int, str]],
    run: tuple[int, int],
    nodes: list[int],
    bases: list[bool],
    stemmed: bool,
) -> Mention:
    a, b = run
    end = spans[b - 1][1]
    end += question[end : end + 1] == ")"  # a disambiguator's closing parenthesis
    text = question[spans[a][0] : end]
    kept = np.asarray(nodes, dtype=np.int64)
    if len(kept) > 1:  # homonyms: whole names first, then by the question's text
        by_question = snapshot.index.score_nodes(question, kept)
        kept = kept[np.lexsort((kept, -by_question, np.asarray(bases)))[:MAX_HOMONYMS]]
    if stemmed:  # the words as each node's name has them
        name_scores = [_name_score(snapshot, node, text) for node in kept.tolist()]
    else:
        name_scores = snapshot.index.score_nodes(text, kept).tolist()
    return Mention(
        text=text,
        start=a,
        end=b,
        nodes=tuple(int(n) for n in kept),
        name_scores=tuple(name_scores),
        stemmed=stemmed,
    )
