from __future__ import annotations

from pathlib import Path

import networkx as nx
import pyarrow.parquet as pq
import pytest

import graphs.build.stream.parquet_out
from graphs.build.options import BuildOptions
from graphs.errors import GraphError, GraphImportError, UnknownNodeError
from graphs.importers.networkx_io import snapshot_from_networkx, to_networkx
from graphs.snapshot import Snapshot

NAME_AS_TEXT = BuildOptions(allow_empty_text=True)


def chain_graph() -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for i in range(5):
        graph.add_node(i, type="paper" if i % 2 == 0 else "author", name=f"n{i}", text=f"t{i}")
    graph.nodes[0]["year"] = 2001
    for i in range(4):
        graph.add_edge(i, i + 1, relation="next")
    graph.add_edge(0, 1, relation="other")  # parallel edge, different relation
    return graph


def test_multidigraph_round_trip(tmp_path: Path) -> None:
    graph = chain_graph()
    snap = Snapshot.open(snapshot_from_networkx(graph, tmp_path / "s", name="chain"))
    assert (snap.num_nodes, snap.num_edges) == (5, 5)
    assert snap.manifest.extra_columns == ["year"]
    back = to_networkx(snap)
    assert isinstance(back, nx.MultiDiGraph)
    assert sorted(back.nodes) == ["0", "1", "2", "3", "4"]
    assert back.nodes["2"] == {"type": "paper", "name": "n2", "text": "t2"}
    assert back.nodes["0"] == {"type": "paper", "name": "n0", "text": "t0", "year": "2001"}
    edges = sorted((u, v, d["relation"]) for u, v, d in back.edges(data=True))
    assert edges == [
        ("0", "1", "next"),
        ("0", "1", "other"),
        ("1", "2", "next"),
        ("2", "3", "next"),
        ("3", "4", "next"),
    ]


def test_subgraph_around_nodes_by_hops(tmp_path: Path) -> None:
    snap = Snapshot.open(snapshot_from_networkx(chain_graph(), tmp_path / "s"))
    one = to_networkx(snap, ["2"], hops=1)
    assert sorted(one.nodes) == ["1", "2", "3"]
    assert sorted((u, v) for u, v in one.edges()) == [("1", "2"), ("2", "3")]
    two = to_networkx(snap, ["2"], hops=2)
    assert sorted(two.nodes) == ["0", "1", "2", "3", "4"]
    assert two.number_of_edges() == 5
    assert sorted(to_networkx(snap, ["4"], hops=0).nodes) == ["4"]
    with pytest.raises(UnknownNodeError):
        to_networkx(snap, ["nope"])
    with pytest.raises(GraphError, match="more than max_edges=3"):
        to_networkx(snap, max_edges=3)


def test_undirected_graph_keeps_one_edge_per_pair(tmp_path: Path) -> None:
    graph = nx.Graph()
    graph.add_nodes_from(["a", "b", "c"], type="thing")
    graph.add_edge("a", "b", relation="near")
    graph.add_edge("c", "b", relation="near")
    snap = Snapshot.open(snapshot_from_networkx(graph, tmp_path / "s", options=NAME_AS_TEXT))
    assert snap.num_edges == 2
    assert snap.name(snap.internal_id("a")) == "a"  # no name attribute: the node key
    around = snap.neighbors(snap.internal_id("b"))
    assert sorted(snap.external_id(int(n)) for n in around.nodes) == ["a", "c"]


def test_missing_type_is_invalid_unless_defaulted(tmp_path: Path) -> None:
    graph = nx.DiGraph()
    graph.add_node("a", type="t")
    graph.add_node("b")
    graph.add_edge("a", "b")
    with pytest.raises(GraphImportError, match="file networkx nodes, row 2: empty node type"):
        snapshot_from_networkx(graph, tmp_path / "s", options=NAME_AS_TEXT)
    out = snapshot_from_networkx(
        graph,
        tmp_path / "s",
        default_type="t",
        default_relation="linked",
        options=NAME_AS_TEXT,
    )
    assert Snapshot.open(out).manifest.relations == {"linked": 1}


def test_node_without_text_is_invalid_unless_allowed(tmp_path: Path) -> None:
    graph = nx.DiGraph()
    graph.add_node("a", type="t", name="Alpha", text="first")
    graph.add_node("b", type="t", name="Beta")
    graph.add_edge("a", "b", relation="r")
    with pytest.raises(GraphImportError) as raised:
        snapshot_from_networkx(graph, tmp_path / "s")
    assert str(raised.value).startswith("file networkx nodes, row 2: empty text: 'b'")
    assert "--allow-empty-text (Python: BuildOptions(allow_empty_text=True))" in str(raised.value)
    snap = Snapshot.open(snapshot_from_networkx(graph, tmp_path / "s", options=NAME_AS_TEXT))
    assert snap.text(snap.internal_id("b")) == "Beta"


def test_extra_attributes_come_back_from_any_row_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Row groups of two rows, so a sub-graph export reads only some of them.
    monkeypatch.setattr(graphs.build.stream.parquet_out, "ROW_GROUP", 2)
    graph = nx.MultiDiGraph()
    for i in range(7):
        graph.add_node(i, type="t", name=f"n{i}", text=f"t{i}", rank=i * 10)
        if i % 3 == 0:
            graph.nodes[i]["tag"] = f"tag{i}"
    for i in range(6):
        graph.add_edge(i, i + 1, relation="next")
    snap = Snapshot.open(snapshot_from_networkx(graph, tmp_path / "s"))
    assert pq.ParquetFile(snap.path / "nodes.parquet").num_row_groups == 4
    for seeds, hops in ((["4"], 1), (["0", "6"], 0), (None, 1)):
        back = to_networkx(snap, seeds, hops=hops)
        for key, data in back.nodes(data=True):
            i = int(key)
            expected = {"rank": str(i * 10)} | ({"tag": f"tag{i}"} if i % 3 == 0 else {})
            assert {k: v for k, v in data.items() if k in ("rank", "tag")} == expected
    assert sorted(to_networkx(snap, ["4"]).nodes) == ["3", "4", "5"]


def test_parallel_edges_collapse_and_self_loops_stay_unless_strict(tmp_path: Path) -> None:
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(["a", "b"], type="thing")
    graph.add_edge("a", "b", relation="near")
    graph.add_edge("a", "b", relation="near")  # a parallel edge with the same relation
    graph.add_edge("a", "b", relation="far")  # another relation: a different edge
    graph.add_edge("b", "b", relation="near")
    snap = Snapshot.open(snapshot_from_networkx(graph, tmp_path / "s", options=NAME_AS_TEXT))
    assert snap.num_edges == 3
    assert (snap.manifest.duplicate_edges, snap.manifest.self_loops) == (1, 1)
    strict = BuildOptions(allow_empty_text=True, strict=True)
    with pytest.raises(GraphImportError, match="duplicate edge") as raised:
        snapshot_from_networkx(graph, tmp_path / "strict", options=strict)
    assert "self-loop (src == dst): 'b'" in str(raised.value)
