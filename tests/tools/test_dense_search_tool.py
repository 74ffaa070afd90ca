"""The optional dense_search tool: schema from the single source, exact cosine, bad calls."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphs.dense.build import EmbedRequest, embed_snapshot
from graphs.dense.cosine import CosineIndex
from graphs.dense.embeddings import EmbeddingsError
from graphs.dense.encoder import TextEncoder
from graphs.dense.search import open_snapshot_index
from graphs.snapshot import Snapshot
from rank.baselines.dense import DenseBaseline
from rank.baselines.dense_strategies import StrategyConfig
from tools.config import ToolConfig
from tools.dense import DenseSearch
from tools.schemas import tool_schemas
from tools.toolset import Toolset


@pytest.fixture
def dense_setup(tiny: tuple[Path, Path], encoder_dir: Path) -> tuple[Snapshot, DenseSearch]:
    snapshot = Snapshot.open(tiny[0])
    encoder = TextEncoder.load(encoder_dir)
    embed_snapshot(snapshot, encoder, EmbedRequest(variants=[]))
    return snapshot, DenseSearch.open(snapshot, encoder)


def _config(encoder_dir: Path, **changes: object) -> ToolConfig:
    return ToolConfig(enable_dense_search=True, dense_encoder=str(encoder_dir), **changes)  # type: ignore[arg-type]


def test_dense_search_is_off_by_default_and_offered_when_switched_on(encoder_dir: Path) -> None:
    names = [s["function"]["name"] for s in tool_schemas(ToolConfig())]
    assert "dense_search" not in names
    schemas = tool_schemas(_config(encoder_dir), node_types=["product", "brand"])
    dense = next(s["function"] for s in schemas if s["function"]["name"] == "dense_search")
    assert [s["function"]["name"] for s in schemas][:2] == ["search", "dense_search"]
    assert dense["parameters"]["required"] == ["query"]
    assert dense["parameters"]["properties"]["node_types"]["items"]["enum"] == ["product", "brand"]
    assert all(p["description"] for p in dense["parameters"]["properties"].values())
    no_filters = tool_schemas(_config(encoder_dir, type_filters=False))
    dense = next(s["function"] for s in no_filters if s["function"]["name"] == "dense_search")
    assert "node_types" not in dense["parameters"]["properties"]


def test_switching_on_without_an_encoder_or_a_backend_is_a_clear_error(
    tiny: tuple[Path, Path],
) -> None:
    with pytest.raises(ValueError, match="dense_encoder"):
        ToolConfig(enable_dense_search=True)
    with pytest.raises(ValueError, match=r"DenseSearch\.open"):
        Toolset(Snapshot.open(tiny[0]), ToolConfig(enable_dense_search=True, dense_encoder="x"))


def test_dense_search_returns_the_exact_cosine_top_k(
    dense_setup: tuple[Snapshot, DenseSearch], encoder_dir: Path
) -> None:
    snapshot, dense = dense_setup
    toolset = Toolset(snapshot, _config(encoder_dir), dense=dense)
    observation = toolset.call("dense_search", {"query": "a green lamp made by Globex", "k": 4})
    assert observation.error is None
    query = dense.encoder.encode_query("a green lamp made by Globex")
    matrix = dense.index.matrix.astype(np.float32)
    exact = matrix @ query
    fourth_best = np.sort(exact)[-4]
    shown = [snapshot.internal_id(node_id) for node_id in observation.node_ids]
    # the same top 4 up to float16 rounding of the query (near-ties may swap)
    assert len(shown) == 4 and all(exact[node] >= fourth_best - 2e-3 for node in shown)
    np.testing.assert_allclose(observation.scores, exact[shown], atol=2e-3)
    assert observation.scores == sorted(observation.scores, reverse=True)
    first = observation.text.splitlines()[0]
    assert first == '4 results for "a green lamp made by Globex":'
    assert f"[{observation.node_ids[0]}]" in observation.text.splitlines()[1]


def test_dense_search_type_filter_and_bad_calls(
    dense_setup: tuple[Snapshot, DenseSearch], encoder_dir: Path
) -> None:
    snapshot, dense = dense_setup
    toolset = Toolset(snapshot, _config(encoder_dir), dense=dense)
    brands = toolset.call("dense_search", {"query": "appliance maker", "node_types": ["brand"]})
    assert brands.node_ids and all(node.startswith("b") for node in brands.node_ids)
    unknown = toolset.call("dense_search", {"query": "x", "node_types": ["planet"]})
    assert unknown.error is not None and "brand" in unknown.error.message
    lone = toolset.call("dense_search", {"query": "x", "node_types": "brand"})
    assert lone.error is not None and '["brand"]' in lone.error.message
    missing = toolset.call("dense_search", {})
    assert missing.error is not None and missing.error.kind == "bad_arguments"
    capped = toolset.call("dense_search", {"query": "lamp", "k": 500})
    assert "above the maximum" in capped.text and len(capped.node_ids) == snapshot.num_nodes
    empty = toolset.call("dense_search", {"query": "   "})
    assert empty.error is None and "empty query" in empty.text
    off = Toolset(snapshot).call("dense_search", {"query": "lamp"})
    assert off.error is not None and off.error.kind == "unknown_tool"


def test_dense_search_refuses_embeddings_of_another_encoder(
    dense_setup: tuple[Snapshot, DenseSearch],
) -> None:
    snapshot, dense = dense_setup
    other = TextEncoder(dense.encoder._model, dense.encoder.path, "f" * 64)
    with pytest.raises(EmbeddingsError, match="made by encoder") as tool_error:
        DenseSearch.open(snapshot, other)
    # the one opener: the dense baseline refuses the same encoder with the same words
    with pytest.raises(EmbeddingsError) as baseline_error:
        DenseBaseline(snapshot, other, StrategyConfig())
    assert str(baseline_error.value) == str(tool_error.value)
    assert f"--encoder {dense.encoder.path} --overwrite" in str(tool_error.value)
    exact = open_snapshot_index(snapshot, encoder=dense.encoder, mode="exact")
    np.testing.assert_array_equal(exact.matrix, dense.index.matrix)


def test_cosine_index_numpy_path_matches_torch_path(
    dense_setup: tuple[Snapshot, DenseSearch],
) -> None:
    _, dense = dense_setup
    plain_numpy = CosineIndex(dense.index.matrix, dense.index.node_types)
    plain_numpy._torch = None
    query = dense.encoder.encode_query("red kettle")
    np.testing.assert_allclose(plain_numpy.scores(query), dense.index.scores(query), atol=2e-3)
    ids, _ = plain_numpy.top_k(query, 5, exclude=[0, 1])
    assert 0 not in ids and 1 not in ids and len(ids) == 5


def test_a_repeated_query_is_encoded_once(
    dense_setup: tuple[Snapshot, DenseSearch], encoder_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot, dense = dense_setup
    toolset = Toolset(snapshot, _config(encoder_dir), dense=dense)
    encoded: list[str] = []
    real = dense.encoder.encode_query

    def counting(query: str) -> np.ndarray:
        encoded.append(query)
        return real(query)

    monkeypatch.setattr(dense.encoder, "encode_query", counting)
    first = toolset.call("dense_search", {"query": "red kettle", "k": 3})
    again = toolset.call("dense_search", {"query": "red kettle", "k": 5, "node_types": ["product"]})
    other = toolset.call("dense_search", {"query": "blue lamp", "k": 3})
    assert encoded == ["red kettle", "blue lamp"]
    assert first.node_ids and again.node_ids and other.node_ids
    assert first.node_ids[0] == toolset.call("dense_search", {"query": "red kettle"}).node_ids[0]
