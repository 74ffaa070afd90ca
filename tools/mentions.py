"""The graph's names a question mentions: linking from the snapshot's name index.

A question is read as its run of words (lower-cased, punctuation dropped, as the name index
normalises names; graphs/snapshot/names.py). Every run of up to the index's longest name is looked
up at once (one pair of binary searches over the sorted keys), and the mentions are chosen longest
first: a run inside one already linked is skipped (`glass (container)` is one mention, not
also `glass`). A run links the nodes it names as written; else those it names after
stemming, and of those, the ones whose names it writes with regular inflections only
(plurals, -ed, -ing) when there are any (`graphs/snapshot/name_keys.py`'s
`inflection_alike`: "canals" is `canal (watercourse)`, "measuring" the verb `measure`;
Snowball's stems `canal` and `measur` are also those of `canalization` and `measurement`,
words derived from them). Where the graph gives its nodes aliases (graphs/snapshot/aliases.py:
WordNet's `Canis` is also "genus Canis"), a run links the nodes it names by an alias only when
it names none by its name, in the same order of forms; the longest run still wins. The
schema's names come before a node's
(graphs/snapshot/schema_words.py): a run that matches only after stemming and is, stemmed, a
node type's name, or a word of one no other type's name holds, names that type, not a node
(`packages` in "Which packages depend on X?" is the type `package`, not the node
`packaging`; "animals" is WordNet's `noun.animal`, not `animation`), as does a run that
names nodes only without their disambiguators and is a type's whole name ("the json
module": Python's type `module`, not the class `Module (modulefinder)`), and a run that is,
stemmed, a whole relation label, or the word that tells a label from its siblings, names
that relation, not the node of that name (WordNet has nodes `attribute`, `cause` and `topic`
beside its relations `attribute`, `causes` and `topic_domain`: "Which attribute of a sound
does loud describe?" asks for a walk along `attribute`, not about the concept; "the topic of
tennis" along `topic_domain`). A run that names several nodes (homonyms: `glass` names
`glass (container)` and `glass (material)`) keeps them all: the nodes it names whole first,
then those it names without their disambiguator, each group ordered by the question's other
words (each node's BM25 score for the question without the mention) plus the log of how
linked each node is in the graph, so the question's other words choose between them and the
commoner sense comes first when they do not (`_homonym_order`). Each linked node carries
that score, the one `search` gives it for the question (up to float32 rounding). Each word
of the question is scored once for every linked node (`BM25Index.term_scores`); the question
and the question without a mention are sums of those rows, equal to scoring each text on its
own.

Each mention also says how the graph's text uses its words (`Mention.texts`, `.near`): how
many node documents hold them all, and how many of those are the named node or its
neighbours. A name whose words most documents hold far from it (`tree`, `file` among
Debian's packages) is mostly used there as words: a question holding them may describe
something else with them, where a name used near its node (`Onchocerciasis`, `Pet
Carriers`) names that node. This is the link probability of entity linking (Mihalcea and
Csomai 2007; Milne and Witten 2008), counted over the graph's own documents and edges.
A run whose words the index drops (stopwords only) names nothing and is not a mention;
an inflected one no document holds as written is counted by its node's name.

Used by the `search` tool (its "names in the query" block), the offline planner and the
plan executor alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphs.snapshot.name_keys import base_words, inflection_alike

if TYPE_CHECKING:
    from graphs.bm25.index import TermScores
    from graphs.snapshot import Snapshot
    from graphs.snapshot.names import RunMatches

MAX_HOMONYMS = 5
"""Nodes kept for one mention (the best by the question's text)."""
LOOSE_SHARE = 0.05
"""A mention whose words the documents near its node hold less than this share of the time
is loose (`Mention.loose`): used as words more than as the name (a link probability below
about 5% marks a phrase as rarely a link in the entity-linking studies cited above)."""
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Mention:
    """A run of the question's words that names nodes of the graph.

    Attributes:
        text: The words as written in the question (from the first to the last word).
        start: Index of its first word among the question's words.
        end: Index after its last word.
        nodes: Internal ids of the nodes it names, best first.
        scores: The question's BM25 score of each of those nodes.
        stemmed: Whether it matched only after stemming.
        texts: Node documents holding every indexed word of the mention.
        near: Those that are its first node or one of that node's neighbours (None: not
            counted, as fewer than 1 / LOOSE_SHARE texts hold the words, the node's among
            them: the mention cannot be loose).
    """

    text: str
    start: int
    end: int
    nodes: tuple[int, ...]
    scores: tuple[float, ...]
    stemmed: bool = False
    texts: int = 1
    near: int | None = None

    @property
    def loose(self) -> bool:
        """Whether the graph's text mostly uses the mention's words away from its node."""
        return self.near is not None and loose(self.texts, self.near)


def loose(texts: int, near: int) -> bool:
    """Whether words `texts` documents hold, `near` of them near the named node, are loose."""
    return near < LOOSE_SHARE * texts


def question_words(question: str) -> list[tuple[int, int, str]]:
    """(start, end, lower-cased word) of each word of the question."""
    return [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(question)]


def find_mentions(snapshot: Snapshot, question: str) -> list[Mention]:
    """The mentions of the snapshot's node names in `question`, in question order."""
    spans = question_words(question)
    words = [word for _, _, word in spans]
    names = snapshot.names
    type_stems, whole_types = snapshot.type_name_stems, snapshot.type_whole_stems
    relation_stems = snapshot.relation_name_stems
    taken = [False] * len(words)
    chosen: list[tuple[RunMatches, list[int]]] = []
    for candidate in names.runs(words):  # longest runs first
        a, b = candidate.start, candidate.end
        if any(taken[a:b]):
            continue
        run = names.matches(candidate)
        kept = _first_form(snapshot, words[a:b], run)
        if kept is None:
            continue  # hash collisions only
        stems = tuple(names.name_forms.stems(words[a:b]))
        if run.stemmed[kept[0]] and stems in type_stems:  # the kept nodes share one form
            continue  # "packages" names the type `package`, not the node `packaging`
        if all(run.base[at] for at in kept) and stems in whole_types:
            continue  # "the json module": the type `module`, not `Module (modulefinder)`
        if stems in relation_stems:
            continue  # "which attribute of loud": the relation `attribute`, not its node
        taken[a:b] = [True] * (b - a)
        chosen.append((run, kept))
    chosen.sort(key=lambda pair: pair[0].start)
    every = np.array([run.nodes[at] for run, kept in chosen for at in kept], dtype=np.int64)
    table = snapshot.index.term_scores(question, every)  # each word scored once for all
    whole = table.whole(every).astype(np.float64)
    mentions = []
    offset = 0
    for run, kept in chosen:
        found = every[offset : offset + len(kept)]
        by_question = whole[offset : offset + len(kept)]
        offset += len(kept)
        a, b = run.start, run.end
        end = spans[b - 1][1]
        end += question[end : end + 1] == ")"  # a disambiguator's closing parenthesis
        text = question[spans[a][0] : end]
        if not snapshot.index.tokenize(text):
            continue  # stopwords only: not a name's use
        bases = [run.base[at] for at in kept]
        order = _homonym_order(snapshot, table, question, text, found, by_question, bases)
        order = _confirmed(snapshot, words[a:b], run, kept, order)
        first = int(found[order[0]])
        texts, near = usage(snapshot, text, first)
        mentions.append(
            Mention(
                text=text,
                start=a,
                end=b,
                nodes=tuple(found[order].tolist()),
                scores=tuple(by_question[order].tolist()),
                stemmed=run.stemmed[kept[0]],
                texts=texts,
                near=near,
            )
        )
    return mentions


def _first_form(snapshot: Snapshot, words: list[str], run: RunMatches) -> list[int] | None:
    """Which of a run's nodes (positions) it links.

    Those it names by their names before those it names by an alias (graphs/snapshot/
    aliases.py); within each, those it names as written when one of them is confirmed
    (`NameIndex.confirmed`: keys are hashes), else those it names after stemming; None: none.
    """
    for by_alias, stemmed in ((False, False), (False, True), (True, False), (True, True)):
        group = [
            at
            for at, (flag, alias) in enumerate(zip(run.stemmed, run.alias, strict=True))
            if flag == stemmed and alias == by_alias
        ]  # an empty group confirms nothing
        if any(_is_named(snapshot, words, run, at) for at in group):
            if not stemmed or len(group) == 1:
                return group
            inflected = [at for at in group if _is_inflected(snapshot, words, run, at)]
            return inflected or group
    return None


def _is_inflected(snapshot: Snapshot, words: list[str], run: RunMatches, at: int) -> bool:
    """Whether the run's `at`-th node's name (its base, for a base match) is `words` inflected."""
    return any(
        inflection_alike(base_words(name, run.base[at]), words)
        for name in _matched_names(snapshot, run, at)
    )


def _confirmed(
    snapshot: Snapshot, words: list[str], run: RunMatches, kept: list[int], order: np.ndarray
) -> np.ndarray:
    """The best `MAX_HOMONYMS` of `order` (positions in `kept`) that really bear the name."""
    named: list[int] = []
    for at in order.tolist():
        if len(named) == MAX_HOMONYMS:
            break
        if _is_named(snapshot, words, run, kept[at]):
            named.append(at)
    return np.asarray(named, dtype=np.int64)


def _is_named(snapshot: Snapshot, words: list[str], run: RunMatches, at: int) -> bool:
    """Whether the run's `at`-th node's name (or alias) normalises to `words` (keys are hashes)."""
    return any(
        snapshot.names.confirmed(words, run.stemmed[at], run.base[at], name)
        for name in _matched_names(snapshot, run, at)
    )


def _matched_names(snapshot: Snapshot, run: RunMatches, at: int) -> list[str]:
    """The name, or the aliases, the run's `at`-th node was matched on."""
    node = run.nodes[at]
    return snapshot.names.aliases(node) if run.alias[at] else [snapshot.name(node)]


def _homonym_order(
    snapshot: Snapshot,
    table: TermScores,
    question: str,
    text: str,
    found: np.ndarray,
    by_question: np.ndarray,
    bases: list[bool],
) -> np.ndarray:
    """The order of the nodes one mention names, best first.

    The nodes it names whole come first. Among homonyms the name's own words choose nothing
    (every one holds them; a short text repeating the name scores highest), so the
    question's other words choose (each node's BM25 score for the question without the
    mention) added to a prior from the graph, the log of each node's links (the commoner
    sense is the better linked: WordNet's `dog (canine)`, with its hundred kinds of dog,
    before `dog (chap)`; a word as common as "all" in the question does not outweigh it, a
    phrase of the node's own text does), then the whole question's score. Context plus a
    commonness prior is how entity linkers rank candidates (Milne and Witten 2008).
    """
    if found.size == 1:
        return np.zeros(1, dtype=np.int64)
    rest = question.replace(text, " ", 1)
    summed = table.total(snapshot.index.query_terms(rest), found)
    by_rest = np.asarray(
        snapshot.index.score_nodes(rest, found) if summed is None else summed, dtype=np.float64
    )
    fit = by_rest + np.log1p(snapshot.degrees[found])
    keys = (found, -by_question, -fit, np.asarray(bases))
    return np.lexsort(keys)


def usage(snapshot: Snapshot, text: str, node: int) -> tuple[int, int | None]:
    """How the graph's text uses `text`'s words.

    Returns:
        (documents holding them all, those that are `node` or its neighbours; None when not
        counted: few documents, `node`'s among them, see `Mention.near`).
    """
    holding = snapshot.index.holding_all(text)
    if not holding.size:  # an inflected mention ("Highball Glasses") no document holds
        holding = snapshot.index.holding_all(snapshot.name(node))
    at = int(np.searchsorted(holding, node))
    if holding.size * LOOSE_SHARE <= 1 and at < holding.size and holding[at] == node:
        return int(holding.size), None  # few texts, the node's among them: never loose
    if not holding.size:
        return 0, 0
    around = snapshot.neighbors(node).nodes
    places = np.minimum(np.searchsorted(holding, around), holding.size - 1)
    near = set(around[holding[places] == around].tolist())  # a neighbour counts once
    if at < holding.size and holding[at] == node:
        near.add(node)
    return int(holding.size), len(near)
