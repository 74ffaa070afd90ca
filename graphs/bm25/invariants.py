"""Structural invariants of a BM25 index's arrays: cheap ones at open, all of them on verify."""

from __future__ import annotations

import numpy as np

from graphs.bm25 import kernels as bm25_kernels
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings
from graphs.invariants import (
    fail,
    require_ascending_rows,
    require_offsets,
    require_range,
    require_shape,
)
from graphs.layout import INDEX_FIELD, TYPES_FILE, VOCAB_FILE

_INTS = ("int32", "int64")


def check_index(
    num_docs: int,
    postings: FieldPostings,
    impacts: np.ndarray,
    maxima: np.ndarray,
    vocab: np.ndarray,
    types: np.ndarray,
    num_types: int,
) -> None:
    """What the compiled scoring loops read: posting offsets, doc ids, type codes and impacts.

    One vectorised pass over each array the loops read (O(nodes + postings)); impacts and
    maxima must lie in [0, 1], so a damaged score fails here instead of ranking wrongly.

    Raises:
        SnapshotError: an invariant does not hold (the message names the file).
    """
    field = f"index/{INDEX_FIELD}"
    require_shape(f"{field}.lengths.npy", postings.lengths, num_docs, ("uint32",))
    if vocab.ndim != 1 or vocab.dtype.kind != "S":
        raise fail(f"index/{VOCAB_FILE}", f"holds {vocab.dtype}, expected byte strings")
    require_shape(f"{field}.indptr.npy", postings.indptr, len(vocab) + 1, ("int64",))
    total = len(postings.docs)
    require_offsets(f"{field}.indptr.npy", postings.indptr, total)
    require_shape(f"{field}.docs.npy", postings.docs, total, _INTS)
    require_range(f"{field}.docs.npy", postings.docs, 0, num_docs)
    require_shape(f"{field}.tf.npy", postings.tf, total, ("uint16", "uint32"))
    require_shape(f"{field}.impacts.npy", impacts, total, ("float32",))
    require_shape(f"{field}.maxima.npy", maxima, len(vocab), ("float32",))
    for name, values in (("impacts", impacts), ("maxima", maxima)):
        # tf / (tf + factor) lies in [0, 1): a damaged score is caught here, not ranked
        if values.size and not (float(values.min()) >= 0 and float(values.max()) <= 1):
            raise fail(f"{field}.{name}.npy", "holds a value outside [0, 1] (or NaN)")
    require_shape(f"index/{TYPES_FILE}", types, num_docs, ("int16",))
    require_range(f"index/{TYPES_FILE}", types, 0, max(num_types, 1))


def check_index_fully(
    postings: FieldPostings, impacts: np.ndarray, maxima: np.ndarray, vocab: np.ndarray,
    params: BM25Params,
) -> None:  # fmt: skip
    """Every invariant :func:`check_index` leaves out (call it first): orders and values.

    Doc ids ascend within each term, every term frequency is >= 1, the vocabulary is sorted
    and distinct, the token total matches, and the stored impacts and per-term maxima equal
    the ones the BM25 formula gives (so the parameters, lengths and frequencies agree).

    Raises:
        SnapshotError: an invariant does not hold.
    """
    field = f"index/{INDEX_FIELD}"
    require_ascending_rows(f"{field}.docs.npy", postings.docs, postings.indptr, strict=True)
    if postings.tf.size and int(postings.tf.min()) < 1:
        raise fail(f"{field}.tf.npy", "holds a term frequency of 0")
    if vocab.size > 1 and not bool((vocab[1:] > vocab[:-1]).all()):
        raise fail(f"index/{VOCAB_FILE}", "is not sorted and distinct")
    if int(postings.lengths.sum(dtype=np.int64)) != postings.total_tokens:
        raise fail(f"{field}.lengths.npy", "does not add up to the recorded token total")
    factors = params.length_factors(postings.lengths, postings.total_tokens, len(postings.lengths))
    expected = bm25_kernels.posting_impacts(postings.docs, postings.tf, factors)
    if not np.array_equal(expected, impacts):
        raise fail(f"{field}.impacts.npy", "differs from the impacts the BM25 formula gives")
    if not np.array_equal(bm25_kernels.term_maxima(postings.indptr, impacts), maxima):
        raise fail(f"{field}.maxima.npy", "differs from the largest impact of each term")
