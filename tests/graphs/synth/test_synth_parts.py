"""Building blocks of the synthetic generator: graph builder, sampling, names, question recipes."""

from __future__ import annotations

import numpy as np
import pytest

from graphs.errors import GraphError
from graphs.synth import names, sampling
from graphs.synth.model import GraphBuilder, SynthGraph
from graphs.synth.phrasing import join_details, render
from graphs.synth.questions import QuestionMaker
from graphs.synth.recipes import Domain, Facet, Multi, OneHop, Step, TextOnly, Trait, TwoHop


def test_builder_drops_self_loops_and_repeats_and_folds_symmetric_pairs() -> None:
    builder = GraphBuilder()
    nodes = builder.add_nodes("item", "it", ["A", "B", "C"], ["a", "b", "c"])
    builder.add_edges("near", nodes[[0, 1, 2, 2]], nodes[[1, 0, 2, 0]], symmetric=True)
    builder.add_edges("to", nodes[[0, 0, 1]], nodes[[1, 1, 0]])
    graph = builder.finish(candidate_types=("item",))
    edges = set(
        zip(
            graph.edge_table()["src"].to_pylist(),
            graph.edge_table()["dst"].to_pylist(),
            graph.edge_table()["relation"].to_pylist(),
            strict=True,
        )
    )
    assert edges == {
        ("it-0", "it-1", "near"),
        ("it-0", "it-2", "near"),
        ("it-0", "it-1", "to"),
        ("it-1", "it-0", "to"),
    }
    assert graph.node_table()["id"].to_pylist() == ["it-0", "it-1", "it-2"]


def test_ids_count_within_each_type() -> None:
    builder = GraphBuilder()
    builder.add_nodes("a", "a", ["x"], ["x"])
    builder.add_nodes("b", "b", ["y"], ["y"])
    builder.add_nodes("a", "a", ["z"], ["z"])
    builder.add_edges("r", np.array([0]), np.array([1]))
    assert builder.finish(()).ids == ["a-0", "b-0", "a-1"]


def test_builder_rejects_mismatched_names_and_texts() -> None:
    with pytest.raises(GraphError, match="2 names but 1 texts"):
        GraphBuilder().add_nodes("a", "a", ["x", "y"], ["x"])


def test_draw_in_groups_stays_in_the_wanted_group() -> None:
    rng = np.random.default_rng(0)
    groups = np.array([0, 0, 1, 1, 1, 3])
    wanted = np.array([1, 0, 3, 2] * 50)
    picked = sampling.draw_in_groups(rng, groups, np.ones(6), wanted)
    assert (picked[wanted == 2] == -1).all()
    ok = wanted != 2
    assert (groups[picked[ok]] == wanted[ok]).all()


def test_distinct_matches_numpy_unique() -> None:
    values = np.random.default_rng(1).integers(0, 50, size=500)
    assert np.array_equal(sampling.distinct(values), np.unique(values))


def test_unique_names_never_clash_case_insensitively() -> None:
    taken = {"korva"}
    drawn = names.unique_names(np.random.default_rng(2), 300, names.coined, taken)
    assert len({n.lower() for n in drawn}) == 300
    assert "korva" not in {n.lower() for n in drawn}
    assert len(taken) == 301


def test_unique_names_gives_up_clearly_when_the_space_is_too_small() -> None:
    with pytest.raises(GraphError, match="smaller --nodes"):
        names.unique_names(
            np.random.default_rng(0), 3, lambda r, k: ["Same"] * k, set(), max_rounds=3
        )


def test_render_fills_slots_and_tidies() -> None:
    assert render("which {adj}  items ?", {"adj": "red", "x": "unused"}) == "Which red items?"
    with pytest.raises(KeyError):
        render("{missing}", {})
    rng = np.random.default_rng(0)
    assert join_details(["a"], rng) == "a"
    assert join_details(["a", "b"], rng) == "a and b"


def _tiny_domain() -> Domain:
    """Orvan makes p0..p3 (p0, p1 waterproof), Kestel p4; also_buy: p0-p1, p0-p2, p1-p3, p4-p0."""
    builder = GraphBuilder()
    brand = builder.add_nodes("brand", "brand", ["Orvan", "Kestel"], ["brand", "brand"])
    texts = ["waterproof red", "waterproof blue", "red", "blue", "red"]
    prods = builder.add_nodes("product", "prod", [f"Item {c}" for c in "VWXYZ"], texts)
    builder.add_edges("has_brand", prods[[0, 1, 2, 3, 4]], brand[[0, 0, 0, 0, 1]])
    builder.add_edges("also_buy", prods[[0, 0, 1, 4]], prods[[1, 2, 3, 0]], symmetric=True)
    graph = builder.finish(("product",))
    waterproof = np.zeros(graph.num_nodes, dtype=bool)
    waterproof[prods[[0, 1]]] = True
    trait = Trait(
        "waterproof", waterproof, ("waterproof",), ("that are waterproof",), ("waterproof",)
    )
    head = Facet.spread(graph.num_nodes, prods, np.zeros(5, dtype=np.int64), [("a product",)])
    color = Facet.spread(
        graph.num_nodes, prods, np.array([0, 1, 0, 1, 0]), [("in red",), ("in blue",)]
    )
    wet = Facet.spread(
        graph.num_nodes, prods, np.array([1, 1, 0, 0, 0]), [(), ("that is waterproof",)]
    )
    makes = Step("has_brand", "in", "product")
    buy = Step("also_buy", "both", "product")
    return Domain(
        "tiny",
        graph,
        {"waterproof": trait},
        text_only=(
            TextOnly("product", head, (color, wet), ("Find {head} {details}.",), min_facets=1),
        ),
        one_hop=(
            OneHop("brand", makes, ("waterproof",), ("Which {adj} items does {anchor} make?",)),
        ),
        two_hop=(TwoHop("brand", makes, buy, ("What is bought with {anchor} items?",)),),
        multi=(Multi("brand", makes, ("List everything {anchor} makes.",)),),
    )


def _answers(graph: SynthGraph, question) -> set[str]:
    return {graph.ids[n] for n in question.answers}


def test_question_recipes_compute_exact_gold_on_a_hand_made_graph() -> None:
    domain = _tiny_domain()
    maker = QuestionMaker(domain, np.random.default_rng(0))
    (one_hop,) = maker.make("one_hop", 5)
    assert one_hop.query == "Which waterproof items does Orvan make?"
    assert _answers(domain.graph, one_hop) == {"prod-0", "prod-1"}
    two_hop = maker.make("two_hop", 5)
    by_anchor = {q.provenance["anchor"]: _answers(domain.graph, q) for q in two_hop}
    assert by_anchor == {
        "brand-0": {"prod-0", "prod-1", "prod-2", "prod-3", "prod-4"},
        "brand-1": {"prod-0"},
    }
    (multi,) = maker.make("multi_answer", 5)
    assert _answers(domain.graph, multi) == {"prod-0", "prod-1", "prod-2", "prod-3"}
    text_only = maker.make("text_only", 10)
    described = {frozenset(_answers(domain.graph, q)): q.query for q in text_only}
    assert set(described) == {frozenset({"prod-0"}), frozenset({"prod-1"})}  # only unique ones
    assert "in red" in described[frozenset({"prod-0"})]
    assert "in blue" in described[frozenset({"prod-1"})]
    assert all("that is waterproof" in query for query in described.values())
