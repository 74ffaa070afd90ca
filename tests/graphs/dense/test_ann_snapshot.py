"""`ark graph embed --ann`: indexes stored in the snapshot, and every dense caller reading them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from answer.retrieve import DenseRetriever
from cli.app import build_app
from graphs.dense.ann import AnnIndex, AnnParams
from graphs.dense.build import EmbedRequest, embed_snapshot
from graphs.dense.cosine import CosineIndex
from graphs.dense.embeddings import Embeddings, EmbeddingsError, embed_dir
from graphs.dense.encoder import TextEncoder
from graphs.dense.search import open_vector_index
from graphs.snapshot import Snapshot
from rank.baselines.dense import DenseBaseline
from rank.baselines.dense_strategies import STRATEGIES, StrategyConfig
from tools.dense import DenseSearch

pytest.importorskip("hnswlib")

SMALL = AnnParams(ef_search=16, threads=1)
"""A candidate list below the tiny graph's 23 nodes, so its queries go through the HNSW graph."""


@pytest.fixture
def embedded(tiny: tuple[Path, Path], encoder_dir: Path) -> tuple[Snapshot, TextEncoder]:
    snapshot = Snapshot.open(tiny[0])
    encoder = TextEncoder.load(encoder_dir)
    embed_snapshot(snapshot, encoder, EmbedRequest(variants=["walk"], ann=SMALL))
    return snapshot, encoder


def _embeddings(snapshot: Snapshot) -> Embeddings:
    return Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)


def test_embed_with_ann_records_an_index_per_matrix(
    embedded: tuple[Snapshot, TextEncoder],
) -> None:
    snapshot, _ = embedded
    manifest = _embeddings(snapshot).manifest
    assert list(manifest.ann) == ["plain", "walk"]
    for name, info in manifest.ann.items():
        file = embed_dir(snapshot.path) / info.file
        assert info.file == f"{name}.ann" and file.stat().st_size == info.bytes > 0
        assert info.params == SMALL.record() and len(info.checksum) == 32
    types = snapshot.node_type_codes
    assert isinstance(open_vector_index(_embeddings(snapshot), types), AnnIndex)
    walk = open_vector_index(_embeddings(snapshot), types, variant="walk", mode="ann")
    assert isinstance(walk, AnnIndex) and walk.matrix.shape[0] == snapshot.num_nodes
    assert isinstance(open_vector_index(_embeddings(snapshot), types, mode="exact"), CosineIndex)


