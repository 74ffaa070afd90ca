"""One chunk of documents tokenised into compact postings, in a worker process or inline."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from graphs.bm25.tokenize import Tokenizer
from graphs.errors import GraphError


@dataclass(frozen=True)
class ChunkPostings:
    """The (term, doc, tf) triples of docs ``first_doc ..`` with the chunk's own vocabulary.

    Attributes:
        first_doc: Internal id of the chunk's first document.
        terms: The chunk's distinct tokens, in first-seen order; ``term_ids`` index them.
        term_ids: int32[P], the token of each posting.
        docs: int32[P], absolute doc ids, ascending (postings of a doc are adjacent).
        tf: uint32[P], the token's count in the doc.
        lengths: int64[n], every doc's token count.
    """

    first_doc: int
    terms: list[str]
    term_ids: np.ndarray
    docs: np.ndarray
    tf: np.ndarray
    lengths: np.ndarray


def document_text(name: str, text: str) -> str:
    """The one document BM25 sees for a node: its name, then its text (once when equal)."""
    if not name or text == name:
        return text
    return f"{name}\n{text}" if text else name


def check_strings(first_doc: int, label: str, values: Sequence[object]) -> None:
    """Raise if some value is not a ``str``, naming the node (its internal id).

    Raises:
        GraphError: Saying to use an empty string for a missing name or text.
    """
    bad = next((i for i, value in enumerate(values) if not isinstance(value, str)), None)
    if bad is not None:
        raise GraphError(
            f"node {first_doc + bad} has a {type(values[bad]).__name__} {label}, not a string; "
            "use an empty string for a missing name or text"
        )


def tokenize_chunk(
    tokenizer: Tokenizer, first_doc: int, names: Sequence[str], texts: Sequence[str]
) -> ChunkPostings:
    """Tokenise docs ``first_doc, first_doc + 1, ...`` (a name and text each) into postings.

    Raises:
        GraphError: A name or text is not a ``str``, or names and texts differ in length.
    """
    if len(names) != len(texts):
        raise GraphError(
            f"a batch of nodes from {first_doc} has {len(names)} names and {len(texts)} texts; "
            "give one name and one text per node"
        )
    check_strings(first_doc, "name", names)
    check_strings(first_doc, "text", texts)
    token_lists = tokenizer.tokenize_many(map(document_text, names, texts))
    vocab: defaultdict[str, int] = defaultdict()
    vocab.default_factory = vocab.__len__  # a new token gets the next id
    lengths = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
    tokens = chain.from_iterable(token_lists)
    term_ids = np.fromiter(map(vocab.__getitem__, tokens), np.int64, int(lengths.sum()))
    doc_ids = np.repeat(np.arange(first_doc, first_doc + len(token_lists)), lengths)
    # keys arrive grouped by doc, so the stable (merge) sort is several times faster
    keys = np.sort((doc_ids << 32) | term_ids, kind="stable")
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    counts = np.diff(starts, append=keys.size)
    keys = keys[starts]
    return ChunkPostings(
        first_doc=first_doc,
        terms=list(vocab),
        term_ids=(keys & 0xFFFFFFFF).astype(np.int32),
        docs=(keys >> 32).astype(np.int32),
        tf=counts.astype(np.uint32),
        lengths=lengths,
    )
