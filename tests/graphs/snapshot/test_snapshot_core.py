from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tiny_graph import drop_checksums

import graphs.build.memory as build_module
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphError, GraphImportError, SnapshotError, UnknownNodeError
from graphs.manifest import FORMAT_VERSION
from graphs.snapshot import Snapshot


def tiny_tables() -> tuple[pa.Table, pa.Table]:
    nodes = pa.table(
        {
            "id": ["p1", "a1", "a2", "p2", "v1"],
            "type": ["paper", "author", "author", "paper", "venue"],
            "name": ["Graph retrieval", "Alice", "Bob", "Deep nets", "KDD"],
            "text": ["agents over graphs", "alice", "bob writes", "neural networks", "conference"],
            "year": [2020, None, None, 2021, None],
        }
    )
    edges = pa.table(
        {
            "src": ["a1", "a2", "p1", "a1", "p1", "p2"],
            "dst": ["p1", "p1", "p2", "p2", "v1", "v1"],
            "relation": ["writes", "writes", "cites", "writes", "published_in", "published_in"],
        }
    )
    return nodes, edges


@pytest.fixture
def snapshot(tmp_path: Path) -> Snapshot:
    nodes, edges = tiny_tables()
    out = build_snapshot(nodes, edges, tmp_path / "snap", name="tiny", candidate_types=["paper"])
    return Snapshot.open(out)


def test_manifest_records_counts_types_and_signatures(snapshot: Snapshot) -> None:
    manifest = snapshot.manifest
    assert manifest.format_version == FORMAT_VERSION
    assert (manifest.num_nodes, manifest.num_edges) == (5, 6)
    assert manifest.node_types == {"author": 2, "paper": 2, "venue": 1}
    assert manifest.relations == {"cites": 1, "published_in": 2, "writes": 3}
    signatures = {(s.relation, s.source_type, s.target_type): s.count for s in manifest.signatures}
    assert signatures == {
        ("cites", "paper", "paper"): 1,
        ("published_in", "paper", "venue"): 2,
        ("writes", "author", "paper"): 3,
    }
    assert manifest.candidate_types == ["paper"]
    assert manifest.extra_columns == ["year"]
    assert len(manifest.content_hash) == 64
    saved = pq.read_table(snapshot.path / "nodes.parquet")
    assert saved.column("year").to_pylist() == [2020, None, None, 2021, None]


def test_node_accessors(snapshot: Snapshot) -> None:
    alice = snapshot.internal_id("a1")
    assert snapshot.external_id(alice) == "a1"
    assert snapshot.name(alice) == "Alice"
    assert snapshot.text(alice) == "alice"
    assert snapshot.text(snapshot.internal_id("p1")) == "agents over graphs"
    assert snapshot.type_name(alice) == "author"
    assert snapshot.node_type_codes[alice] == snapshot.type_code("author")
    assert snapshot.degrees.tolist() == [4, 2, 1, 3, 2]
    found = snapshot.find_internal_ids(["p2", "nope", "a1", ""])
    assert found.tolist() == [snapshot.internal_id("p2"), -1, alice, -1]


def test_node_columns_read_the_imports_extra_columns_and_name_a_missing_one(
    snapshot: Snapshot,
) -> None:
    columns = snapshot.node_columns(["id", "year"])
    assert dict(zip(columns["id"], columns["year"], strict=True))["p2"] == 2021
    with pytest.raises(SnapshotError, match=r"no column label \(it has id, .*year"):
        snapshot.node_columns(["id", "label"])


def test_batched_accessors_equal_single_ones_in_order_with_repeats(snapshot: Snapshot) -> None:
    nodes = np.array([4, 0, 2, 0, 3])
    ids, names, types = snapshot.labels(nodes)
    assert ids == [snapshot.external_id(n) for n in nodes.tolist()]
    assert names == [
        "KDD",
        "Graph retrieval",
        "Bob",
        "Graph retrieval",
        "Deep nets",
    ]
    assert snapshot.texts(nodes) == [snapshot.text(n) for n in nodes.tolist()]
    assert types == [snapshot.type_name(n) for n in nodes.tolist()]
    assert snapshot.labels(np.zeros(0, np.int64)) == ([], [], [])
    with pytest.raises(GraphError, match="internal node id 7 is out of range"):
        snapshot.labels(np.array([0, 7]))
    with pytest.raises(GraphError, match="internal node id 5 is out of range"):
        snapshot.texts(np.array([1, 5]))
    with pytest.raises(GraphError, match="internal node id -1 is out of range"):
        snapshot.labels(np.array([-1]))
    with pytest.raises(GraphError, match="1-D integer array"):
        snapshot.labels(np.array([0.5]))


