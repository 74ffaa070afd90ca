"""SARG's entry nodes start with the nodes the question names (the snapshot's name index)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from answer.entry import EntryMatch, named_entries, with_named
from graphs.build import build_snapshot
from graphs.snapshot import Snapshot


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out: Path = tmp_path_factory.mktemp("graphs") / "films"
    nodes = pa.table(
        {
            "id": ["bong", "parasite", "okja", "seoul"],
            "type": ["person", "film", "film", "city"],
            "name": ["Bong Joon-ho", "Parasite (film)", "Okja", "Seoul"],
            "text": ["a director", "a film of 2019", "a film of 2017", "a city"],
        }
    )
    edges = pa.table(
        {
            "src": ["bong", "bong", "parasite"],
            "dst": ["parasite", "okja", "seoul"],
            "relation": ["directed", "directed", "set_in"],
        }
    )
    build_snapshot(nodes, edges, out, name="films")
    return Snapshot.open(out)


def test_the_named_nodes_of_the_query_graph_are_entries(films: Snapshot) -> None:
    question = "Where is the film Parasite by Bong Joon-ho set?"
    entries = named_entries(films, question, ["parasite", "bong", "seoul"])
    assert entries == [
        EntryMatch("parasite", 1.0, "Parasite"),  # its name without the disambiguator
        EntryMatch("bong", 1.0, "Bong Joon-ho"),
    ]
    # a node the query graph lacks is no entry, even when named
    assert named_entries(films, question, ["seoul"]) == []


def test_named_entries_come_first_and_are_not_repeated() -> None:
    named = [EntryMatch("bong", 1.0, "Bong Joon-ho")]
    matched = [EntryMatch("okja", 0.8, "film"), EntryMatch("bong", 0.7, "director")]
    assert with_named(named, matched) == [named[0], matched[0]]
