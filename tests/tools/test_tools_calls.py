"""Toolset.call behaviour: bad calls become observations, select semantics, ablations, ranking."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.neighbor_set import NeighborOrder, NeighborSet, top_entries
from tools.toolset import Toolset


@pytest.fixture
def toolset(tiny_snapshot: Snapshot) -> Toolset:
    return Toolset(tiny_snapshot)


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "mentions"),
    [
        ("lookup", "{}", "unknown_tool", "valid: search, neighbors, select, finish"),
        ("search", '{"query": "x" "k": 3}', "bad_json", "not valid JSON"),
        ("search", "{", "bad_arguments", "missing required field 'query'"),
        ("search", "not json at all", "bad_json", "search(query: string"),
        ("search", "[]", "bad_arguments", "must be a JSON object, got a list"),
        ("search", '"engine"', "bad_arguments", "got a string"),
        ("search", "null", "bad_arguments", "got null"),
        ("search", [1, 2], "bad_arguments", "must be a JSON object"),
        ("search", {}, "bad_arguments", "missing required field 'query'"),
        ("search", {"query": "x", "top": 3}, "bad_arguments", "unexpected field 'top'"),
        ("search", {"query": "x", "k": "five"}, "bad_arguments", "(got 'five')"),
        ("search", {"query": "x", "k": 0}, "bad_arguments", "greater than or equal to 1"),
        ("search", {"query": "x", "k": -3}, "bad_arguments", "greater than or equal to 1"),
        ("search", {"query": "x", "k": True}, "bad_arguments", "not true/false"),
        ("search", {"query": "x", "k": 2.5}, "bad_arguments", "k:"),
        ("search", {"query": "x", "k": 1e300}, "bad_arguments", "k:"),
        (
            "search",
            {"query": ["x"]},
            "bad_arguments",
            'query must be a string of keywords, e.g. "x"',
        ),
        ("search", {"query": 5}, "bad_arguments", 'query must be a string of keywords, e.g. "5"'),
        ("neighbors", {"node_id": "P1", "query": 7}, "bad_arguments", "query must be a string"),
        ("search", {"query": "x", "node_types": ["papers"]}, "unknown_type", "'paper'"),
        ("search", {"query": "x", "node_types": [3]}, "unknown_type", "valid: "),
        ("search", {"query": "x", "node_types": {"a": 1}}, "bad_arguments", "node_types"),
        (
            "search",
            {"query": "x", "node_types": "paper"},
            "bad_arguments",
            'node_types must be a list of type names, e.g. ["paper"]',
        ),
        (
            "neighbors",
            {"node_id": "P1", "edge_types": "cites"},
            "bad_arguments",
            'edge_types must be a list of relation names, e.g. ["cites"]',
        ),
        ("neighbors", {"node_id": "ZZ"}, "unknown_node", "'ZZ'"),
        ("neighbors", {"node_id": " P1 "}, "unknown_node", "did you mean 'P1'?"),
        ("neighbors", {"node_id": None}, "bad_arguments", "node_id"),
        ("neighbors", {"node_id": "P1", "edge_types": ["wrote"]}, "unknown_relation", "'writes'"),
        ("select", {"node_ids": []}, "bad_arguments", "node_ids"),
        (
            "select",
            '{"node_ids": "P2"}',
            "bad_arguments",
            'must be a list of node ids, e.g. ["P2"]',
        ),
        ("select", {"node_ids": ["nope"]}, "unknown_node", "'nope'"),
        ("select", {"node_ids": ["P1"], "reasons": {"P2": "x"}}, "bad_arguments", "P2"),
        ("finish", '{"comment": 3, "extra": 1}', "bad_arguments", "unexpected field 'extra'"),
    ],
)
def test_bad_calls_are_error_observations(
    toolset: Toolset, name: str, arguments: Any, kind: str, mentions: str
) -> None:
    observation = toolset.call(name, arguments)
    assert observation.error is not None
    assert observation.error.kind == kind
    assert mentions in observation.text
    assert observation.text == f"error: {observation.error.message}"
    assert observation.selected == [] and not observation.finished


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "engine", "k": "2"},
        {"query": "engine", "k": 2.0},
        '{"query": "engine", "k": 2}',
        {"query": "engine", "k": 2, "node_types": None},
    ],
)
def test_lenient_but_unambiguous_arguments(toolset: Toolset, arguments: Any) -> None:
    observation = toolset.call("search", arguments)
    assert observation.error is None
    assert len(observation.node_ids) == 2


def test_type_names_match_case_insensitively(toolset: Toolset) -> None:
    observation = toolset.call("neighbors", {"node_id": "P1", "edge_types": ["CITES"]})
    assert observation.node_ids == ["P2", "P3"]


def test_empty_arguments_mean_none(toolset: Toolset) -> None:
    assert toolset.call("finish", "").finished
    assert toolset.call("finish", None).finished
    assert toolset.call("finish", "  ").text == "finished with 0 answers."


def test_numeric_ids_are_accepted_as_text(toolset: Toolset) -> None:
    observation = toolset.call("neighbors", {"node_id": 17})
    assert observation.error is not None and "unknown node id '17'" in observation.text


def test_select_keeps_order_ignores_duplicates_and_rejects_unknown_by_name(
    toolset: Toolset,
) -> None:
    observation = toolset.call(
        "select", {"node_ids": ["P3", "X1", "P1", "P3", "A1", "[P2]"]}, answers=["A1"]
    )
    assert observation.selected == ["P3", "P1"]
    assert observation.node_ids == ["P3", "P1"]
    assert observation.error is not None and observation.error.kind == "unknown_node"
    assert "unknown node ids 'X1', '[P2]'; did you mean 'P2'?" in observation.text
    assert "already in the answer list (ignored): P3, A1." in observation.text
    assert "answer list: 3 ids." in observation.text


def test_only_duplicates_is_not_an_error(toolset: Toolset) -> None:
    observation = toolset.call("select", {"node_ids": ["P1"]}, answers=["P1"])
    assert observation.selected == [] and observation.error is None
    assert observation.text.startswith("no new ids selected.")


def test_neighbors_ablation_removes_the_tool(tiny_snapshot: Snapshot) -> None:
    toolset = Toolset(tiny_snapshot, ToolConfig(enable_neighbors=False))
    observation = toolset.call("neighbors", {"node_id": "P1"})
    assert observation.error is not None and observation.error.kind == "unknown_tool"
    assert "valid: search, select, finish" in observation.text
    assert toolset.tool_names == ["search", "select", "finish"]


def test_query_ranking_ablation_ignores_the_query(tiny_snapshot: Snapshot) -> None:
    toolset = Toolset(tiny_snapshot, ToolConfig(neighbor_query_ranking=False))
    with_query = toolset.call("neighbors", {"node_id": "P1", "query": "babbage", "k": 2})
    without = toolset.call("neighbors", {"node_id": "P1", "k": 2})
    assert with_query.error is None
    assert with_query.node_ids == without.node_ids == ["P2", "P3"]
    assert with_query.scores == []
    assert with_query.text == without.text + (
        "\nnote: query ranking of neighbours is disabled in this run; query ignored."
    )
    ranked = Toolset(tiny_snapshot).call("neighbors", {"node_id": "P1", "query": "babbage"})
    assert ranked.node_ids[0] == "P3"


def test_type_filter_ablation_ignores_filters(tiny_snapshot: Snapshot) -> None:
    toolset = Toolset(tiny_snapshot, ToolConfig(type_filters=False))
    observation = toolset.call(
        "neighbors", {"node_id": "P1", "node_types": ["venue"], "edge_types": ["writes"]}
    )
    assert observation.node_ids == ["P2", "P3", "V1", "A1"]
    assert observation.text.endswith(
        "note: type filters are disabled in this run; node_types ignored.\n"
        "note: type filters are disabled in this run; edge_types ignored."
    )
    search = toolset.call("search", {"query": "engine", "node_types": ["author"]})
    assert "P1" in search.node_ids
    assert "node_types ignored" in search.text


def test_neighbors_default_order_is_relation_direction_degree_id(
    generated_snapshot: Snapshot,
) -> None:
    snapshot = generated_snapshot
    toolset = Toolset(snapshot, ToolConfig(neighbors_k=500, max_k=500))
    observation = toolset.call("neighbors", {"node_id": "N0"})
    hood = snapshot.neighbors(snapshot.internal_id("N0"))
    first_key: dict[int, tuple[str, int, int, int]] = {}
    for node, relation, direction in zip(hood.nodes, hood.relations, hood.directions, strict=True):
        key = (
            snapshot.relation_names[relation],
            int(direction < 0),
            -int(snapshot.degrees[node]),
            int(node),
        )
        first_key[int(node)] = min(key, first_key.get(int(node), key))
    # one row per neighbour node, placed by its first (relation, direction) entry
    assert len(observation.node_ids) == len(set(observation.node_ids)) == len(first_key)
    expected = sorted(first_key.values())
    assert observation.node_ids == [snapshot.external_id(row[3]) for row in expected]
    lines = observation.text.splitlines()[1:]
    assert lines[0].startswith("-[about]->")
    assert any(line.startswith("<-[cites]- ") for line in lines)


def test_a_neighbour_linked_several_ways_is_one_row_listing_every_link(
    generated_snapshot: Snapshot,
) -> None:
    snapshot = generated_snapshot
    toolset = Toolset(snapshot, ToolConfig(neighbors_k=500, max_k=500))
    observation = toolset.call("neighbors", {"node_id": "N0"})
    hood = snapshot.neighbors(snapshot.internal_id("N0"))
    links: dict[str, set[tuple[str, int]]] = {}
    for node, relation, direction in zip(hood.nodes, hood.relations, hood.directions, strict=True):
        key = snapshot.external_id(int(node))
        links.setdefault(key, set()).add((snapshot.relation_names[relation], int(direction)))
    several = [node_id for node_id, found in links.items() if len(found) > 1]
    assert several  # the hub has neighbours linked both ways
    for node_id in several:
        row = next(line for line in observation.text.splitlines() if f" [{node_id}] " in line)
        for relation, direction in links[node_id]:
            both = (relation, -direction) in links[node_id]
            arrow = (
                f"<-[{relation}]->"
                if both
                else f"-[{relation}]->"
                if direction > 0
                else f"<-[{relation}]-"
            )
            assert arrow in row, (arrow, row)
    # k counts nodes: k=3 shows three distinct neighbours
    top = toolset.call("neighbors", {"node_id": "N0", "k": 3})
    assert len(top.node_ids) == len(set(top.node_ids)) == 3
    assert f"showing 3 of {len(links):,}" in top.text


@pytest.mark.parametrize("query", ["graph retrieval", "hub citation engine", "vector"])
def test_neighbor_ranking_equals_global_bm25_on_the_neighbour_set(
    generated_snapshot: Snapshot, query: str
) -> None:
    snapshot = generated_snapshot
    toolset = Toolset(snapshot, ToolConfig(neighbors_k=1000, max_k=1000))
    observation = toolset.call("neighbors", {"node_id": "N0", "query": query})
    ids, scores = snapshot.index.search(query, snapshot.num_nodes)  # every matching node
    pairs = zip(ids.tolist(), scores.tolist(), strict=True)
    global_scores = {snapshot.external_id(node): score for node, score in pairs}
    hood = snapshot.neighbors(snapshot.internal_id("N0"))
    entries = {snapshot.external_id(node) for node in hood.nodes.tolist()}
    expected = sorted(
        (-global_scores[e], e) for e in entries - {"N0"} if global_scores.get(e, 0) > 0
    )
    assert 0 < len(expected) < len(entries)
    # the listing starts with the matching neighbour nodes, each once, by global score; every
    # other neighbour follows with score 0 (the paper's Top-k under rel >= 0)
    matched = observation.node_ids[: len(expected)]
    assert sorted(matched) == sorted(node_id for _, node_id in expected)
    assert sorted(observation.node_ids) == sorted(entries - {"N0"})
    np.testing.assert_allclose(
        observation.scores[: len(expected)],
        [-score for score, _ in expected],
        rtol=1e-6,
        atol=1e-6,
    )
    np.testing.assert_allclose(
        observation.scores[: len(expected)], [global_scores[e] for e in matched], rtol=1e-6
    )
    assert not any(observation.scores[len(expected) :])
    total = len(entries - {"N0"})
    assert f"{len(expected):,} of {total:,} match the query; the other " in observation.text
    top = toolset.call("neighbors", {"node_id": "N0", "query": query, "k": 5})
    assert top.node_ids == observation.node_ids[:5]
    assert top.scores == observation.scores[:5]


def test_top_entries_matches_a_full_sort() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        count = int(rng.integers(1, 60))
        keys = rng.permutation(count * 3)[:count].astype(np.int64)
        scores = rng.integers(0, 4, count).astype(np.float32)  # many ties
        k = int(rng.integers(1, count + 3))
        by_key = sorted(range(count), key=lambda i: keys[i])
        by_score = sorted(range(count), key=lambda i: (-scores[i], keys[i]))
        assert top_entries(keys, None, k).tolist() == by_key[:k]
        assert top_entries(keys, scores, k).tolist() == by_score[:k]


def test_observation_serialises(toolset: Toolset) -> None:
    data = toolset.call("neighbors", {"node_id": "nope"}).to_dict()
    assert json.loads(json.dumps(data))["error"]["kind"] == "unknown_node"


def test_neighbor_set_groups_every_entry_under_its_node(generated_snapshot: Snapshot) -> None:
    snapshot = generated_snapshot
    hood = snapshot.neighbors(snapshot.internal_id("N0"))
    members = NeighborSet.of(hood)
    assert len(members) < len(hood.nodes)  # the hub has neighbours linked both ways
    assert members.nodes.tolist() == sorted(set(hood.nodes.tolist()))
    stops = [*members.starts[1:].tolist(), len(members.entry_order)]
    for member, node in enumerate(members.nodes.tolist()):
        mine = members.entry_order[members.starts[member] : stops[member]]
        assert sorted(mine.tolist()) == np.flatnonzero(hood.nodes == node).tolist()
    per_relation = members.nodes_per_code(hood.relations, len(snapshot.relation_names))
    for code in range(len(snapshot.relation_names)):
        assert per_relation[code] == len(set(hood.nodes[hood.relations == code].tolist()))
    order = NeighborOrder(snapshot.relation_names, snapshot.degrees)
    keys = order.keys(hood)
    firsts = order.first_keys(hood, members)
    for member, node in enumerate(members.nodes.tolist()):
        assert firsts[member] == keys[hood.nodes == node].min()
    order._packed = False  # a graph too large for one 63-bit key: ranks, same order
    unpacked = order.first_keys(hood, members)
    assert np.array_equal(np.argsort(unpacked, kind="stable"), np.argsort(firsts, kind="stable"))


def test_top_scored_equals_a_full_sort_by_score_then_default_order(
    generated_snapshot: Snapshot,
) -> None:
    """Ties at the cut, zeros, fewer positives than k: packed and unpacked keys alike."""
    snapshot = generated_snapshot
    hood = snapshot.neighbors(snapshot.internal_id("N0"))
    members = NeighborSet.of(hood)
    rng = np.random.default_rng(0)
    for packed in (True, False):
        order = NeighborOrder(snapshot.relation_names, snapshot.degrees)
        order._packed = packed
        firsts = order.first_keys(hood, members)
        for trial in range(20):
            scores = rng.integers(0, 4, len(members)).astype(np.float32)  # many ties, zeros
            if trial % 5 == 0:
                scores[rng.random(len(members)) < 0.9] = 0  # fewer positives than k
            for k in (1, 3, 10, len(members) + 2):
                positives = [i for i in range(len(members)) if scores[i] > 0]
                expected = sorted(positives, key=lambda i: (-scores[i], firsts[i]))[:k]
                assert order.top_scored(hood, members, scores, k).tolist() == expected


def test_repeated_filter_names_do_not_repeat_neighbours(toolset: Toolset) -> None:
    once = toolset.call("neighbors", {"node_id": "P1", "edge_types": ["cites"]})
    twice = toolset.call("neighbors", {"node_id": "P1", "edge_types": ["cites", "Cites", "cites"]})
    assert twice.node_ids == once.node_ids == ["P2", "P3"]


def test_unpacked_order_keys_sort_like_packed_ones(generated_snapshot: Snapshot) -> None:
    snapshot = generated_snapshot
    hood = snapshot.neighbors(snapshot.internal_id("N0"))
    packed = NeighborOrder(snapshot.relation_names, snapshot.degrees)
    fallback = NeighborOrder(snapshot.relation_names, snapshot.degrees)
    fallback._packed = False  # what a graph too large for one 63-bit key would use
    first, second = packed.keys(hood), fallback.keys(hood)
    assert np.array_equal(np.argsort(first, kind="stable"), np.argsort(second, kind="stable"))


@pytest.mark.parametrize(
    "query",
    [
        '"analytical engine"',
        "title:engine",
        "(babbage OR lovelace) AND NOT engine",
        "engine*",
        "engine~2^3",
        "\\",
        "étude 図書館 🙂 ΣΑΣ",
        "",
        "\x00",
    ],
)
def test_any_text_is_a_valid_query(toolset: Toolset, query: str) -> None:
    for name, arguments in (
        ("search", {"query": query}),
        ("neighbors", {"node_id": "P1", "query": query}),
    ):
        observation = toolset.call(name, arguments)
        assert observation.error is None, observation.text
        assert observation.text


def test_query_words_match_whatever_the_syntax(toolset: Toolset) -> None:
    plain = toolset.call("search", {"query": "babbage lovelace"})
    syntax = toolset.call("search", {"query": "(babbage OR lovelace)"})
    assert syntax.node_ids == plain.node_ids == ["A1", "A2", "P3"]  # tied scores: lower id first
    assert syntax.scores == plain.scores


def test_select_outside_a_trajectory_accepts_any_id_inside_only_shown_ones(
    tiny_snapshot: Snapshot,
) -> None:
    toolset = Toolset(tiny_snapshot)
    assert toolset.call("select", {"node_ids": ["P2"]}).selected == ["P2"]  # a one-off call
    rejected = toolset.call("select", {"node_ids": ["P2"]}, shown=["P1", "A1"])
    assert rejected.error is not None and rejected.error.kind == "not_shown"
    assert rejected.selected == []
    assert "Selectable, latest first: A1, P1." in rejected.text
    accepted = toolset.call("select", {"node_ids": ["P1", "P2"]}, shown=["P1", "A1"])
    assert accepted.selected == ["P1"]
    assert accepted.error is not None and accepted.error.kind == "not_shown"


def test_almost_json_arguments_run_with_a_note_saying_what_was_repaired(
    toolset: Toolset,
) -> None:
    observation = toolset.call("search", '{"query": "engine "turbo" part", "k": 2}')
    assert observation.error is None
    assert observation.node_ids
    assert "not valid JSON; read them after this repair: escaped 2 quotes" in observation.text
    assert 'Write a quote inside a string as \\".' in observation.text
