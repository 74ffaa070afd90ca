"""Per-field inverted postings in numpy that score any node set with tantivy's exact BM25."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

K1 = np.float32(1.2)
B = np.float32(0.75)
VOCAB_FILE = "vocab.npy"


def fieldnorm_table() -> np.ndarray:
    """Return the 256 document lengths a one-byte fieldnorm id stands for (tantivy/Lucene).

    Ids below 24 are exact lengths; above, three mantissa bits and an exponent give a
    log scale, so long fields share a quantised length.
    """
    ids = np.arange(256, dtype=np.int64)
    exp_part = np.maximum(ids - 24, 0)
    bits, shift = exp_part & 7, exp_part >> 3
    scaled = np.where(shift == 0, bits, (bits | 8) << np.maximum(shift - 1, 0))
    return np.where(ids < 24, ids, 24 + scaled).astype(np.uint32)


def fieldnorm_ids(lengths: np.ndarray) -> np.ndarray:
    """Quantise field lengths (token counts) to tantivy's one-byte fieldnorm ids."""
    table = fieldnorm_table().astype(np.int64)
    return (np.searchsorted(table, lengths.astype(np.int64), side="right") - 1).astype(np.uint8)


@dataclass(frozen=True)
class FieldPostings:
    """The inverted index of one field: term id -> sorted doc ids and term frequencies."""

    indptr: np.ndarray  # int64[V + 1]: postings of term t are [indptr[t], indptr[t + 1])
    docs: np.ndarray  # int32[P], ascending within each term
    tf: np.ndarray  # uint16 or uint32[P]
    norm_ids: np.ndarray  # uint8[N]: fieldnorm id of every doc
    total_tokens: int


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
        np.save(out_dir / f"{field}.indptr.npy", indptr)
        np.save(out_dir / f"{field}.docs.npy", docs[by_term])
        np.save(out_dir / f"{field}.tf.npy", tf[by_term].astype(tf_dtype))
        np.save(out_dir / f"{field}.norms.npy", fieldnorm_ids(lengths))
        return int(lengths.sum())


def _load(path: Path) -> np.ndarray:
    # a plain ndarray view of the memmap slices several times faster than the memmap itself
    return np.asarray(np.load(path, mmap_mode="r"))


class PostingsScorer:
    """BM25 of query terms for arbitrary doc sets, with the statistics tantivy uses.

    tantivy scores a term in a field as ``w * tf / (tf + k1 * (1 - b + b * dl / avgdl))``
    with ``w = boost * (1 + k1) * ln(1 + (N - df + 0.5) / (df + 0.5))``, ``dl`` the quantised
    field length and ``avgdl`` the field's total tokens over all docs, all in float32. This
    class repeats that arithmetic in float32 numpy.
    """

    def __init__(self, vocab: np.ndarray, fields: dict[str, FieldPostings], num_docs: int) -> None:
        self.vocab = vocab
        self.fields = fields
        self.num_docs = num_docs
        table = fieldnorm_table().astype(np.float32)
        self._norm_cache = {}
        for field, postings in fields.items():
            average = np.float32(postings.total_tokens) / np.float32(max(num_docs, 1))
            if average == 0:
                average = np.float32(1.0)  # no tokens at all: no term can match anyway
            self._norm_cache[field] = K1 * ((np.float32(1) - B) + B * table / average)

    @classmethod
    def load(cls, index_dir: Path, totals: dict[str, int], num_docs: int) -> PostingsScorer:
        """Memory-map the postings written by :class:`PostingsBuilder` (fields of ``totals``)."""
        fields = {
            field: FieldPostings(
                indptr=_load(index_dir / f"{field}.indptr.npy"),
                docs=_load(index_dir / f"{field}.docs.npy"),
                tf=_load(index_dir / f"{field}.tf.npy"),
                norm_ids=_load(index_dir / f"{field}.norms.npy"),
                total_tokens=totals[field],
            )
            for field in totals
        }
        return cls(_load(index_dir / VOCAB_FILE), fields, num_docs)

    def term_id(self, token: str) -> int | None:
        """Return the vocabulary id of a token, or None when no document holds it."""
        key = token.encode("utf-8")
        if not self.vocab.size or len(key) > self.vocab.itemsize:
            return None
        position = int(np.searchsorted(self.vocab, key))
        if position < self.vocab.size and self.vocab[position] == key:
            return position
        return None

    def doc_freq(self, field: str, term: int) -> int:
        """Number of docs whose ``field`` holds the term."""
        indptr = self.fields[field].indptr
        return int(indptr[term + 1] - indptr[term])

    def weight(self, field: str, term: int, boost: float) -> np.float32:
        """The term's ``boost * (1 + k1) * idf`` in float32, as tantivy computes it."""
        df = self.doc_freq(field, term)
        ratio = (np.float32(self.num_docs - df) + np.float32(0.5)) / (
            np.float32(df) + np.float32(0.5)
        )
        idf = np.log(np.float32(1) + ratio)
        return np.float32(np.float32(idf * (np.float32(1) + K1)) * np.float32(boost))

    def score(self, terms: Sequence[int], docs: np.ndarray, boosts: dict[str, float]) -> np.ndarray:
        """Sum of boosted per-field BM25 over ``terms`` for sorted, distinct int32 ``docs``."""
        scores = np.zeros(docs.size, dtype=np.float32)
        for term in terms:
            for field, boost in boosts.items():
                if self.doc_freq(field, term):
                    self._add_term(scores, docs, field, term, boost)
        return scores

    def _add_term(
        self, scores: np.ndarray, docs: np.ndarray, field: str, term: int, boost: float
    ) -> None:
        postings = self.fields[field]
        start, stop = int(postings.indptr[term]), int(postings.indptr[term + 1])
        posting_docs = postings.docs[start:stop]
        if posting_docs.size <= docs.size:
            where = np.searchsorted(docs, posting_docs)
            hit = where < docs.size
            hit[hit] = docs[where[hit]] == posting_docs[hit]
            doc_index, posting_index = where[hit], np.flatnonzero(hit)
        else:
            where = np.searchsorted(posting_docs, docs)
            hit = where < posting_docs.size
            hit[hit] = posting_docs[where[hit]] == docs[hit]
            doc_index, posting_index = np.flatnonzero(hit), where[hit]
        if not doc_index.size:
            return
        tf = postings.tf[start + posting_index].astype(np.float32)
        norm = self._norm_cache[field][postings.norm_ids[docs[doc_index]]]
        scores[doc_index] += self.weight(field, term, boost) * tf / (tf + norm)
