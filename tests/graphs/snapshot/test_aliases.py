"""Node aliases in the name index: linked like names, after them, confirmed, in both builds."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError
from graphs.snapshot import Snapshot
from graphs.snapshot.aliases import AliasStore, alias_lists
from graphs.snapshot.names import NameIndex
from graphs.verify import verify_snapshot
from tools.mentions import find_mentions

sys.path.insert(0, str(Path(__file__).parents[1] / "build"))
from stream_compare import build_both, differing_files

NAMES = ["antonym", "opposite (different)", "glass (container)", "convex", "Canis", "genus"]
ALIASES = [
    ["opposite word", "opposite"],
    [],
    ["drinking glass", "glass (drinking vessel)"],
    None,
    ["genus Canis"],
    [],
]
EDGES = pa.table({"src": ["c", "e"], "dst": ["d", "f"], "relation": ["antonym", "kind_of"]})


def nodes(aliases: list | pa.Array) -> pa.Table:
    """A lexical graph's nodes with the given aliases column."""
    count = len(NAMES)
    return pa.table(
        {
            "id": list("abcdef"),
            "type": ["word"] * count,
            "name": NAMES,
            "text": [f"{name}: a word of the tiny lexicon" for name in NAMES],
            "aliases": aliases,
        }
    )


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out = tmp_path_factory.mktemp("aliases") / "lexicon"
    return Snapshot.open(build_snapshot(nodes(ALIASES), EDGES, out, name="lexicon"))


def linked(snapshot: Snapshot, question: str) -> list[tuple[str, list[str]]]:
    """(words, node names) of each mention of `question`."""
    return [
        (m.text, [snapshot.name(node) for node in m.nodes])
        for m in find_mentions(snapshot, question)
    ]


def test_an_alias_links_its_node_as_written_inflected_and_without_its_disambiguator(
    lexicon: Snapshot,
) -> None:
    assert linked(lexicon, "what is the opposite word for convex") == [
        ("opposite word", ["antonym"]),
        ("convex", ["convex"]),
    ]
    assert linked(lexicon, "Drinking glasses, please") == [
        ("Drinking glasses", ["glass (container)"])
    ]
    assert linked(lexicon, "a drinking vessel") == []  # a disambiguator alone names nothing
    (mention,) = find_mentions(lexicon, "the glass (drinking vessel) on the table")
    assert mention.nodes == (lexicon.internal_id("c"),) and not mention.stemmed


def test_a_name_outranks_an_alias_of_the_same_words_and_the_longest_run_wins(
    lexicon: Snapshot,
) -> None:
    # "opposite" is the base of `opposite (different)` and an alias of `antonym`: the name links
    assert linked(lexicon, "the opposite of convex") == [
        ("opposite", ["opposite (different)"]),
        ("convex", ["convex"]),
    ]
    # "genus Canis" is one alias run, longer than the names `genus` and `Canis` inside it
    assert linked(lexicon, "members of the genus Canis") == [("genus Canis", ["Canis"])]
    assert linked(lexicon, "the genus of Canis") == [("genus", ["genus"]), ("Canis", ["Canis"])]


def test_an_alias_key_pointing_at_a_node_without_that_alias_links_nothing(
    lexicon: Snapshot,
) -> None:
    """Keys are hashes: an alias match is confirmed against the node's own aliases."""
    names = [lexicon.name(node) for node in range(lexicon.num_nodes)]
    swapped = list(ALIASES)
    swapped[0], swapped[3] = swapped[3], swapped[0]  # keys of `antonym`'s aliases, on convex
    built = NameIndex.from_names(names, "english", [list(a or []) for a in swapped])
    arrays = built.arrays
    aliases = AliasStore.of([list(a or []) for a in ALIASES])  # ... but `antonym`'s own aliases
    kept = replace(arrays, alias_offsets=aliases.offsets, alias_bytes=aliases.data)
    snapshot = Snapshot.open(lexicon.path)
    snapshot.__dict__["names"] = NameIndex(kept, built.name_forms)
    # the run "opposite word" finds convex, which does not bear it: the shorter name links
    assert linked(snapshot, "an opposite word") == [("opposite", ["opposite (different)"])]
    assert linked(lexicon, "an opposite word") == [("opposite word", ["antonym"])]


def test_an_alias_that_only_clips_the_name_is_not_indexed(tmp_path: Path) -> None:
    """HPO gives `Mitochondrial inheritance` the exact synonym "Mitochondrial": part of a name
    links nothing, as a name's own part does not."""
    table = pa.table(
        {
            "id": ["mi", "in"],
            "type": ["inheritance"] * 2,
            "name": ["Mitochondrial inheritance", "Mode of inheritance"],
            "text": ["inheritance of traits on the mitochondrial genome", "how traits pass on"],
            "aliases": [["Mitochondrial", "maternal inheritance"], ["Inheritance"]],
        }
    )
    edges = pa.table({"src": ["mi"], "dst": ["in"], "relation": ["is_a"]})
    snapshot = Snapshot.open(build_snapshot(table, edges, tmp_path / "g", name="g"))
    assert linked(snapshot, "genes on the mitochondrial genome and their inheritance") == []
    assert linked(snapshot, "maternal inheritance") == [
        ("maternal inheritance", ["Mitochondrial inheritance"])
    ]


def test_a_graph_without_aliases_keeps_none_and_links_by_names_alone(tmp_path: Path) -> None:
    table = nodes([None] * len(NAMES)).drop_columns(["aliases"])
    snapshot = Snapshot.open(build_snapshot(table, EDGES, tmp_path / "g", name="g"))
    assert not len(snapshot.names.arrays.alias_offsets)
    assert snapshot.names.aliases(0) == []
    assert linked(snapshot, "what is the opposite word for convex") == [
        ("opposite", ["opposite (different)"]),
        ("convex", ["convex"]),
    ]


def test_a_string_column_splits_its_aliases_at_bars(tmp_path: Path) -> None:
    column = pa.array([" opposite word |opposite", "", "drinking glass", None, "genus Canis", "|"])
    assert alias_lists(column) == [["opposite word", "opposite"], [], ["drinking glass"], [],
                                   ["genus Canis"], []]  # fmt: skip
    snapshot = Snapshot.open(build_snapshot(nodes(column), EDGES, tmp_path / "g", name="g"))
    assert snapshot.names.aliases(snapshot.internal_id("a")) == ["opposite word", "opposite"]
    assert linked(snapshot, "an opposite word") == [("opposite word", ["antonym"])]


@pytest.mark.parametrize("streaming", [False, True])
def test_an_aliases_column_of_another_type_is_refused_with_the_fix(
    tmp_path: Path, streaming: bool
) -> None:
    table = nodes(pa.array(range(len(NAMES)), pa.int64()))
    with pytest.raises(GraphImportError, match=r"'aliases' has type int64.*list of strings"):
        build_snapshot(table, EDGES, tmp_path / "g", name="g",
                       options=BuildOptions(streaming=streaming))  # fmt: skip
    assert not (tmp_path / "g").exists()


def test_both_builds_write_the_same_alias_index_and_verify_accepts_it(tmp_path: Path) -> None:
    memory, stream = build_both(nodes(ALIASES), EDGES, tmp_path)
    assert differing_files(memory, stream) == []
    snapshot = Snapshot.open(memory)
    assert snapshot.names.aliases(snapshot.internal_id("c")) == ALIASES[2]
    assert np.asarray(snapshot.names.arrays.alias_offsets).tolist()[-1] == len(
        snapshot.names.arrays.alias_bytes
    )
    verify_snapshot(memory)
