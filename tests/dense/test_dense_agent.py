"""The agent with dense_search: switched on by the flag, used by the rule policy, fused by RRF."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.rules_plan import reciprocal_rank_fusion
from cli.options import agent_config
from graphs.embed_build import EmbedRequest, embed_snapshot
from graphs.encoder import TextEncoder
from graphs.snapshot import Snapshot
from tools.listing_parse import ListedNode


def _node(node_id: str) -> ListedNode:
    return ListedNode(node_id=node_id, name=node_id, type="product")


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion([[_node("a"), _node("b")], [_node("b"), _node("c")]])
    # b: 1/62 + 1/61 beats a: 1/61 and c: 1/62
    assert [node.node_id for node in fused] == ["b", "a", "c"]
    alone = [_node("x"), _node("y")]
    assert reciprocal_rank_fusion([alone]) == alone


def test_flag_switches_dense_search_on_and_the_rule_policy_uses_it(
    tiny: tuple[Path, Path], encoder_dir: Path
) -> None:
    snapshot = Snapshot.open(tiny[0])
    embed_snapshot(snapshot, TextEncoder.load(encoder_dir), EmbedRequest(variants=[]))
    config = agent_config(model="rules", agents=1, max_steps=10, dense_search=encoder_dir)
    assert config.tools.enable_dense_search and config.tools.dense_encoder == str(encoder_dir)
    agent = make_agent(snapshot, config)
    assert "dense_search" in agent.toolset.tool_names
    result = asyncio.run(agent.ask("a red electric kettle made by Acme"))
    trajectory = result.trajectories[0]
    called = [
        call["function"]["name"]
        for message in trajectory.messages
        for call in message.get("tool_calls") or []
    ]
    assert called[:2] == ["search", "dense_search"]
    assert not [step for step in trajectory.steps if step.error_kind]
    assert result.fused
    plain = make_agent(snapshot, AgentConfig(model="rules", n_agents=1, max_steps=10))
    assert "dense_search" not in plain.toolset.tool_names
