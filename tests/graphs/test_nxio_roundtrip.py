from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from graphs.errors import GraphError, GraphImportError, UnknownNodeError
from graphs.nxio import snapshot_from_networkx, to_networkx
from graphs.snapshot import Snapshot


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
    snap = Snapshot.open(snapshot_from_networkx(graph, tmp_path / "s"))
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
        snapshot_from_networkx(graph, tmp_path / "s")
    out = snapshot_from_networkx(graph, tmp_path / "s", default_type="t", default_relation="linked")
    assert Snapshot.open(out).manifest.relations == {"linked": 1}
