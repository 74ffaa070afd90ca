"""BM25Index.doc_freqs: how many nodes hold each token, for ordering terms by rarity."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphs.bm25 import BM25Index, build_index


def test_doc_freqs_count_nodes_per_token(tmp_path: Path) -> None:
    names = ["Red apple", "Green apple", "Blue sky"]
    texts = ["a red fruit", "a green fruit", "the sky is blue"]
    build_index(tmp_path / "index", names, texts, np.zeros(3, dtype=np.int16))
    index = BM25Index.open(tmp_path / "index")
    assert index.doc_freqs(["apple", "fruit", "sky", "missing"]) == [2, 2, 1, 0]
    assert index.doc_freqs([]) == []
