"""Relation phrases mined from the graph's own texts (graphs/snapshot/phrases.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from tiny_graph import EDGE_COLUMNS, NODE_COLUMNS, tiny_snapshot
from typer.testing import CliRunner

from cli.app import build_app
from graphs.errors import SnapshotError
from graphs.layout import MANIFEST_FILE
from graphs.manifest import read_manifest
from graphs.snapshot import phrases

sys.path.insert(0, str(Path(__file__).parent))
from stream_compare import build_both

GLASSES = ["beer glass", "shot glass", "goblet", "tumbler"]
LEXICON = [
    ("glass", "noun", "glass (container)", "a container for holding liquids while drinking"),
    ("container", "noun", "container", "any object that can be used to hold things"),
    ("sober", "adj", "sober", "not affected by alcohol"),
    *(
        (g.replace(" ", "_"), "noun", g, f"{g}: a kind of glass for serving drinks")
        for g in GLASSES
    ),
    # "lack of" stands before the name of the node an antonym edge comes from
    ("drunk", "adj", "drunk", "showing a lack of sober judgement"),
    ("tipsy", "adj", "tipsy", "slightly drunk, a lack of sober thought"),
    ("dry", "adj", "dry", "a lack of sober drinks"),
    ("wild", "adj", "wild", "a lack of sober manners"),
    ("giddy", "adj", "giddy", "a lack of sober steadiness"),
    # "part of" before neighbours' names along two relations: no relation's phrase
    ("rim", "noun", "rim", "the part of glass you drink from"),
    ("stem", "noun", "stem", "the part of goblet you hold"),
    ("lip", "noun", "lip", "the part of beer glass you drink from"),
    ("foot", "noun", "foot", "the part of tumbler on the table"),
    ("base", "noun", "base", "the part of shot glass below"),
    ("bowl", "noun", "bowl", "the part of goblet holding wine"),
    # "mass of": before a neighbour's name three times, but far more often elsewhere
    *((m, "noun", m, f"a mass of container {m}") for m in ("ice", "snow", "slush")),
    *((f"m{i}", "noun", f"mass {i}", f"a mass of rock number {i}") for i in range(80)),
]
EDGES = [
    ("glass", "container", "hypernym"),
    *((g.replace(" ", "_"), "glass", "hypernym") for g in GLASSES),
    ("sober", "drunk", "antonym"),
    ("sober", "tipsy", "antonym"),
    ("sober", "dry", "antonym"),
    ("sober", "wild", "antonym"),
    ("sober", "giddy", "antonym"),
    ("rim", "glass", "part_holonym"),
    ("stem", "goblet", "part_holonym"),
    ("lip", "beer_glass", "part_holonym"),
    ("foot", "tumbler", "substance_holonym"),
    ("base", "shot_glass", "substance_holonym"),
    ("bowl", "goblet", "substance_holonym"),
    *((m, "container", "hypernym") for m in ("ice", "snow", "slush")),
]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory: pytest.TempPathFactory):
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "lexicon", LEXICON, EDGES)


def test_a_word_written_before_neighbours_names_along_one_relation_is_its_phrase(
    lexicon,
) -> None:
    found = lexicon.manifest.relation_phrases
    # "a kind of glass" is in the text of each hyponym: the edge's source
    assert found["hypernym"] == {"kind": "out"}
    # "a lack of sober ..." is in the texts of the antonyms' targets
    assert found["antonym"] == {"lack": "in"}
    # "part" stands before names along part_holonym and substance_holonym alike (3 and 3):
    # no relation holds 60% of its uses
    assert "part_holonym" not in found and "substance_holonym" not in found
    # "mass" stands 3 times before a neighbour's name and 80 times elsewhere
    assert all("mass" not in words for words in found.values())


def test_a_word_used_fewer_than_three_times_is_no_phrase(tmp_path: Path) -> None:
    nodes = [row for row in LEXICON if row[0] not in ("tumbler", "goblet")]
    edges = [e for e in EDGES if "tumbler" not in e and "goblet" not in e]
    snapshot = tiny_snapshot(tmp_path / "few", nodes, edges)
    assert "hypernym" not in snapshot.manifest.relation_phrases  # beer glass, shot glass only


def test_both_builds_mine_the_same_phrases(tmp_path: Path) -> None:
    nodes = pa.table({c: [row[i] for row in LEXICON] for i, c in enumerate(NODE_COLUMNS)})
    edges = pa.table({c: [row[i] for row in EDGES] for i, c in enumerate(EDGE_COLUMNS)})
    memory, stream = build_both(nodes, edges, tmp_path)
    mined = read_manifest(memory).relation_phrases
    assert mined == read_manifest(stream).relation_phrases
    assert mined["hypernym"] == {"kind": "out"}


def test_a_snapshot_built_before_phrases_reads_with_none(lexicon, tmp_path: Path) -> None:
    raw = json.loads((lexicon.path / MANIFEST_FILE).read_text())
    raw.pop("relation_phrases")
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(raw))
    assert read_manifest(tmp_path).relation_phrases == {}
    raw["relation_phrases"] = {"hypernym": {"kind": "sideways"}}  # edited by hand
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(raw))
    with pytest.raises(SnapshotError, match=r"not a valid manifest.*rebuild the snapshot"):
        read_manifest(tmp_path)


def test_a_large_graph_reads_evenly_spaced_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    assert phrases._sample(7).tolist() == list(range(7))
    monkeypatch.setattr(phrases, "MAX_NODES", 5)
    chosen = phrases._sample(101)
    assert chosen.tolist() == [0, 25, 50, 75, 100]
    assert np.all(np.diff(chosen) > 0)
    assert phrases._sample(10, 3).tolist() == [0, 4, 9]  # a hub's neighbours


def test_a_hub_is_compared_with_a_bounded_share_of_its_neighbours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nodes = [
        ("hub", "noun", "stone", "a kind of rock; a kind of rock; a kind of rock"),
        ("rock", "noun", "rock", "a mineral mass"),
        ("pebble", "noun", "pebble", "a small stone"),
    ]
    # the row holds made_of (pebble) before type_of (rock)
    edges = [("hub", "rock", "type_of"), ("hub", "pebble", "made_of")]
    found = tiny_snapshot(tmp_path / "all", nodes, edges).manifest.relation_phrases
    assert found == {"type_of": {"kind": "out"}}
    monkeypatch.setattr(phrases, "MAX_NEIGHBOURS", 1)  # only the row's first: pebble
    assert tiny_snapshot(tmp_path / "one", nodes, edges).manifest.relation_phrases == {}


def test_graph_info_shows_the_phrases_most_used_first(lexicon) -> None:
    # "lack" stands before a neighbour's name 5 times, "kind" 4
    info = CliRunner().invoke(build_app(), ["graph", "info", str(lexicon.path), "--json"])
    assert info.exit_code == 0, info.output
    phrases = json.loads(info.stdout)["relation_phrases"]
    assert phrases == {"hypernym": {"kind": "out"}, "antonym": {"lack": "in"}}
    assert list(phrases) == ["antonym", "hypernym"]
    table = CliRunner().invoke(
        build_app(), ["graph", "info", str(lexicon.path)], env={"COLUMNS": "120"}
    )
    lines = table.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "Relation phrases" in line)
    rows = [line for line in lines[start:] if "hypernym" in line or "antonym" in line]
    assert "target" in rows[0] and "lack" in rows[0]  # written in the antonyms' texts
    assert "source" in rows[1] and "kind" in rows[1]  # and in the hyponyms'
