"""Node aliases in the name index: linked like names, after them, confirmed, in both builds."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError, SnapshotError
from graphs.importers.tabular import import_tabular
from graphs.layout import META_FILE, NAMES_DIR, NODES_FILE
from graphs.snapshot import Snapshot
from graphs.snapshot.aliases import AliasStore, alias_lists, has_aliases, read_aliases
from graphs.snapshot.name_store import WITHOUT_ALIASES, stored_format
from graphs.snapshot.names import NameIndex, snapshot_names
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


@pytest.mark.parametrize(
    ("column", "first"),
    [
        (pa.array([["opposite word", None], None]), ["opposite word"]),  # nulls inside
        (pa.array([None, None], pa.null()), []),  # all null
        (
            pa.array(["opposite word|opposite", None]).dictionary_encode(),
            ["opposite word", "opposite"],
        ),
        (pa.array([["opposite word"], []], pa.large_list(pa.large_string())), ["opposite word"]),
        (pa.array([["opposite\nword"], []]), ["opposite word"]),  # one line each
    ],
)
def test_aliases_in_every_usable_shape_are_read_alike_in_both_builds(
    tmp_path: Path, column: pa.Array, first: list[str]
) -> None:
    table = nodes([None] * len(NAMES)).drop_columns(["aliases"]).slice(0, 2)
    table = table.append_column("aliases", column)
    edges = pa.table({"src": ["a"], "dst": ["b"], "relation": ["antonym"]})
    memory, stream = build_both(table, edges, tmp_path)
    assert differing_files(memory, stream) == []
    assert Snapshot.open(memory).names.aliases(0) == first


def test_a_refused_aliases_column_keeps_the_snapshot_it_would_replace(tmp_path: Path) -> None:
    out = build_snapshot(nodes(ALIASES), EDGES, tmp_path / "g", name="g")
    before = Snapshot.open(out).manifest.content_hash
    with pytest.raises(GraphImportError, match="aliases"):
        build_snapshot(nodes(pa.array(range(len(NAMES)))), EDGES, out, name="g",
                       options=BuildOptions(overwrite=True))  # fmt: skip
    assert Snapshot.open(out).manifest.content_hash == before


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
    assert [check.problem for check in verify_snapshot(memory)] == [None] * len(
        verify_snapshot(memory)
    )


def test_a_stemmed_name_outranks_an_alias_as_written(tmp_path: Path) -> None:
    """Names before aliases, then as written before stemmed: `glasses` by its stem, not the
    node whose alias is "glass" (nor `glasses` by its own alias "glass")."""
    table = pa.table(
        {
            "id": ["gs", "vs"],
            "type": ["word"] * 2,
            "name": ["glasses", "vessel"],
            "text": ["optical lenses", "a container for liquids"],
            "aliases": [["glass"], ["glass"]],
        }
    )
    edges = pa.table({"src": ["gs"], "dst": ["vs"], "relation": ["see_also"]})
    snapshot = Snapshot.open(build_snapshot(table, edges, tmp_path / "g", name="g"))
    assert linked(snapshot, "a glass of water") == [("glass", ["glasses"])]
    assert linked(snapshot, "a vessel") == [("vessel", ["vessel"])]


def test_csv_aliases_that_look_like_numbers_stay_names(tmp_path: Path) -> None:
    nodes_csv, edges_csv = tmp_path / "genes.csv", tmp_path / "links.csv"
    nodes_csv.write_text("id,type,name,text,aliases\ng1,gene,TP53,tumor protein,7157|p53\n"
                         "g2,gene,BRCA1,breast cancer 1,672\n")  # fmt: skip
    edges_csv.write_text("src,dst,relation\ng1,g2,interacts\n")
    for streaming in (False, True):
        out = import_tabular(nodes_csv, edges_csv, tmp_path / f"out{streaming}",
                             options=BuildOptions(streaming=streaming))  # fmt: skip
        snapshot = Snapshot.open(out)
        assert snapshot.names.aliases(snapshot.internal_id("g1")) == ["7157", "p53"]
        assert linked(snapshot, "what does 7157 do") == [("7157", ["TP53"])]


def test_an_older_snapshot_s_aliases_column_of_numbers_links_nothing(tmp_path: Path) -> None:
    """Imports before the type check kept any column: an `aliases` of numbers is other data.

    Such a snapshot's nodes.parquet is read for aliases when its index is built in memory."""
    older = tmp_path / "older"
    older.mkdir()
    numbers = nodes(pa.array(range(len(NAMES)), pa.int64()))
    pq.write_table(numbers, older / NODES_FILE)
    assert read_aliases(older / NODES_FILE) is None and not has_aliases(older / NODES_FILE)
    index = snapshot_names(older / NAMES_DIR, older, "english", "", pa.array(NAMES))
    assert not len(index.arrays.alias_offsets)
    (run,) = index.runs(["convex"])
    assert index.matches(run).nodes == (3,)


def test_a_names_folder_of_the_format_before_aliases_is_read_as_it_is(tmp_path: Path) -> None:
    """Nodes without an aliases column: names/ of format 2 needs no rebuild; with one, it
    is rebuilt in memory (its index lacks them)."""
    table = nodes([None] * len(NAMES)).drop_columns(["aliases"])
    out = build_snapshot(table, EDGES, tmp_path / "g", name="g")
    names = out / NAMES_DIR
    for file in ("alias_offsets.npy", "alias_bytes.npy"):
        (names / file).unlink()
    meta = json.loads((names / META_FILE).read_text())
    (names / META_FILE).write_text(json.dumps({**meta, "format": WITHOUT_ALIASES}))
    index = snapshot_names(names, out, "english", meta["content_hash"], pa.array(NAMES))
    assert isinstance(index.keys, np.ndarray) and not len(index.arrays.alias_offsets)
    assert stored_format(names) == WITHOUT_ALIASES  # read, not rebuilt on disk
    pq.write_table(nodes(ALIASES), out / NODES_FILE)
    rebuilt = snapshot_names(names, out, "english", meta["content_hash"], pa.array(NAMES))
    assert rebuilt.aliases(0) == ["opposite word", "opposite"]


def test_alias_offsets_that_are_not_one_per_node_are_refused(lexicon: Snapshot) -> None:
    names = lexicon.path / NAMES_DIR
    meta = json.loads((names / META_FILE).read_text())
    with pytest.raises(SnapshotError, match="offsets for 5 nodes"):
        snapshot_names(names, lexicon.path, "english", meta["content_hash"], pa.array(NAMES[:5]))
