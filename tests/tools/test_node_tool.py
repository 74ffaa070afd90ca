"""The node tool: a node's whole text and its neighbours counted by edge type; opt-in."""

from __future__ import annotations

from typer.testing import CliRunner

from cli.app import build_app
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.node import edge_groups
from tools.schemas import AGENT_STATE_TOOLS
from tools.toolset import Toolset


def test_node_shows_text_and_neighbours_by_edge_type(tiny_snapshot: Snapshot) -> None:
    observation = Toolset(tiny_snapshot, ToolConfig(enable_node=True)).call(
        "node", {"node_id": "P1"}
    )
    assert observation.error is None
    assert observation.node_ids == ["P1"]
    assert observation.text.splitlines() == [
        "[P1] Notes on the Analytical Engine (paper)",
        tiny_snapshot.text(tiny_snapshot.internal_id("P1")),
        "4 neighbours by edge type:",
        "<-[cites]- paper: 2",
        "-[published_in]-> venue: 1",
        "<-[writes]- author: 1",
        "list them with neighbors, filtered by edge_types and node_types.",
    ]


def test_node_groups_split_direction_and_type(tiny_snapshot: Snapshot) -> None:
    groups = edge_groups(tiny_snapshot, tiny_snapshot.internal_id("A2"))
    shown = [(g.relation, g.outgoing, g.node_type, g.count) for g in groups]
    assert shown == [
        ("collaborates_with", False, "author", 1),
        ("member_of", True, "institution", 1),
        ("writes", True, "paper", 2),
    ]
    degree = tiny_snapshot.degrees[tiny_snapshot.internal_id("A2")]
    assert sum(g.count for g in groups) == int(degree)


def test_node_errors_are_recoverable(tiny_snapshot: Snapshot) -> None:
    toolset = Toolset(tiny_snapshot, ToolConfig(enable_node=True))
    unknown = toolset.call("node", {"node_id": "[P1] Notes"})
    assert unknown.error is not None and unknown.error.kind == "unknown_node"
    assert "did you mean 'P1'" in unknown.text
    missing = toolset.call("node", "{}")
    assert missing.error is not None and "missing required field 'node_id'" in missing.text


def test_node_is_not_offered_to_the_agent_by_default(tiny_snapshot: Snapshot) -> None:
    agent_tools = Toolset(tiny_snapshot)
    assert "node" not in agent_tools.tool_names
    rejected = agent_tools.call("node", {"node_id": "P1"})
    assert rejected.error is not None and rejected.error.kind == "unknown_tool"
    assert set(agent_tools.tool_names) >= AGENT_STATE_TOOLS


def test_ark_node_prints_the_observation(tiny_snapshot: Snapshot) -> None:
    result = CliRunner().invoke(build_app(), ["node", str(tiny_snapshot.path), "A1"])
    expected = Toolset(tiny_snapshot, ToolConfig(enable_node=True)).call("node", {"node_id": "A1"})
    assert result.exit_code == 0
    assert result.stdout == expected.text + "\n"
    bad = CliRunner().invoke(build_app(), ["node", str(tiny_snapshot.path), "nope"])
    assert bad.exit_code == 2
    assert "unknown node id 'nope'" in bad.stderr
