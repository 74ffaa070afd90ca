"""The plan executor on a hand-built graph: τ bindings, intersection, max over paths, rescoring."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.dense.cosine import CosineIndex
from graphs.snapshot import Snapshot
from tools.dense import DenseSearch
from tools.plans.cypher import to_cypher
from tools.plans.errors import PlanError
from tools.plans.execute import PlanExecutor
from tools.plans.linking import LinkConfig
from tools.plans.model import GraphPlan

NODES = [
    ("b1", "brand", "Acme", "Acme makes kettles"),
    ("b2", "brand", "Acmex", "Acmex makes kettles too"),
    ("b3", "brand", "Zeta", "Zeta"),
    ("c1", "category", "Kettles", "Kettles"),
    ("p1", "product", "Quiet Kettle", "a quiet kettle"),
    ("p2", "product", "Loud Kettle", "a loud kettle"),
    ("p3", "product", "Steel Kettle", "a steel kettle"),
    ("p4", "product", "Zeta Kettle", "a kettle"),
    ("p5", "product", "Cup", "a cup"),
]
EDGES = [
    ("p1", "b1", "has_brand"),
    ("p2", "b1", "has_brand"),
    ("p3", "b2", "has_brand"),
    ("p4", "b3", "has_brand"),
    ("p1", "c1", "in_category"),
    ("p3", "c1", "in_category"),
    ("p4", "c1", "in_category"),
    ("p2", "p5", "also_buy"),
    ("p3", "p5", "also_buy"),
    ("p4", "p5", "also_buy"),
]
VECTORS = {  # unit rows: cos(Acme, b1) = 1, cos(Acme, b2) = 0.96, cos(Acme, b3) = 0.5
    "b1": [1, 0, 0, 0],
    "b2": [0.96, 0.28, 0, 0],
    "b3": [0.5, 0, 0.8660254, 0],
    "c1": [0, 0, 0, 1],
    "p1": [0, 1, 0, 0],
    "p2": [0, 0.6, 0.8, 0],
    "p3": [0, 0, 1, 0],
    "p4": [0, 0, 0.6, 0.8],
    "p5": [0, 0.8, 0.6, 0],
}
QUERIES = {
    "Acme": [1, 0, 0, 0],
    "Acme kettle brand": [1, 0, 0, 0],
    "Kettles": [0, 0, 0, 1],
    "quiet": [0, 1, 0, 0],
}


class ScriptedEncoder:
    """A query encoder with fixed vectors (a fake, not a model)."""

    def encode_query(self, text: str) -> np.ndarray:
        return np.asarray(QUERIES[text], dtype=np.float32)


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out: Path = tmp_path_factory.mktemp("graphs") / "shop"
    columns = ("id", "type", "name", "text")
    nodes = pa.table({c: [n[i] for n in NODES] for i, c in enumerate(columns)})
    edges = pa.table({c: [e[i] for e in EDGES] for i, c in enumerate(("src", "dst", "relation"))})
    build_snapshot(nodes, edges, out, name="shop", candidate_types=["product"])
    return Snapshot.open(out)


@pytest.fixture(scope="module")
def dense(shop: Snapshot) -> DenseSearch:
    ids, _, _ = shop.labels(np.arange(shop.num_nodes))
    matrix = np.asarray([VECTORS[i] for i in ids], dtype=np.float16)
    return DenseSearch(ScriptedEncoder(), CosineIndex(matrix, shop.node_type_codes))  # type: ignore[arg-type]


def plan(**raw: object) -> GraphPlan:
    return GraphPlan.model_validate(raw)


BRAND_TO_PRODUCT = {"from": "A", "rel": "has_brand", "to_var": "T", "to_label": "product"}
ACME = {"var": "A", "text": "Acme", "label": "brand"}
ACME_BRAND = {**ACME, "text": "Acme kettle brand"}  # no node's exact name: linked by cosine and τ


def scores(outcome: object) -> dict[str, float]:
    return {c.node_id: round(c.score, 3) for c in outcome.ranking}  # type: ignore[attr-defined]


def test_dense_bindings_keep_tau_of_the_top_one(shop: Snapshot, dense: DenseSearch) -> None:
    outcome = PlanExecutor(shop, dense=dense).run(
        plan(anchors=[ACME_BRAND], hops=[BRAND_TO_PRODUCT])
    )
    bound = {node: round(score, 2) for node, _, score in outcome.bindings["A"]}
    assert bound == {"b1": 1.0, "b2": 0.96}  # Zeta (0.5 < 0.95 x 1.0) is left out
    assert scores(outcome) == {"p1": 1.0, "p2": 1.0, "p3": 0.96}
    assert outcome.n_cand == 3 and outcome.risk_level == "normal"
    loose = PlanExecutor(shop, dense=dense, link=LinkConfig(name_tau=0.4))
    lenient = loose.run(plan(anchors=[ACME_BRAND], hops=[BRAND_TO_PRODUCT])).bindings["A"]
    assert "b3" in {n for n, _, _ in lenient}


def test_two_anchors_rank_their_intersection_first(shop: Snapshot, dense: DenseSearch) -> None:
    kettles = {"var": "C", "text": "Kettles", "label": "category"}
    hop = {"from": "C", "rel": "in_category", "to_var": "T", "to_label": "product"}
    outcome = PlanExecutor(shop, dense=dense).run(
        plan(anchors=[ACME_BRAND, kettles], hops=[BRAND_TO_PRODUCT, hop], risk_level="aggressive")
    )
    # p1 (Acme) and p3 (Acmex, 0.96) are in Kettles too: both anchors agree on them; p2 has
    # no category and p4 no Acme brand: one anchor each, kept after the intersection
    ranking = [c.node_id for c in outcome.ranking]
    assert ranking[:2] == ["p1", "p3"] and set(ranking[2:]) == {"p2", "p4"}
    assert outcome.n_cand == 4 and outcome.risk_level == "aggressive"


def test_a_target_reached_by_several_paths_keeps_the_best(
    shop: Snapshot, dense: DenseSearch
) -> None:
    hops = [
        {"from": "A", "rel": "has_brand", "to_var": "X", "to_label": "product"},
        {"from": "X", "rel": "also_buy", "to_var": "T", "to_label": "product"},
    ]
    outcome = PlanExecutor(shop, dense=dense).run(plan(anchors=[ACME], hops=hops))
    # p5 is bought with p2 (Acme, 1.0) and p3 (Acmex, 0.96): the maximum, not the sum
    assert scores(outcome) == {"p5": 1.0}


def test_relevance_text_ranks_the_reached_nodes(shop: Snapshot, dense: DenseSearch) -> None:
    target = {"labels": ["product"], "relevance_text": "quiet"}
    outcome = PlanExecutor(shop, dense=dense).run(
        plan(anchors=[ACME_BRAND], hops=[BRAND_TO_PRODUCT], target=target)
    )
    # BM25 of "quiet": p1 only; p2 (Acme, 1.0) and p3 (Acmex, 0.96) by their anchor's score
    assert [c.node_id for c in outcome.ranking] == ["p1", "p2", "p3"]
    assert outcome.ranking[0].relevance > 0 and outcome.ranking[1].relevance == 0
    assert [c.anchor_score for c in outcome.ranking[1:]] == pytest.approx([1.0, 0.96], abs=1e-3)


def test_bm25_name_mode_binds_exact_names_only(shop: Snapshot) -> None:
    outcome = PlanExecutor(shop).run(plan(anchors=[ACME], hops=[BRAND_TO_PRODUCT]))
    assert outcome.bindings["A"] == [("b1", "Acme", 1.0)]
    assert scores(outcome) == {"p1": 1.0, "p2": 1.0}


def test_bm25_relevance_ranks_the_reached_nodes_by_their_score(shop: Snapshot) -> None:
    target = {"labels": ["product"], "relevance_text": "quiet"}
    outcome = PlanExecutor(shop).run(plan(anchors=[ACME], hops=[BRAND_TO_PRODUCT], target=target))
    expected = float(shop.index.score_nodes("quiet", np.array([shop.internal_id("p1")]))[0])
    assert [c.node_id for c in outcome.ranking] == ["p1", "p2"]
    assert outcome.ranking[0].relevance == pytest.approx(expected)
    assert scores(outcome)["p2"] == 1.0  # the anchor's binding alone


def test_a_text_plan_ranks_the_target_type_by_search(shop: Snapshot) -> None:
    anchor = {"var": "T", "text": "steel kettle", "match_mode": "doc"}
    outcome = PlanExecutor(shop).run(
        plan(anchors=[anchor], target={"labels": ["product"]}, risk_level="no_trade")
    )
    assert outcome.ranking[0].node_id == "p3"
    assert {c.type for c in outcome.ranking} == {"product"}
    assert outcome.risk_level == "no_trade"


def test_unknown_names_are_a_plan_error(shop: Snapshot) -> None:
    bad = plan(anchors=[{**ACME, "label": "brnd"}], hops=[{**BRAND_TO_PRODUCT, "rel": "makes"}])
    with pytest.raises(PlanError) as error:
        PlanExecutor(shop).run(bad)
    assert "'brnd' is not a node type" in str(error.value) and "'brand'" in str(error.value)
    assert "'makes' is not a relation" in str(error.value) and "has_brand" in str(error.value)


def test_cypher_compiles_anchors_hops_and_max(shop: Snapshot) -> None:
    text = to_cypher(plan(anchors=[ACME], hops=[BRAND_TO_PRODUCT], target={"labels": ["product"]}))
    assert "UNWIND $A AS A_b" in text
    assert "MATCH (A)-[:`has_brand`]-(T)" in text
    assert "WHERE T:`product`" in text and "max(A_b.score)" in text
