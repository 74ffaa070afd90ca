"""The BM25 formula of an index: k1, b and the idf flavour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from graphs.errors import SnapshotError

IdfFlavour = Literal["robertson", "lucene"]
OKAPI_EPSILON = 0.25
"""A negative Okapi idf (a term held by more than half the nodes) becomes this share of the
vocabulary's mean idf, as rank_bm25's ``BM25Okapi`` does: common words still count a little
(measured: +0.4 to +1.1 points top-1 over clipping them to 0, BENCHMARKS.md)."""
IDF_MINIMUM = 0.001
"""The least idf a term can get, so every match scores above 0 (reached only when the
vocabulary's mean idf is below 0.004, i.e. nearly every word is in most nodes)."""


@dataclass(frozen=True)
class BM25Params:
    """How an index scores a term in a document.

    A term in a document scores ``w * tf / (tf + k1 * (1 - b + b * dl / avgdl))`` with
    ``w = (k1 + 1) * idf``; a document scores the sum over the query's distinct terms.

    Attributes:
        k1: Term-frequency saturation.
        b: Length normalisation (0: none, 1: full).
        idf: ``robertson`` (Okapi: ``ln((N - df + 0.5) / (df + 0.5))``, negative values
            replaced as :data:`OKAPI_EPSILON` says, like rank_bm25's ``BM25Okapi``) or
            ``lucene`` (``ln(1 + (N - df + 0.5) / (df + 0.5))``, tantivy's and bm25s'
            default).

    ``dl`` is the document's token count and ``avgdl`` their mean over all documents.
    """

    k1: float = 0.9
    b: float = 0.4
    idf: IdfFlavour = "robertson"

    def __post_init__(self) -> None:
        if not (self.k1 > 0 and 0 <= self.b <= 1 and self.idf in ("robertson", "lucene")):
            raise SnapshotError(
                f"invalid BM25 parameters {self}: need k1 > 0, 0 <= b <= 1 and idf "
                "'robertson' or 'lucene'"
            )

    @classmethod
    def from_meta(cls, info: Mapping[str, object]) -> BM25Params:
        """The parameters an index's ``meta.json`` records.

        Raises:
            SnapshotError: none are recorded or they are unreadable (the message says to
                rebuild the snapshot).
        """
        recorded = info.get("bm25")
        if not isinstance(recorded, Mapping):
            raise SnapshotError(
                f"BM25 parameters in the index metadata are missing or not a map: {recorded!r}; "
                "rebuild the snapshot with `ark graph import ...` (--overwrite)"
            )
        values = dict(recorded)
        if values.pop("exact_lengths", True) is not True:  # format 3 wrote it, always True
            raise SnapshotError(
                "the BM25 index uses quantised document lengths (an older format); rebuild "
                "the snapshot with `ark graph import ...` (--overwrite)"
            )
        try:
            return cls(**values)
        except TypeError as error:
            raise SnapshotError(
                f"unreadable BM25 parameters {recorded!r} ({error}); rebuild the snapshot with "
                "`ark graph import ...` (--overwrite)"
            ) from error

    def describe(self) -> str:
        """One line for people, e.g. ``Okapi idf, k1 0.9, b 0.4, exact lengths``."""
        idf = "Okapi idf" if self.idf == "robertson" else "Lucene idf"
        return f"{idf}, k1 {self.k1:g}, b {self.b:g}, exact lengths"

    def to_meta(self) -> dict[str, object]:
        """The parameters as ``meta.json`` stores them."""
        return asdict(self)

    def term_weights(self, doc_freqs: np.ndarray, num_docs: int) -> np.ndarray:
        """``(k1 + 1) * idf`` in float32 for every vocabulary term, from its document frequency."""
        df = doc_freqs.astype(np.float32)
        ratio = (np.float32(num_docs) - df + np.float32(0.5)) / (df + np.float32(0.5))
        if self.idf == "lucene":
            idf = np.log(np.float32(1) + ratio)
        else:
            idf = np.log(ratio)
            negative = idf < 0
            if negative.any():
                mean = float(idf[doc_freqs > 0].mean())
                idf[negative] = max(OKAPI_EPSILON * mean, IDF_MINIMUM)
            idf = np.maximum(idf, np.float32(IDF_MINIMUM))
        return (idf * np.float32(1 + self.k1)).astype(np.float32)

    def length_factors(self, lengths: np.ndarray, total_tokens: int, num_docs: int) -> np.ndarray:
        """``k1 * (1 - b + b * dl / avgdl)`` in float32 for every document of a field."""
        average = np.float32(total_tokens) / np.float32(max(num_docs, 1))
        if average == 0:
            average = np.float32(1.0)  # no tokens at all: no term can match anyway
        k1, b = np.float32(self.k1), np.float32(self.b)
        return (k1 * ((np.float32(1) - b) + b * lengths.astype(np.float32) / average)).astype(
            np.float32
        )