def test_without_an_index_auto_scans_and_ann_says_how_to_build_one(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    snapshot = Snapshot.open(tiny[0])
    embed_snapshot(snapshot, TextEncoder.load(encoder_dir), EmbedRequest(variants=[]))
    types = snapshot.node_type_codes
    assert isinstance(open_vector_index(_embeddings(snapshot), types), CosineIndex)
    with pytest.raises(EmbeddingsError, match="--ann"):
        open_vector_index(_embeddings(snapshot), types, mode="ann")


def test_a_changed_index_file_is_refused_and_rebuilt_by_rerunning_embed(
    embedded: tuple[Snapshot, TextEncoder],
) -> None:
    snapshot, encoder = embedded
    file = embed_dir(snapshot.path) / "plain.ann"
    data = bytearray(file.read_bytes())
    data[-5] ^= 0xFF
    file.write_bytes(bytes(data))
    with pytest.raises(EmbeddingsError, match=r"checksum.*ark graph embed .* --ann"):
        open_vector_index(_embeddings(snapshot), snapshot.node_type_codes)
    embed_snapshot(snapshot, encoder, EmbedRequest(variants=["walk"], ann=SMALL))
    assert isinstance(open_vector_index(_embeddings(snapshot), snapshot.node_type_codes), AnnIndex)


def test_rebuilding_a_variant_drops_its_stale_index(
    embedded: tuple[Snapshot, TextEncoder],
) -> None:
    snapshot, encoder = embedded
    changed = EmbedRequest(variants=["walk"], params=EmbedRequest().params.__class__(seed=7))
    manifest = embed_snapshot(snapshot, encoder, changed)
    assert list(manifest.ann) == ["plain"]
    with pytest.raises(EmbeddingsError, match="no ANN index for the walk"):
        open_vector_index(
            _embeddings(snapshot), snapshot.node_type_codes, variant="walk", mode="ann"
        )


def _count_searches(index: AnnIndex, calls: list[int] | None = None) -> list[int]:
    calls = [] if calls is None else calls
    search = index.backend.search

    def counting(query: np.ndarray, count: int, ef: int) -> np.ndarray:
        calls.append(count)
        return search(query, count, ef)

    index.backend.search = counting  # type: ignore[method-assign]
    return calls


def test_dense_search_goes_through_the_index_and_finds_the_exact_top_k(
    embedded: tuple[Snapshot, TextEncoder],
) -> None:
    snapshot, encoder = embedded
    dense = DenseSearch.open(snapshot, encoder)
    exact = DenseSearch.open(snapshot, encoder, search="exact")
    assert isinstance(dense.index, AnnIndex) and isinstance(exact.index, CosineIndex)
    exact.index._torch = None  # scan in float32, as ANN rescores: no float16 ties to break
    calls = _count_searches(dense.index)
    for query in ("red kettle", "Acme lamps", "kitchen appliances"):
        vector = dense.query_vector(query)
        assert set(dense.index.top_k(vector, 5)[0].tolist()) == set(
            exact.index.top_k(vector, 5)[0].tolist()
        )
    assert len(calls) == 3


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dense_baseline_with_ann_returns_what_the_exact_scan_returns(
    embedded: tuple[Snapshot, TextEncoder], strategy: str
) -> None:
    snapshot, encoder = embedded
    config = StrategyConfig(strategy=strategy, budget=4)  # type: ignore[arg-type]
    ann = DenseBaseline(snapshot, encoder, config)
    exact = DenseBaseline(snapshot, encoder, config, search="exact")
    assert isinstance(ann.original, AnnIndex) and isinstance(exact.original, CosineIndex)
    for index in (exact.original, exact.modified):
        if index is not None:  # scan in float32, as ANN rescores: no float16 ties to break
            index._torch = None  # type: ignore[union-attr]
    calls = _count_searches(ann.original)
    if config.needs_variant:
        assert isinstance(ann.modified, AnnIndex)
        _count_searches(ann.modified, calls)
    for question in ("Which kettles does Acme make?", "red lamps", "appliances for a kitchen"):
        assert set(ann.ranked(question)) == set(exact.ranked(question))
    assert calls


def test_sarg_dense_retriever_reads_the_index(embedded: tuple[Snapshot, TextEncoder]) -> None:
    snapshot, encoder = embedded
    retriever = DenseRetriever(snapshot, encoder)
    assert isinstance(retriever.index, AnnIndex)
    calls = _count_searches(retriever.index)
    found = asyncio.run(retriever.retrieve("red kettle", 3))
    vector = encoder.encode(["red kettle"])[0]
    every = np.arange(snapshot.num_nodes)  # the float32 scan, as ANN rescores
    assert set(found) == set(retriever.index.exact.top_k(vector, 3, candidates=every)[0].tolist())
    assert calls


def test_cli_embed_ann_builds_once_and_reports_the_index(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    snapshot = tiny[0]
    runner, app = CliRunner(), build_app()
    args = ["graph", "embed", str(snapshot), "--encoder", str(encoder_dir), "--variants", "plain"]
    first = runner.invoke(app, [*args, "--ann", "--ann-ef-search", "8"])
    assert first.exit_code == 0, first.output
    assert "HNSW (hnswlib, M=16, ef_search=8)" in first.output
    index = embed_dir(snapshot) / "plain.ann"
    stamp = index.stat().st_mtime_ns
    again = runner.invoke(app, [*args, "--ann", "--ann-ef-search", "8", "--json"])
    assert again.exit_code == 0 and index.stat().st_mtime_ns == stamp
    assert json.loads(again.stdout)["ann"]["plain"]["params"]["ef_search"] == 8
    bad = runner.invoke(app, [*args, "--ann", "--ann-storage", "f16"])
    assert bad.exit_code == 2 and "hnswlib stores float32 only" in bad.output
