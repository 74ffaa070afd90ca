"""The answer type of a question naming several types: the one farthest from the named nodes."""

from __future__ import annotations

import pytest
from tiny_graph import tiny_snapshot

from graphs.snapshot import Snapshot
from tools.plans.rule_planner import RulePlanner
from tools.plans.schema_paths import SchemaPaths

NODES = [
    ("d1", "drug", "Kregocillin", "an antibiotic"),
    ("g1", "gene", "KR1", "a kinase gene"),
    ("g2", "gene", "KR2", "a receptor gene"),
    ("x1", "disease", "Kappa syndrome", "a rare syndrome"),
    ("x2", "disease", "Lambda fever", "a fever"),
]
EDGES = [
    ("d1", "g1", "targets"),
    ("d1", "g2", "targets"),
    ("g1", "x1", "associated_with"),
    ("g2", "x2", "associated_with"),
]


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "bio", NODES, EDGES)


def test_schema_distance_counts_hops_between_types(graph: Snapshot) -> None:
    schema = SchemaPaths.from_signatures(graph.manifest.signatures)
    assert schema.distance("drug", "drug") == 0
    assert schema.distance("drug", "gene") == 1
    assert schema.distance("drug", "disease") == 2
    assert SchemaPaths.from_signatures([]).distance("drug", "gene") is None


def test_the_type_beyond_the_other_named_types_is_the_answer(graph: Snapshot) -> None:
    planner = RulePlanner(graph.manifest)
    question = "Kregocillin acts on some genes; what diseases are those genes associated with?"
    # genes lie on the way from the drug to the diseases, whichever the question names first
    assert planner.answer_type(question, ["drug"]) == "disease"
    assert planner.answer_type("Which diseases and genes does it touch?", ["drug"]) == "disease"
    # without named nodes to measure from, the first type named
    assert planner.answer_type(question) == "gene"
    assert planner.answer_type("Is there anything?", ["drug"]) is None
