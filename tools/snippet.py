"""Snippets: a window of a node's text around its most informative matched query term."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tools.format import ELLIPSIS

if TYPE_CHECKING:
    from graphs.bm25.index import BM25Index
    from graphs.bm25.tokenize import Tokenizer
    from graphs.snapshot import Snapshot


def query_snippets(
    snapshot: Snapshot, query: str, nodes: np.ndarray, names: Sequence[str], width: int
) -> list[str]:
    """Per node, a window of its text around the query's most informative matched term.

    One tokenisation of the query and one batched read of the texts for all nodes. A node
    without text of its own (the store keeps its name as text) gets "": a snippet would only
    repeat the name. All "" when `width` is 0 or no query term is indexed.

    Args:
        snapshot: The graph (texts and the BM25 index with its analyzer).
        query: The query the nodes were ranked by.
        nodes: Internal ids of the listed nodes.
        names: Their names, aligned with `nodes`.
        width: Snippet length in characters.
    """
    index = snapshot.index
    terms = index.matched_terms(query) if width > 0 and len(nodes) else []
    if not terms:
        return [""] * len(nodes)
    ordered = terms_by_weight(index, terms, nodes, names)
    return [
        make_snippet(text, node_terms, width, index.tokenizer) if text != name else ""
        for text, name, node_terms in zip(snapshot.texts(nodes), names, ordered, strict=True)
    ]


def terms_by_weight(
    index: BM25Index, terms: Sequence[str], nodes: np.ndarray, names: Sequence[str]
) -> list[list[str]]:
    """Per node, the query terms ordered for its snippet, most informative first.

    Rarest first: terms are ordered by how many nodes hold them (`BM25Index.doc_freqs`, the
    idf order), so a rare word ("2017", "intelligence") outranks a common one ("on", "the").
    Terms in the node's name go last: the label already shows them, the snippet should show
    why the text matched (a name holds a term as a whole word or, with a stemming analyzer, as
    a word stemmed to it). Ties keep query order. One vocabulary lookup per term per call.

    Args:
        index: The snapshot's BM25 index.
        terms: Index tokens of the query (`BM25Index.matched_terms`).
        nodes: Internal ids of the nodes that get a snippet.
        names: The nodes' names, aligned with `nodes`.

    Returns:
        One list per node, aligned with `nodes`, holding every term.
    """
    if len(terms) < 2 or not len(nodes):  # nothing to order
        return [list(terms) for _ in range(len(nodes))]
    rarity = dict(zip(terms, index.doc_freqs(terms), strict=True))
    by_rarity = sorted(terms, key=rarity.__getitem__)
    tokenizer = index.tokenizer
    if tokenizer.stems:  # a name holds a term when one of its words stems to it
        in_names = [
            [term for term in by_rarity if term in tokens]
            for tokens in map(set, tokenizer.tokenize_many(names))
        ]
    else:  # tokens are lower-cased words: a whole-word search, no tokenizer call
        in_names = [
            [term for term in by_rarity if _word_at(name.lower(), term) >= 0] for name in names
        ]
    ordered = []
    for in_name in in_names:
        if in_name:
            ordered.append([term for term in by_rarity if term not in in_name] + in_name)
        else:
            ordered.append(list(by_rarity))
    return ordered


def best_match(
    text: str, terms: Sequence[str], tokenizer: Tokenizer | None = None
) -> tuple[int, int] | None:
    """(start, end) of the first whole-word, case-insensitive match of the first term found.

    Terms are tried in the given (priority) order, not by position in the text.
    They are index tokens: lower-cased whole alphanumeric runs. Plain `str.find` on the
    lower-cased text, not a regex: compiling a pattern per query cost more than the search.
    With a stemming `tokenizer` (the index's), a word matches when its stem is the term
    ("connected" for the term "connect").
    """
    if tokenizer is not None and tokenizer.stems:
        spans = tokenizer.word_spans(text)
        for term in terms:
            for start, end, token in spans:
                if token == term:
                    return start, end
        return None
    lowered = text.lower()
    if len(lowered) != len(text):  # rare characters whose lower case is longer: no offsets
        return None
    for term in terms:
        position = _word_at(lowered, term)
        if position >= 0:
            return position, position + len(term)
    return None


def _word_at(lowered: str, term: str) -> int:
    """Where `term` first occurs as a whole word in the lower-cased `lowered` (-1: nowhere)."""
    position = lowered.find(term) if term else -1
    while position >= 0:
        end = position + len(term)
        before_ok = position == 0 or not lowered[position - 1].isalnum()
        if before_ok and (end == len(lowered) or not lowered[end].isalnum()):
            return position
        position = lowered.find(term, position + 1)
    return -1


def make_snippet(
    text: str, terms: Sequence[str], width: int, tokenizer: Tokenizer | None = None
) -> str:
    """A window of about `width` characters of `text` around its most informative match.

    `terms` come most informative first (see :func:`terms_by_weight`); the window shows the
    first one that occurs in the text, with some context before it. Without a match the
    snippet is the start of the text. Cut ends are marked with an ellipsis; whitespace runs
    become single spaces. Pass the index's `tokenizer` so that stemmed terms find their words.
    """
    flat = text if _is_flat(text) else " ".join(text.split())
    if width <= 0 or not flat:
        return ""
    start = 0
    found = best_match(flat, terms, tokenizer) if terms else None
    if found and found[1] > width:
        # some context before the match, and a full window when the match is near the end
        wanted = max(0, min(found[0] - width // 4, len(flat) - width))
        start = min(_next_word(flat, wanted), found[0])
    stop = min(len(flat), start + width)
    if stop < len(flat):
        stop = _word_end(flat, start, stop)
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if stop < len(flat) else ""
    return f"{prefix}{flat[start:stop].strip()}{suffix}"


_ASCII_BREAKS = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
"""The ASCII characters other than the space that `str.split` treats as whitespace."""


def _is_flat(text: str) -> bool:
    """True when `text` already has single spaces only (the usual case): no split needed.

    ASCII text (known in O(1)) is checked for its few whitespace characters, each a fast
    substring search; other text with `str.isprintable`, False for every whitespace character
    except the ASCII space (and four times slower).
    """
    if "  " in text or text[:1] == " " or text[-1:] == " ":
        return False
    if text.isascii():
        return not any(character in text for character in _ASCII_BREAKS)
    return text.isprintable()


def _next_word(text: str, position: int) -> int:
    """The start of the first word at or after `position`."""
    if position == 0 or text[position - 1] == " ":
        return position
    space = text.find(" ", position)
    return space + 1 if space >= 0 else position


def _word_end(text: str, start: int, stop: int) -> int:
    space = text.rfind(" ", start, stop + 1)
    return space if space > start else stop
