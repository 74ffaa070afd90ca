"""SARG's entry nodes when no key phrase clears τ: the nodes the question names (the name index)."""

from __future__ import annotations

import pytest
from tiny_graph import tiny_snapshot

from answer.entry import EntryMatch, named_entries
from graphs.snapshot import Snapshot


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    nodes = [
        ("bong", "person", "Bong Joon-ho", "a director"),
        ("parasite", "film", "Parasite (film)", "a film of 2019"),
        ("okja", "film", "Okja", "a film of 2017"),
        ("seoul", "city", "Seoul", "a city"),
    ]
    edges = [
        ("bong", "parasite", "directed"),
        ("bong", "okja", "directed"),
        ("parasite", "seoul", "set_in"),
    ]
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "films", nodes, edges)


def test_the_named_nodes_of_the_query_graph_are_entries(films: Snapshot) -> None:
    question = "Where is the film Parasite by Bong Joon-ho set?"
    entries = named_entries(films, question, ["parasite", "bong", "seoul"])
    assert entries == [
        EntryMatch("parasite", 1.0, "Parasite"),  # its name without the disambiguator
        EntryMatch("bong", 1.0, "Bong Joon-ho"),
    ]
    # a node the query graph lacks is no entry, even when named
    assert named_entries(films, question, ["seoul"]) == []
