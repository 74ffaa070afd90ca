"""Beam search against scores computed by hand (Eq. 5), pruning, dead ends, sub-path removal."""

from __future__ import annotations

import pytest

from answer.beam import Chain, beam_search, select_chains
from answer.query_graph import Direction, Hop, QueryGraph, Triple

#   A -> B -> C -> D        sim(q, ·): B .8  C .6  D .1  E .9  F .3  A .2
#   |    '--> E
#   '--> F
SIMILARITY = {"A": 0.2, "B": 0.8, "C": 0.6, "D": 0.1, "E": 0.9, "F": 0.3}


@pytest.fixture
def graph() -> QueryGraph:
    edges = [("A", "B"), ("B", "C"), ("C", "D"), ("B", "E"), ("A", "F")]
    return QueryGraph(Triple(h, "r", t, (f"p-{h}{t}",)) for h, t in edges)


def _found(result_chains: list[Chain]) -> list[tuple[str, float]]:
    return [("".join(c.nodes), round(c.score, 6)) for c in result_chains]


def test_eq5_running_average_excludes_the_start_node(graph: QueryGraph) -> None:
    result = beam_search(graph, ["A"], SIMILARITY, direction=Direction.forward, beam_width=2)
    # depth 1: AB .8, AF .3 | depth 2: ABE (.8+.9)/2=.85, ABC (.8+.6)/2=.7; AF is a dead end
    # depth 3: ABE is a dead end; ABCD = (.7*2 + .1)/3 = .5 (= mean of .8, .6, .1; A's .2 unused)
    assert _found(result.chains) == [("ABE", 0.85), ("ABCD", 0.5), ("AF", 0.3)]


def test_beam_width_one_prunes_and_loses_the_weaker_branches(graph: QueryGraph) -> None:
    result = beam_search(graph, ["A"], SIMILARITY, direction=Direction.forward, beam_width=1)
    assert _found(result.chains) == [("ABE", 0.85)]
    assert _found(result.finished) == [("ABE", 0.85)]  # AF and ABC were pruned, never finished


def test_depth_cap_finishes_live_chains(graph: QueryGraph) -> None:
    result = beam_search(
        graph, ["A"], SIMILARITY, direction=Direction.forward, beam_width=3, max_depth=2
    )
    assert _found(result.chains) == [("ABE", 0.85), ("ABC", 0.7), ("AF", 0.3)]


def test_backward_follows_predecessors(graph: QueryGraph) -> None:
    result = beam_search(graph, ["D"], SIMILARITY, direction=Direction.backward)
    # D <- C <- B <- A: (.6 + .8 + .2) / 3
    assert _found(result.chains) == [("DCBA", round(1.6 / 3, 6))]
    assert [hop.forward for hop in result.chains[0].hops] == [False, False, False]


def test_a_start_with_no_hop_in_the_direction_yields_no_chain(graph: QueryGraph) -> None:
    assert beam_search(graph, ["D"], SIMILARITY, direction=Direction.forward).chains == []
    assert beam_search(graph, ["nowhere"], SIMILARITY, direction=Direction.forward).chains == []


def test_bidirectional_never_revisits_a_node(graph: QueryGraph) -> None:
    result = beam_search(graph, ["C"], SIMILARITY, direction=Direction.bidirectional, top_k=10)
    for chain in result.finished:
        assert len(set(chain.nodes)) == len(chain.nodes)
    # C -> B (.8) -> E (.9): (.8+.9)/2 = .85 is the best walk from C, mixing directions
    assert _found(result.chains)[0] == ("CBE", 0.85)


def test_subpaths_of_better_longer_chains_are_removed(graph: QueryGraph) -> None:
    result = beam_search(graph, ["A", "B"], SIMILARITY, direction=Direction.forward, top_k=10)
    # from B: BE .9, BCD (.6+.1)/2 = .35; from A: ABE .85, ABCD .5, AF .3
    # BCD lies inside ABCD (.5 >= .35): removed. BE lies inside ABE but scores higher: kept.
    assert _found(result.chains) == [("BE", 0.9), ("ABE", 0.85), ("ABCD", 0.5), ("AF", 0.3)]


def test_top_k_keeps_the_best(graph: QueryGraph) -> None:
    result = beam_search(graph, ["A", "B"], SIMILARITY, direction=Direction.forward, top_k=2)
    assert _found(result.chains) == [("BE", 0.9), ("ABE", 0.85)]


def test_shared_beam_lets_one_entry_crowd_out_the_others(graph: QueryGraph) -> None:
    shared = beam_search(
        graph, ["A", "B"], SIMILARITY, direction=Direction.forward, beam_width=1, per_entry=False
    )
    own = beam_search(graph, ["A", "B"], SIMILARITY, direction=Direction.forward, beam_width=1)
    assert _found(shared.chains) == [("BE", 0.9)]  # depth 1: BE .9 beats AB .8
    assert _found(own.chains) == [("BE", 0.9), ("ABE", 0.85)]


def test_exact_duplicates_keep_the_better_one() -> None:
    first = Chain("A", (Hop(Triple("A", "r1", "B"), True),), 0.4)
    second = Chain("A", (Hop(Triple("A", "r2", "B"), True),), 0.6)
    kept = select_chains([first, second], 3)
    assert kept == [second]


def test_expanded_counts_the_search_effort(graph: QueryGraph) -> None:
    one = beam_search(graph, ["A"], SIMILARITY, direction=Direction.forward, beam_width=1)
    three = beam_search(graph, ["A"], SIMILARITY, direction=Direction.forward, beam_width=3)
    assert one.expanded == 3  # A, AB, ABE
    assert three.expanded == 6  # A | AB AF | ABE ABC (AF dead) | ABCD
