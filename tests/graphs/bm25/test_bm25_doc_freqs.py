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
    vocab = load_vocab(tmp_path / "index")
    batches = [
        ["apple", "fruit", "zebra", "apple"],  # repeated and unknown tokens
        ["sky", "cloud", "rain", "red", "zebra", "sky"],
        ["blue", "grey", "apple", "quark", "green"],
    ]
    for limit in (0, 3, 1000):  # nothing remembered, a full memory, everything remembered
        monkeypatch.setattr(index_module, "TOKEN_CACHE_SIZE", limit)
        index = BM25Index.open(tmp_path / "index")
        for _ in range(2):  # the second pass reads what the first remembered
            for tokens in batches:
                wanted = [int(i) for i in term_ids(vocab, tokens)]
                assert index._ids(tokens) == wanted
                counts = [0 if i < 0 else index._scorer.doc_freq(i) for i in wanted]
                assert index.doc_freqs(tokens) == counts
            assert index.matched_terms("apple sky zebra cloud") == ["apple", "sky", "cloud"]
        distinct = len({token for tokens in batches for token in tokens})
        assert len(index._token_ids) == min(limit, distinct)


def test_holding_all_is_the_brute_force_intersection_of_every_word_s_documents(
    tmp_path: Path,
) -> None:
    """Lists of every length: the rarest word's documents looked up in longer lists, ids past
    a longer list's last, words no document holds, a word written twice."""
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(12)]
    weights = np.linspace(0.05, 0.9, len(words))  # w0 in few documents, w11 in most
    texts = [" ".join(w for w, p in zip(words, weights, strict=True) if rng.random() < p)
             for _ in range(80)]  # fmt: skip
    build_index(tmp_path / "index", [""] * 80, texts, np.zeros(80, dtype=np.int16))
    index = BM25Index.open(tmp_path / "index")
    held = [set(text.split()) for text in texts]
    queries = [[a, b] for a in words for b in words] + [
        list(rng.choice(words, size=3, replace=False)) for _ in range(60)
    ]
    for query in [*queries, ["w0", "nothere"], ["w3", "w3"]]:
        wanted = [node for node, own in enumerate(held) if set(query) <= own]
        assert index.holding_all(" ".join(query)).tolist() == wanted, query