def test_unknown_names_raise_and_list_valid_ones(snapshot: Snapshot) -> None:
    with pytest.raises(UnknownNodeError) as unknown:
        snapshot.internal_id("zzz")
    assert unknown.value.node_id == "zzz"
    assert isinstance(unknown.value, KeyError)
    with pytest.raises(GraphError, match="valid node types: author, paper, venue"):
        snapshot.type_code("person")
    with pytest.raises(GraphError, match="valid relations: cites, published_in, writes"):
        snapshot.relation_code("likes")
    with pytest.raises(GraphError, match="out of range"):
        snapshot.name(99)


def test_neighbors_with_filters(snapshot: Snapshot) -> None:
    p1 = snapshot.internal_id("p1")
    around = snapshot.neighbors(p1)
    seen = {
        (snapshot.external_id(int(n)), snapshot.relation_names[r], int(d))
        for n, r, d in zip(around.nodes, around.relations, around.directions, strict=True)
    }
    assert seen == {
        ("a1", "writes", -1),
        ("a2", "writes", -1),
        ("p2", "cites", 1),
        ("v1", "published_in", 1),
    }
    assert around.nodes.dtype == np.int64 and around.relations.dtype == np.int16
    writers = snapshot.neighbors(p1, relations=[snapshot.relation_code("writes")])
    assert sorted(snapshot.external_id(int(n)) for n in writers.nodes) == ["a1", "a2"]
    venues = snapshot.neighbors(p1, node_types=[snapshot.type_code("venue")])
    assert [snapshot.external_id(int(n)) for n in venues.nodes] == ["v1"]
    none = snapshot.neighbors(
        p1, node_types=[snapshot.type_code("venue")], relations=[snapshot.relation_code("writes")]
    )
    assert len(none) == 0


def test_neighbors_match_brute_force_on_random_graph(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    num_nodes, types, relations = 60, ["a", "b", "c"], ["r0", "r1", "r2", "r3"]
    node_types = rng.integers(0, len(types), num_nodes)
    pairs = {
        (int(s), int(d), int(r))
        for s, d, r in zip(
            rng.integers(0, num_nodes, 900),
            rng.integers(0, num_nodes, 900),
            rng.integers(0, len(relations), 900),
            strict=True,
        )
        if s != d
    }
    edges = sorted(pairs)
    nodes = pa.table(
        {
            "id": [f"n{i}" for i in range(num_nodes)],
            "type": [types[t] for t in node_types],
            "name": [f"node {i}" for i in range(num_nodes)],
            "text": ["x"] * num_nodes,
        }
    )
    edge_table = pa.table(
        {
            "src": [f"n{s}" for s, _, _ in edges],
            "dst": [f"n{d}" for _, d, _ in edges],
            "relation": [relations[r] for _, _, r in edges],
        }
    )
    snap = Snapshot.open(build_snapshot(nodes, edge_table, tmp_path / "rand", name="rand"))
    wanted_types, wanted_relations = ["a", "c"], ["r1", "r3"]
    for node in range(num_nodes):
        internal = snap.internal_id(f"n{node}")
        expected = {(d, r, 1) for s, d, r in edges if s == node}
        expected |= {(s, r, -1) for s, d, r in edges if d == node}
        filtered = {
            item
            for item in expected
            if types[node_types[item[0]]] in wanted_types and relations[item[1]] in wanted_relations
        }
        got = snap.neighbors(
            internal,
            node_types=[snap.type_code(t) for t in wanted_types],
            relations=[snap.relation_code(r) for r in wanted_relations],
        )
        as_set = {
            (int(snap.external_id(int(n))[1:]), relations.index(snap.relation_names[r]), int(d))
            for n, r, d in zip(got.nodes, got.relations, got.directions, strict=True)
        }
        assert as_set == filtered
        assert snap.degrees[internal] == len(expected)


def test_existing_output_needs_overwrite(tmp_path: Path) -> None:
    nodes, edges = tiny_tables()
    out = build_snapshot(nodes, edges, tmp_path / "snap", name="one")
    with pytest.raises(
        GraphImportError,
        match=r"already exists; pass --overwrite \(Python: BuildOptions\(overwrite=True\)\)",
    ):
        build_snapshot(nodes, edges, out, name="two")
    build_snapshot(nodes, edges, out, name="two", options=BuildOptions(overwrite=True))
    assert Snapshot.open(out).manifest.name == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]
    other = tmp_path / "precious"
    other.mkdir()
    (other / "data.txt").write_text("keep me")
    with pytest.raises(GraphImportError, match="is not a snapshot"):
        build_snapshot(nodes, edges, other, name="x", options=BuildOptions(overwrite=True))
    assert (other / "data.txt").read_text() == "keep me"


