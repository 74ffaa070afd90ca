r"""STaRK's own BM25 baseline (`stark_qa.models.BM25`), reproduced without its dependencies.

STaRK indexes the candidate nodes only, each as ``skb.get_doc_info(idx)`` with its defaults
(no relations; `ark graph import-stark` stores exactly that document as the node's text), with
`bm25s` at its defaults: Lucene idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``, k1 1.5, b 0.75,
and `bm25s.tokenize`'s default analysis (lower-case, tokens of two or more word characters
``(?u)\b\w\w+\b``, the 33 English stopwords, no stemming). A query token counts once per
occurrence, as in `bm25s`; tokens outside the vocabulary are dropped.

The ranking is by score, ties in candidate order (ascending node index, STaRK's
``candidate_ids``); `bm25s` breaks ties arbitrarily, so rankings agree wherever scores
differ (tests/rank/baselines/test_stark_bm25.py checks this against `bm25s` itself). Candidates
that share no word with the query fill the list to k in candidate order, as `bm25s` returns k
documents.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")
STOPWORDS_EN = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
"""The English stopwords of `bm25s` (Lucene's classic list of 33 words)."""


@dataclass(frozen=True, kw_only=True)
class StarkBM25Params:
    """`bm25s.BM25()`'s defaults, which STaRK uses.

    Attributes:
        k1: Term-frequency saturation.
        b: Length normalisation.
    """

    k1: float = 1.5
    b: float = 0.75


def stark_tokens(text: str) -> list[str]:
    """`bm25s.tokenize`'s default analysis of one text (duplicates kept, in order)."""
    return [token for token in TOKEN_PATTERN.findall(text.lower()) if token not in STOPWORDS_EN]


class StarkBM25:
    """A BM25 index over `documents` scored exactly as `bm25s` scores STaRK's corpus.

    Args:
        documents: One text per candidate, in candidate order.
        params: k1 and b.
    """

    def __init__(
        self, documents: Sequence[str], params: StarkBM25Params = StarkBM25Params()
    ) -> None:
        self.params = params
        self.size = len(documents)
        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        terms: list[int] = []
        counts: list[int] = []
        lengths = np.zeros(self.size, dtype=np.float64)
        for row, text in enumerate(documents):
            tokens = stark_tokens(text)
            lengths[row] = len(tokens)
            for token, count in Counter(tokens).items():
                rows.append(row)
                terms.append(vocabulary.setdefault(token, len(vocabulary)))
                counts.append(count)
        self.vocabulary = vocabulary
        term_array = np.asarray(terms, dtype=np.int64)
        order = np.argsort(term_array, kind="stable")
        self._docs = np.asarray(rows, dtype=np.int64)[order]
        self._starts = np.searchsorted(term_array[order], np.arange(len(vocabulary) + 1))
        frequencies = np.diff(self._starts).astype(np.float64)
        self._idf = np.log(1.0 + (self.size - frequencies + 0.5) / (frequencies + 0.5))
        tf = np.asarray(counts, dtype=np.float64)[order]
        average = float(lengths.mean()) if self.size else 1.0
        norm = params.k1 * ((1 - params.b) + params.b * lengths[self._docs] / max(average, 1e-9))
        self._weights = tf / (norm + tf)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for `query` (float32, as `bm25s` accumulates)."""
        total = np.zeros(self.size, dtype=np.float32)
        for token in stark_tokens(query):
            term = self.vocabulary.get(token)
            if term is None:
                continue
            start, stop = self._starts[term], self._starts[term + 1]
            contribution = (self._idf[term] * self._weights[start:stop]).astype(np.float32)
            np.add.at(total, self._docs[start:stop], contribution)
        return total

    def top(self, query: str, k: int) -> np.ndarray:
        """Positions of the k best documents: by score, ties (and zeros) in document order."""
        scores = self.scores(query)
        return np.lexsort((np.arange(self.size), -scores))[:k]
