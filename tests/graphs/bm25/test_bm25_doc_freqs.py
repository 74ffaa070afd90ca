"""BM25Index.doc_freqs (how many nodes hold each token, for ordering terms by rarity) and the
vocabulary ids it and the query parse read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphs.bm25 import index as index_module
from graphs.bm25.build import build_index
from graphs.bm25.index import BM25Index
from graphs.bm25.postings import load_vocab, term_ids


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


def test_remembered_token_ids_equal_the_vocabulary_s_also_once_the_memory_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ["Red apple", "Green apple", "Blue sky", "Grey cloud"]
    texts = ["a red fruit", "a green fruit", "the sky is blue", "rain from a cloud"]
    build_index(tmp_path / "index", names, texts, np.zeros(4, dtype=np.int16))
    queries = ["apple fruit", "red sky missing", "cloud rain apple", "blue blue zebra"]
    for limit in (0, 3, 1000):  # nothing remembered, a full memory, everything remembered
        monkeypatch.setattr(index_module, "TOKEN_CACHE_SIZE", limit)
        index = BM25Index.open(tmp_path / "index")
        vocab = load_vocab(tmp_path / "index")
        for _ in range(2):  # the second pass reads what the first remembered
            for query in queries:
                tokens = index.tokenizer.query_tokens(query)
                ids = term_ids(vocab, tokens).tolist()
                wanted = [t for t, i in zip(tokens, ids, strict=True) if i >= 0]
                assert index.matched_terms(query) == wanted
            assert index.doc_freqs(["apple", "fruit", "sky", "missing"]) == [2, 2, 1, 0]
        assert len(index._token_ids) <= limit