def test_interrupted_build_leaves_nothing_openable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(build_module, "build_index", explode)
    nodes, edges = tiny_tables()
    with pytest.raises(KeyboardInterrupt):
        build_snapshot(nodes, edges, tmp_path / "snap", name="x")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SnapshotError, match="does not exist"):
        Snapshot.open(tmp_path / "snap")


def test_stale_temp_dir_of_dead_process_is_removed(tmp_path: Path) -> None:
    stale = tmp_path / ".snap.tmp-999999999-deadbeef"
    (stale / "csr").mkdir(parents=True)
    mine = tmp_path / f".snap.tmp-{os.getpid()}-cafecafe"
    mine.mkdir()
    nodes, edges = tiny_tables()
    build_snapshot(nodes, edges, tmp_path / "snap", name="x")
    assert not stale.exists()
    assert mine.exists()  # a live process's temp dir is left alone


def _build(tmp_path: Path) -> Path:
    nodes, edges = tiny_tables()
    return build_snapshot(nodes, edges, tmp_path / "snap", name="x")


def test_open_refuses_other_format_version(tmp_path: Path) -> None:
    out = _build(tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["format_version"] = FORMAT_VERSION + 1
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(SnapshotError, match=f"format version {FORMAT_VERSION + 1}.*rebuild"):
        Snapshot.open(out)


def test_open_refuses_missing_manifest_and_resized_file(tmp_path: Path) -> None:
    out = _build(tmp_path)
    with (out / "csr" / "neighbors.npy").open("ab") as handle:
        handle.write(b"\0" * 8)
    with pytest.raises(SnapshotError, match=r"csr/neighbors\.npy has \d+ bytes.*rebuild"):
        Snapshot.open(out)
    (out / "manifest.json").unlink()
    with pytest.raises(SnapshotError, match=r"manifest\.json is missing"):
        Snapshot.open(out)


def test_open_refuses_parts_from_another_build(tmp_path: Path) -> None:
    out = _build(tmp_path)
    (out / "ids" / "meta.json").write_text(json.dumps({"content_hash": "0" * 64}))
    with pytest.raises(SnapshotError, match="ids/ was built from content '000000000000'"):
        Snapshot.open(out)


def test_verify_rehashes_content(tmp_path: Path) -> None:
    out = _build(tmp_path)
    Snapshot.open(out, verify=True)
    data = bytearray((out / "edges.parquet").read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, different bytes: only a re-hash notices
    (out / "edges.parquet").write_bytes(bytes(data))
    with pytest.raises(SnapshotError, match=r"edges\.parquet was changed after the build"):
        Snapshot.open(out)  # its stamp changed: hashed again at this open
    drop_checksums(out)  # a snapshot built before checksums: only verify re-hashes
    Snapshot.open(out)
    with pytest.raises(SnapshotError, match=r"hash .* differs from the manifest"):
        Snapshot.open(out, verify=True)


def test_index_search_uses_internal_ids(snapshot: Snapshot) -> None:
    ids, scores = snapshot.index.search("bob", 3)
    assert [snapshot.external_id(int(i)) for i in ids] == ["a2"]
    assert scores[0] > 0


def test_neighbors_refuse_unknown_codes(snapshot: Snapshot) -> None:
    with pytest.raises(
        GraphError, match="unknown node type code 7; valid node type codes: 0=author"
    ):
        snapshot.neighbors(0, node_types=[7])
    with pytest.raises(GraphError, match="unknown relation code -1"):
        snapshot.neighbors(0, relations=[-1])


def test_csr_key_sort_and_lexsort_fallback_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graphs.snapshot.csr as csr_module

    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 30, 200), rng.integers(0, 30, 200)
    relations = rng.integers(0, 3, 200).astype(np.int16)
    types = rng.integers(0, 2, 30).astype(np.int16)
    csr_module.build_csr(tmp_path / "key", src, dst, relations, types, 3)
    monkeypatch.setattr(csr_module, "KEY_LIMIT", 0)
    csr_module.build_csr(tmp_path / "lex", src, dst, relations, types, 3)
    for name in csr_module.ARRAY_FILES:
        key = np.load(tmp_path / "key" / f"{name}.npy")
        lex = np.load(tmp_path / "lex" / f"{name}.npy")
        assert np.array_equal(key, lex), name
    key_csr = csr_module.CSR(tmp_path / "key", 2)
    assert np.array_equal(key_csr.neighbor_types, types[key_csr.neighbors])


def test_a_folder_of_documents_is_pointed_at_ark_graph_extract(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("Ada Lovelace wrote notes.")
    with pytest.raises(SnapshotError, match=r"holds documents, not a snapshot.*ark graph extract"):
        Snapshot.open(tmp_path)
