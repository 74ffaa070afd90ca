"""The BM25 formula of an index: k1, b, the idf flavour and how document lengths are counted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from graphs.errors import SnapshotError

IdfFlavour = Literal["robertson", "lucene"]
IDF_FLOOR = 0.001
"""The least Okapi idf: a term held by half the nodes or more still scores a little, so a query
of only common words finds its nodes (bm25s clips at 0, rank_bm25 lifts negative values to a
quarter of the mean idf, which ranks a term held by 60 % of nodes above one held by 40 %)."""


@dataclass(frozen=True)
class BM25Params:
    """How an index scores a term in a document.

    A term in a document scores ``w * tf / (tf + k1 * (1 - b + b * dl / avgdl))`` with
    ``w = (k1 + 1) * idf``; a document scores the sum over the query's distinct terms.

    Attributes:
        k1: Term-frequency saturation.
        b: Length normalisation (0: none, 1: full).
        idf: ``robertson`` (Okapi: ``max(ln((N - df + 0.5) / (df + 0.5)), IDF_FLOOR)``, see
            :data:`IDF_FLOOR`) or ``lucene`` (``ln(1 + (N - df + 0.5) / (df + 0.5))``,
            tantivy's and bm25s' default).
        exact_lengths: Whether ``dl`` is the document's token count (True) or tantivy's
            one-byte quantised length (indexes written before format 3).
    """

    k1: float = 0.9
    b: float = 0.4
    idf: IdfFlavour = "robertson"
    exact_lengths: bool = True

    def __post_init__(self) -> None:
        if not (self.k1 > 0 and 0 <= self.b <= 1 and self.idf in ("robertson", "lucene")):
            raise SnapshotError(
                f"invalid BM25 parameters {self}: need k1 > 0, 0 <= b <= 1 and idf "
                "'robertson' or 'lucene'; rebuild the snapshot"
            )

    @classmethod
    def from_meta(cls, info: Mapping[str, object]) -> BM25Params:
        """The parameters an index's ``meta.json`` records; tantivy's for older indexes."""
        recorded = info.get("bm25")
        if recorded is None:
            return TANTIVY_PARAMS
        if not isinstance(recorded, Mapping):
            raise SnapshotError(
                f"BM25 parameters in the index metadata are not a map: {recorded!r}"
            )
        try:
            return cls(**dict(recorded))
        except TypeError as error:
            raise SnapshotError(f"unreadable BM25 parameters {recorded!r} ({error})") from error

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
            idf = np.maximum(np.log(ratio), np.float32(IDF_FLOOR))
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


TANTIVY_PARAMS = BM25Params(k1=1.2, b=0.75, idf="lucene", exact_lengths=False)
"""What indexes of formats 1 and 2 (tantivy-scored) used: same scores as before."""
