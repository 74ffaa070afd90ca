"""BM25Index.doc_freqs: how many nodes hold each token, for ordering terms by rarity."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphs.bm25.build import build_index
from graphs.bm25.index import BM25Index
from graphs.bm25.postings import term_ids


def test_doc_freqs_count_nodes_per_token(tmp_path: Path) -> None:
    names = ["Red apple", "Green apple", "Blue sky"]
    texts = ["a red fruit", "a green fruit", "the sky is blue"]
    build_index(tmp_path / "index", names, texts, np.zeros(3, dtype=np.int16))
    index = BM25Index.open(tmp_path / "index")
    assert index.doc_freqs(["apple", "fruit", "sky", "missing"]) == [2, 2, 1, 0]
    assert index.doc_freqs([]) == []


def test_term_ids_find_known_tokens_and_only_those() -> None:
    vocab = np.array(sorted([b"a", b"abc", b"b", "über".encode(), b"zz"]), dtype=np.bytes_)
    tokens = ["a", "abc", "ab", "über", "zzz", "b", "x" * 80]
    assert term_ids(vocab, tokens).tolist() == [0, 1, -1, 4, -1, 2, -1]
    assert term_ids(np.array([], dtype=np.bytes_), ["a"]).tolist() == [-1]
    assert term_ids(vocab, []).size == 0
