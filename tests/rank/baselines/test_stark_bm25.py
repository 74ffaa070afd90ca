"""`ark baseline bm25 --preset stark` against the `bm25s` library on STaRK-format fixtures."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

bm25s = pytest.importorskip("bm25s")
torch = pytest.importorskip("torch")

from graphs.importers.stark import import_stark  # noqa: E402
from graphs.snapshot import Snapshot  # noqa: E402
from rank.baselines.bm25 import BM25Baseline, StarkBM25Baseline, candidate_nodes  # noqa: E402
from rank.baselines.stark_bm25 import STOPWORDS_EN, StarkBM25, stark_tokens  # noqa: E402
from tests.graphs.importers.test_stark_import import (  # noqa: E402
    PRIME_RELATIONS,
    PRIME_TYPES,
    _save,
    write_amazon,
    write_mag,
    write_prime,
)

WORDS = [
    "cancer",
    "lung",
    "heart",
    "gene",
    "protein",
    "kinase",
    "tumor",
    "suppressor",
    "aspirin",
    "pain",
    "fever",
    "drug",
    "target",
    "pathway",
    "cell",
    "growth",
    "signal",
    "receptor",
    "binding",
    "enzyme",
    "liver",
    "kidney",
    "brain",
    "disorder",
    "syndrome",
    "mutation",
    "expression",
    "inflammation",
    "a",
    "the",
    "of",
    "and",
    "in",
    "to",
]


def write_big_prime(root: Path, size: int = 120, seed: int = 0) -> Path:
    """A STaRK Prime layout with `size` nodes of random detail texts (repeated words, ties)."""
    rng = random.Random(seed)
    kinds = ["disease", "drug", "gene/protein", "anatomy"]
    node_info = {}
    for index in range(size):
        kind = kinds[index % len(kinds)]
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 30)))
        info = {"id": f"N{index}", "type": kind, "name": f"{rng.choice(WORDS)} {index}"}
        info["source"] = "MONDO" if kind == "disease" else "NCBI"
        if kind == "disease":
            info["details"] = {"mondo_definition": words or "none"}
        node_info[index] = info
    edges = [[i, (i + 1) % size, 9] for i in range(size)]
    _save(
        root / "processed",
        node_info=node_info,
        edge_index=torch.LongTensor([[e[0] for e in edges], [e[1] for e in edges]]),
        edge_types=torch.LongTensor([e[2] for e in edges]),
        edge_type_dict=dict(enumerate(PRIME_RELATIONS)),
        node_types=torch.LongTensor([PRIME_TYPES.index(node_info[i]["type"]) for i in range(size)]),
        node_type_dict=dict(enumerate(PRIME_TYPES)),
    )
    return root


def _bm25s_scores(documents: list[str], query: str) -> np.ndarray:
    """Scores as STaRK's `models/bm25.py` computes them: `bm25s` with every default."""
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(documents, show_progress=False), show_progress=False)
    tokens = bm25s.tokenize(query, show_progress=False, return_ids=False)[0]
    if not tokens:
        return np.zeros(len(documents), dtype=np.float32)
    known = [token for token in tokens if token in retriever.vocab_dict]
    if not known:
        return np.zeros(len(documents), dtype=np.float32)
    return np.asarray(retriever.get_scores(known))


QUERIES = [
    "lung cancer gene",
    "What drug targets the kinase receptor in the liver?",
    "pain pain fever",
    "tumor suppressor mutation expression",
    "zzz unknown words",
    "the of and",
    "TP53 p53 lung",
    "Knowledge graphs retrieval",
    "trail running shoe red",
]


@pytest.mark.parametrize(
    ("dataset", "writer"),
    [("prime", write_prime), ("mag", write_mag), ("amazon", write_amazon), ("prime", None)],
    ids=["prime", "mag", "amazon", "prime-120"],
)
def test_stark_preset_ranks_exactly_as_bm25s(tmp_path: Path, dataset: str, writer: object) -> None:
    root = write_big_prime(tmp_path / "raw") if writer is None else writer(tmp_path / "raw")  # type: ignore[operator]
    snapshot = Snapshot.open(import_stark(root, dataset, tmp_path / "snap"))
    baseline = StarkBM25Baseline(snapshot, k=10_000)
    candidates = candidate_nodes(snapshot)
    types = {snapshot.type_name(int(node)) for node in candidates}
    assert types <= set(snapshot.manifest.candidate_types or types)
    documents = snapshot.texts(candidates)
    for query in QUERIES:
        ours = baseline.index.scores(query)
        reference = _bm25s_scores(documents, query)
        np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)
        # identical rankings: by score, ties in candidate order, for both
        expected = np.lexsort((np.arange(len(reference)), -reference))
        ranked = baseline.ranked(query)
        assert ranked == [snapshot.external_id(int(candidates[i])) for i in expected]
        assert len(ranked) == len(candidates)  # every candidate, the zero-scored last


def test_bm25s_retrieve_returns_the_same_top_k_where_scores_differ(tmp_path: Path) -> None:
    raw = write_big_prime(tmp_path / "raw")
    snapshot = Snapshot.open(import_stark(raw, "prime", tmp_path / "s"))
    candidates = candidate_nodes(snapshot)
    documents = snapshot.texts(candidates)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(documents, show_progress=False), show_progress=False)
    index = StarkBM25(documents)
    distinct_queries = 0
    for query in QUERIES[:4]:
        results, scores = retriever.retrieve(
            bm25s.tokenize(query, show_progress=False), k=10, show_progress=False
        )
        ours = index.top(query, 10)
        distinct = len(set(scores[0].tolist())) == 10 and scores[0][-1] > 0
        if distinct:
            distinct_queries += 1
            assert ours.tolist() == results[0].tolist()
        np.testing.assert_allclose(index.scores(query)[ours], np.sort(scores[0])[::-1], rtol=1e-5)
    assert distinct_queries >= 1


def test_stark_preset_indexes_candidates_only_without_relations(tmp_path: Path) -> None:
    out = import_stark(write_mag(tmp_path / "mag"), "mag", tmp_path / "snap")
    snapshot = Snapshot.open(out)
    stark = StarkBM25Baseline(snapshot, k=5)
    assert stark.ranked("Ada Lovelace Stanford")[:0] == []
    everything = BM25Baseline(snapshot, k=5).ranked("Ada Lovelace")
    assert snapshot.type_name(snapshot.internal_id(everything[0])) == "author"
    # the author is not a candidate (papers are): STaRK's index never returns it
    assert all(
        snapshot.type_name(snapshot.internal_id(node)) == "paper"
        for node in stark.ranked("Ada Lovelace")
    )
    assert stark.describe()[1] == {
        "method": "bm25", "preset": "stark", "k": 5, "k1": 1.5, "b": 0.75, "idf": "lucene",
    }  # fmt: skip


def test_tokens_follow_bm25s_defaults() -> None:
    from bm25s.stopwords import STOPWORDS_EN as REFERENCE

    assert frozenset(REFERENCE) == STOPWORDS_EN
    text = "The TP53 gene_x, a tumour-suppressor; I/O of 2 x"
    assert stark_tokens(text) == bm25s.tokenize(text, return_ids=False, show_progress=False)[0]
