"""Per-field inverted postings in numpy: term -> ascending doc ids and term frequencies."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

from graphs.invariants import load_array as _load
from graphs.layout import VOCAB_FILE, posting_file


@dataclass(frozen=True)
class FieldPostings:
    """The inverted index of one field: term id -> sorted doc ids and term frequencies."""

    indptr: np.ndarray  # int64[V + 1]: postings of term t are [indptr[t], indptr[t + 1])
    docs: np.ndarray  # int32[P], ascending within each term
    tf: np.ndarray  # uint16 or uint32[P]
    lengths: np.ndarray  # uint32[N]: every doc's token count
    total_tokens: int

    def doc_freq(self, term: int) -> int:
        """Number of docs whose field holds the term."""
        return int(self.indptr[term + 1] - self.indptr[term])

    @classmethod
    def load(cls, index_dir: Path, field: str, total_tokens: int) -> FieldPostings:
        """Memory-map one field written by :class:`PostingsBuilder`."""
        return cls(
            indptr=_load(posting_file(index_dir, field, "indptr")),
            docs=_load(posting_file(index_dir, field, "docs")),
            tf=_load(posting_file(index_dir, field, "tf")),
            lengths=_load(posting_file(index_dir, field, "lengths")),
            total_tokens=total_tokens,
        )


class PostingsBuilder:
    """Accumulates postings of some fields chunk by chunk of documents, in internal-id order."""

    def __init__(self, fields: Sequence[str]) -> None:
        self._vocab: defaultdict[str, int] = defaultdict()
        self._vocab.default_factory = self._vocab.__len__  # a new token gets the next id
        self._triples: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {
            field: [] for field in fields
        }
        self._lengths: dict[str, list[np.ndarray]] = {field: [] for field in fields}

    def add_chunk(self, field: str, first_doc: int, token_lists: Sequence[list[str]]) -> None:
        """Add the tokens of docs ``first_doc, first_doc + 1, ...`` for one field."""
        lengths = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
        tokens = chain.from_iterable(token_lists)
        term_ids = np.fromiter(map(self._vocab.__getitem__, tokens), np.int64, int(lengths.sum()))
        doc_ids = np.repeat(np.arange(first_doc, first_doc + len(token_lists)), lengths)
        # keys arrive grouped by doc, so the stable (merge) sort is several times faster
        keys = np.sort((doc_ids << 32) | term_ids, kind="stable")
        starts = np.flatnonzero(np.diff(keys, prepend=-1))
        counts = np.diff(starts, append=keys.size)
        keys = keys[starts]
        self._triples[field].append(
            (
                (keys & 0xFFFFFFFF).astype(np.int32),
                (keys >> 32).astype(np.int32),
                counts.astype(np.uint32),
            )
        )
        self._lengths[field].append(lengths)

    def write(self, out_dir: Path) -> dict[str, int]:
        """Write vocabulary and postings as ``.npy`` files; return total tokens per field."""
        keys = list(self._vocab)
        encoded = np.array([key.encode("utf-8") for key in keys] or [b""], dtype=np.bytes_)
        encoded = encoded[: len(keys)]
        order = np.argsort(encoded, kind="stable")
        rank = np.empty(len(keys), dtype=np.int64)
        rank[order] = np.arange(len(keys))
        np.save(out_dir / VOCAB_FILE, encoded[order])
        totals = {}
        for field in self._triples:
            totals[field] = self._write_field(out_dir, field, rank)
        return totals

    def _write_field(self, out_dir: Path, field: str, rank: np.ndarray) -> int:
        triples = self._triples[field]
        terms = rank[np.concatenate([t for t, _, _ in triples] or [np.empty(0, np.int32)])]
        docs = np.concatenate([d for _, d, _ in triples] or [np.empty(0, np.int32)])
        tf = np.concatenate([c for _, _, c in triples] or [np.empty(0, np.uint32)])
        by_term = np.argsort(terms, kind="stable")  # docs stay ascending within a term
        indptr = np.zeros(len(rank) + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=len(rank)), out=indptr[1:])
        tf_dtype = np.uint16 if tf.size == 0 or tf.max() <= np.iinfo(np.uint16).max else np.uint32
        lengths = np.concatenate(self._lengths[field] or [np.empty(0, np.int64)])
        np.save(posting_file(out_dir, field, "indptr"), indptr)
        np.save(posting_file(out_dir, field, "docs"), docs[by_term])
        np.save(posting_file(out_dir, field, "tf"), tf[by_term].astype(tf_dtype))
        np.save(posting_file(out_dir, field, "lengths"), lengths.astype(np.uint32))
        return int(lengths.sum())


def load_vocab(index_dir: Path) -> np.ndarray:
    """The sorted UTF-8 vocabulary (``np.bytes_``) written by :class:`PostingsBuilder`."""
    return _load(index_dir / VOCAB_FILE)


def term_ids(vocab: np.ndarray, tokens: Sequence[str]) -> np.ndarray:
    """Vocabulary id of each token (int64), -1 where no document holds it."""
    if not tokens or not vocab.size:
        return np.full(len(tokens), -1, np.int64)
    encoded = [token.encode("utf-8") for token in tokens]
    # a key longer than every vocabulary entry would be cut to fit the dtype: never a match
    fits = np.fromiter((len(key) <= vocab.itemsize for key in encoded), bool, len(encoded))
    keys = np.array(encoded, dtype=vocab.dtype)
    positions = np.minimum(np.searchsorted(vocab, keys), vocab.size - 1)
    found = fits & (vocab[positions] == keys)
    return np.where(found, positions, -1).astype(np.int64)
