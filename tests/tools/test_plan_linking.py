"""Anchor linking: exact analysed names bind first, with dense linking as with BM25."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.dense.cosine import CosineIndex
from graphs.snapshot import Snapshot
from tools.dense import DenseSearch
from tools.plans.linking import LinkConfig, link_anchor
from tools.plans.model import PlanAnchor

NODES = [
    ("cg", "country", "Republic of the Congo", "capital Brazzaville"),
    ("cd", "country", "Democratic Republic of the Congo", "capital Kinshasa"),
    ("ga", "country", "Gabon", "capital Libreville"),
    ("xaf", "currency", "Central African CFA franc", "franc of six states"),
    ("cdf", "currency", "Congolese franc", "franc of Kinshasa"),
]
EDGES = [
    ("cg", "xaf", "uses_currency"),
    ("ga", "xaf", "uses_currency"),
    ("cd", "cdf", "uses_currency"),
    ("cg", "cd", "borders"),
    ("cg", "ga", "borders"),
]
# Unit rows whose cosines to the anchor text make the Democratic Republic the top-1 (0.99)
# and the Republic itself second (0.97, within τ = 0.95 of it): a MiniLM-like confusion.
VECTORS = {
    "cg": [0.97, 0.2431, 0, 0],
    "cd": [0.99, 0, 0.1411, 0],
    "ga": [0.5, 0, 0, 0.8660254],
    "xaf": [0, 0, 0, 1],
    "cdf": [0, 0, 1, 0],
}
QUERIES = {
    "Republic of the Congo": [1, 0, 0, 0],
    "Congo republic": [1, 0, 0, 0],  # no node is named exactly this
}


class ScriptedEncoder:
    """A query encoder with fixed vectors (a fake, not a model)."""

    def encode_query(self, text: str) -> np.ndarray:
        return np.asarray(QUERIES[text], dtype=np.float32)


@pytest.fixture(scope="module")
def atlas(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out: Path = tmp_path_factory.mktemp("graphs") / "atlas"
    columns = ("id", "type", "name", "text")
    nodes = pa.table({c: [n[i] for n in NODES] for i, c in enumerate(columns)})
    edges = pa.table({c: [e[i] for e in EDGES] for i, c in enumerate(("src", "dst", "relation"))})
    build_snapshot(nodes, edges, out, name="atlas", candidate_types=["currency"])
    return Snapshot.open(out)


@pytest.fixture(scope="module")
def dense(atlas: Snapshot) -> DenseSearch:
    ids, _, _ = atlas.labels(np.arange(atlas.num_nodes))
    matrix = np.asarray([VECTORS[i] for i in ids], dtype=np.float16)
    return DenseSearch(ScriptedEncoder(), CosineIndex(matrix, atlas.node_type_codes))  # type: ignore[arg-type]


def bound(
    atlas: Snapshot,
    text: str,
    *,
    dense: DenseSearch | None = None,
    mode: str = "name",
    depth: int | None = None,
) -> dict[str, float]:
    anchor = PlanAnchor.model_validate(
        {"var": "A", "text": text, "label": "country", "match_mode": mode}
    )
    links = link_anchor(atlas, anchor, ["country"], LinkConfig(), dense=dense, depth=depth)
    ids, _, _ = atlas.labels(links.nodes)
    return {i: round(float(s), 2) for i, s in zip(ids, links.scores, strict=True)}


def test_dense_name_anchor_binds_only_the_exact_name(atlas: Snapshot, dense: DenseSearch) -> None:
    # cosine alone keeps both (0.97 >= 0.95 x 0.99), the Democratic Republic first
    assert bound(atlas, "Republic of the Congo", dense=dense) == {"cg": 1.0}


def test_bm25_and_dense_bind_the_same_exact_name(atlas: Snapshot, dense: DenseSearch) -> None:
    assert bound(atlas, "Republic of the Congo") == bound(
        atlas, "Republic of the Congo", dense=dense
    )


def test_without_an_exact_name_dense_keeps_the_cosine_ranking_with_tau(
    atlas: Snapshot, dense: DenseSearch
) -> None:
    # Gabon (0.5 < 0.95 x 0.99) is left out; the two Congos keep their cosines
    assert bound(atlas, "Congo republic", dense=dense) == {"cd": 0.99, "cg": 0.97}


def test_doc_anchors_and_target_searches_keep_the_cosine_ranking(
    atlas: Snapshot, dense: DenseSearch
) -> None:
    assert bound(atlas, "Republic of the Congo", dense=dense, mode="doc") == {
        "cd": 0.99,
        "cg": 0.97,
    }
    assert list(bound(atlas, "Republic of the Congo", dense=dense, depth=3)) == ["cd", "cg", "ga"]
