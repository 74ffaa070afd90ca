"""The paper's toolset switch, its ablations, and the open neighbourhood (no self-loops)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from agent.prompt import render_system_prompt
from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.toolset import Toolset


def _properties(toolset: Toolset, name: str) -> set[str]:
    for schema in toolset.schemas():
        if schema["function"]["name"] == name:
            return set(schema["function"]["parameters"]["properties"])
    raise AssertionError(f"{name} not offered")


def test_paper_toolset_has_search_q_k_and_a_fixed_neighbour_budget(
    tiny_snapshot: Snapshot,
) -> None:
    paper = Toolset(tiny_snapshot, ToolConfig(toolset="paper"))
    extended = Toolset(tiny_snapshot, ToolConfig())
    assert _properties(paper, "search") == {"query", "k"}
    assert _properties(extended, "search") == {"query", "k", "node_types"}
    assert _properties(paper, "neighbors") == {"node_id", "query", "node_types", "edge_types"}
    assert _properties(extended, "neighbors") == {
        "node_id",
        "query",
        "node_types",
        "edge_types",
        "k",
    }
    assert paper.tool_names == ["search", "neighbors", "select", "finish"]


def test_paper_neighbors_ignore_k_and_show_twenty(tiny_snapshot: Snapshot) -> None:
    paper = Toolset(tiny_snapshot, ToolConfig(toolset="paper", neighbors_k=2))
    observation = paper.call("neighbors", {"node_id": "P1", "k": 4})
    assert len(observation.node_ids) == 2  # the fixed budget, not the k asked for
    assert "note: the paper's neighbors shows a fixed 2 neighbours in this run; k ignored." in (
        observation.text
    )
    assert ToolConfig(toolset="paper").neighbors_k == 20


def test_paper_search_ignores_a_type_filter(tiny_snapshot: Snapshot) -> None:
    paper = Toolset(tiny_snapshot, ToolConfig(toolset="paper"))
    observation = paper.call("search", {"query": "babbage", "node_types": ["paper"]})
    assert "A2" in observation.node_ids  # an author: no filter applied
    assert "type filter in this run; node_types ignored" in observation.text


@pytest.mark.parametrize(
    ("switches", "tools", "neighbor_fields"),
    [
        ({}, ["search", "neighbors", "select", "finish"], {"query", "node_types", "edge_types"}),
        ({"enable_neighbors": False}, ["search", "select", "finish"], set()),
        (
            {"neighbor_query_ranking": False},
            ["search", "neighbors", "select", "finish"],
            {"node_types", "edge_types"},
        ),
        ({"type_filters": False}, ["search", "neighbors", "select", "finish"], {"query"}),
    ],
    ids=["full", "w/o Neighbors", "Neighbors w/o q", "Neighbors w/o F"],
)
def test_table_2_ablations_relative_to_the_paper_toolset(
    tiny_snapshot: Snapshot, switches: dict[str, bool], tools: list[str], neighbor_fields: set[str]
) -> None:
    toolset = Toolset(tiny_snapshot, ToolConfig(toolset="paper", **switches))
    assert toolset.tool_names == tools
    if neighbor_fields:
        assert _properties(toolset, "neighbors") == {"node_id", *neighbor_fields}
    assert _properties(toolset, "search") == {"query", "k"}  # Table 2 never ablates search


def test_paper_prompt_never_advises_raising_the_neighbour_k(tiny_snapshot: Snapshot) -> None:
    for switches in ({}, {"neighbor_query_ranking": False}):
        paper = Toolset(tiny_snapshot, ToolConfig(toolset="paper", **switches))
        prompt = render_system_prompt(tiny_snapshot, paper.schemas(), max_steps=20)
        assert "raise k to see more of a large neighbourhood" not in prompt
        assert "`neighbors`" in prompt
    extended = Toolset(tiny_snapshot, ToolConfig(neighbor_query_ranking=False))
    prompt = render_system_prompt(tiny_snapshot, extended.schemas(), max_steps=20)
    assert "raise k to see more of a large neighbourhood" in prompt


def test_paper_toolset_refuses_dense_search() -> None:
    with pytest.raises(ValueError, match="not part of the paper's toolset"):
        ToolConfig(toolset="paper", enable_dense_search=True, dense_encoder="enc")
    with pytest.raises(ValueError, match="'extended' or 'paper'"):
        ToolConfig(toolset="published")  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def looped(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    """A product kept in its own also_buy (a self-loop the build keeps)."""
    nodes = {
        "id": ["B1", "B2", "B3"],
        "type": ["product", "product", "brand"],
        "name": ["Red kettle", "Blue kettle", "Kettle Co"],
        "text": ["A red kettle for tea.", "A blue kettle.", "Makes kettles."],
    }
    edges = {
        "src": ["B1", "B1", "B1"],
        "dst": ["B1", "B2", "B3"],
        "relation": ["also_buy", "also_buy", "has_brand"],
    }
    out = tmp_path_factory.mktemp("looped") / "snapshot"
    build_snapshot(pa.table(nodes), pa.table(edges), out, name="looped")
    return Snapshot.open(out)


def test_a_node_is_never_its_own_neighbour(looped: Snapshot) -> None:
    assert looped.manifest.self_loops == 1
    toolset = Toolset(looped, ToolConfig(enable_node=True))
    ranked = toolset.call("neighbors", {"node_id": "B1", "query": "red kettle tea"})
    assert ranked.node_ids == ["B2", "B3"]
    assert "[B1]" not in ranked.text.split("\n", 1)[1]
    assert "of 2 match the query" in ranked.text
    listed = toolset.call("neighbors", {"node_id": "B1", "edge_types": ["also_buy"]})
    assert listed.node_ids == ["B2"]
    node = toolset.call("node", {"node_id": "B1"})
    assert "-[also_buy]-> product: 1" in node.text
