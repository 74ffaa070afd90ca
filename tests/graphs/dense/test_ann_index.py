"""The HNSW path of dense search, checked against the exact scan (the reference), small indexes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphs.dense.ann import AnnIndex, AnnParams
from graphs.dense.ann_backends import LIBRARIES
from graphs.dense.ann_build import build_ann_index
from graphs.dense.cosine import CosineIndex
from graphs.dense.gme import normalised
from graphs.errors import ConfigError

NODES, DIM = 1_500, 24


def _library(name: str) -> str:
    pytest.importorskip({"usearch": "usearch.index"}.get(name, name))
    return name


def _clustered(n: int, d: int, seed: int) -> np.ndarray:
    """Unit rows around 30 centres: the shape of real embeddings, HNSW's ordinary case."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((30, d)).astype(np.float32)
    rows = centres[rng.integers(0, 30, n)] + 0.4 * rng.standard_normal((n, d)).astype(np.float32)
    return normalised(rows)


@pytest.fixture(scope="module")
def matrix() -> np.ndarray:
    return _clustered(NODES, DIM, 0).astype(np.float16)


@pytest.fixture(scope="module")
def queries() -> np.ndarray:
    return _clustered(40, DIM, 1)


def _types(n: int) -> np.ndarray:
    types = (np.arange(n) % 4).astype(np.int16)
    types[::97] = 9  # a rare type: 16 nodes
    return types


def _ann(matrix: np.ndarray, tmp: Path, **params: object) -> AnnIndex:
    settings = AnnParams(threads=1, chunk_rows=400, **params)  # type: ignore[arg-type]
    build_ann_index(matrix, tmp / "index.ann", settings)
    return AnnIndex.load(CosineIndex(matrix, _types(len(matrix))), tmp / "index.ann", settings)


@pytest.mark.parametrize("library", LIBRARIES)
def test_ann_with_a_wide_search_equals_the_exact_scan(
    library: str, matrix: np.ndarray, queries: np.ndarray, tmp_path: Path
) -> None:
    ann = _ann(matrix, tmp_path, library=_library(library), ef_search=600)
    every = np.arange(NODES)
    for query in queries:
        ids, scores = ann.top_k(query, 10)
        # the scan in float32 (the scores ANN rescores with), then torch's float16 scan
        exact_ids, exact_scores = ann.exact.top_k(query, 10, candidates=every)
        assert ids.tolist() == exact_ids.tolist()
        np.testing.assert_array_equal(scores, exact_scores)
        np.testing.assert_allclose(scores, ann.exact.top_k(query, 10)[1], atol=2e-3)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("storage", ["f32", "f16"])
def test_ann_recall_at_default_settings_is_near_exact(
    library: str, storage: str, matrix: np.ndarray, queries: np.ndarray, tmp_path: Path
) -> None:
    if library == "hnswlib" and storage == "f16":
        with pytest.raises(ConfigError, match="hnswlib stores float32 only"):
            AnnParams(library="hnswlib", storage="f16")
        return
    ann = _ann(matrix, tmp_path, library=_library(library), storage=storage)
    hits = 0
    for query in queries:
        ids, scores = ann.top_k(query, 20)
        exact_ids, _ = ann.exact.top_k(query, 20)
        hits += len(set(ids.tolist()) & set(exact_ids.tolist()))
        assert np.all(np.diff(scores) <= 0) and len(ids) == 20
        np.testing.assert_array_equal(scores, ann.exact.scores_of(query, ids))
    assert hits / (20 * len(queries)) >= 0.95


def test_filters_and_exclusions_hold_and_match_the_scan(
    matrix: np.ndarray, queries: np.ndarray, tmp_path: Path
) -> None:
    ann = _ann(matrix, tmp_path, ef_search=400)
    searched: list[int] = []
    search = ann.backend.search

    def counting(query: np.ndarray, count: int, ef: int) -> np.ndarray:
        searched.append(count)
        return search(query, count, ef)

    ann.backend.search = counting  # type: ignore[method-assign]
    every = np.arange(NODES)
    for query in queries[:10]:
        exclude = ann.exact.top_k(query, 5)[0]
        ids, _ = ann.top_k(query, 10, node_types=[1, 2], exclude=exclude)
        assert set(ann.node_types[ids].tolist()) <= {1, 2}
        assert not set(ids.tolist()) & set(exclude.tolist())
        expected, _ = ann.exact.top_k(
            query, 10, node_types=[1, 2], exclude=exclude, candidates=every
        )
        assert ids.tolist() == expected.tolist()
    assert len(searched) == 10 and min(searched) >= 400  # the HNSW path, with over-fetch


def test_a_narrow_filter_or_a_huge_k_falls_back_to_the_exact_scan(
    matrix: np.ndarray, queries: np.ndarray, tmp_path: Path
) -> None:
    ann = _ann(matrix, tmp_path, ef_search=16)
    ann.backend.search = lambda *args: pytest.fail("a 16-node type must be scanned")  # type: ignore[method-assign]
    every = np.arange(NODES)
    for query in queries[:5]:
        ids, scores = ann.top_k(query, 10, node_types=[9])
        expected = ann.exact.top_k(query, 10, node_types=[9], candidates=every)
        assert ids.tolist() == expected[0].tolist()
        np.testing.assert_array_equal(scores, expected[1])
        assert ann.top_k(query, NODES)[0].tolist() == ann.exact.top_k(query, NODES)[0].tolist()
        assert len(ann.top_k(query, 5, node_types=[42])[0]) == 0  # a type nobody has


def test_query_scan_and_candidates_behave_like_the_exact_index(
    matrix: np.ndarray, queries: np.ndarray, tmp_path: Path
) -> None:
    ann = _ann(matrix, tmp_path, ef_search=600)
    query = queries[0].astype(np.float16).astype(np.float32)  # float16 and float32 scans agree
    scan, exact_scan = ann.query_scan(query), ann.exact.query_scan(query)
    first = scan.top_k(8)[0]
    assert first.tolist() == exact_scan.top_k(8)[0].tolist()
    second = scan.top_k(8, exclude=first)[0]
    assert second.tolist() == exact_scan.top_k(8, exclude=first)[0].tolist()
    pool = np.arange(0, NODES, 7)
    assert (
        ann.top_k(query, 5, candidates=pool)[0].tolist()
        == ann.exact.top_k(query, 5, candidates=pool)[0].tolist()
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"library": "annoy"}, "choose from hnswlib, faiss, usearch"),
        ({"storage": "i8"}, "f32 or f16"),
        ({"m": 0}, "m must be >= 1"),
        ({"ef_search": 0}, "ef_search must be >= 1"),
        ({"threads": -1}, "threads must be >= 0"),
    ],
)
def test_bad_ann_params_are_clear_errors(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AnnParams(**changes)


def test_record_keeps_what_shapes_the_index() -> None:
    record = AnnParams(threads=3, chunk_rows=7).record()
    assert "threads" not in record and "chunk_rows" not in record
    assert AnnParams.from_record(record) == AnnParams()
