"""The agent with dense_search: offered by the flag, used by the rule policy, z-score fused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.rules.rank_fusion import fuse_rankings, reciprocal_rank_fusion, zscore_fusion
from cli.flags.agent import agent_config
from graphs.dense.build import EmbedRequest, embed_snapshot
from graphs.dense.encoder import TextEncoder
from graphs.snapshot import Snapshot
from tools.listing_parse import ListedNode


def _node(node_id: str, score: float | None = None) -> ListedNode:
    return ListedNode(node_id=node_id, name=node_id, type="product", score=score)


def _ids(nodes: list[ListedNode]) -> list[str]:
    return [node.node_id for node in nodes]


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion([[_node("a"), _node("b")], [_node("b"), _node("c")]])
    # b: 1/62 + 1/61 beats a: 1/61 and c: 1/62
    assert _ids(fused) == ["b", "a", "c"]


def test_zscore_fusion_by_hand() -> None:
    keyword = [_node("a", 30.0), _node("b", 20.0), _node("c", 10.0)]  # z: 1.2247, 0, -1.2247
    dense = [_node("d", 0.9), _node("c", 0.7)]  # z: 1, -1
    fused = zscore_fusion([keyword, dense])
    # a 1.2247 - 1 = 0.2247; b 0 - 1 = -1; c -1.2247 - 1 = -2.2247; d -1.2247 + 1 = -0.2247
    assert _ids(fused) == ["a", "d", "b", "c"]
    # RRF puts the shared node c first although the keyword list ranks it last
    assert _ids(reciprocal_rank_fusion([keyword, dense]))[0] == "c"


def test_a_clear_keyword_winner_survives_a_flat_dense_list() -> None:
    keyword = [_node("gold", 34.1), *(_node(f"k{i}", 30.0 - i / 10) for i in range(19))]
    dense = [_node(f"k{i}", 0.72 - i / 100) for i in range(19, 0, -1)]
    assert _ids(zscore_fusion([keyword, dense]))[0] == "gold"
    assert _ids(reciprocal_rank_fusion([keyword, dense]))[0] != "gold"


@pytest.mark.parametrize(
    "rankings",
    [
        [[_node("x", 1.0), _node("y", 1.0)], [_node("y", 0.5)]],  # no spread: no preference
        [[], [_node("y", 0.5), _node("x", 0.4)]],
    ],
)
def test_zscore_fusion_handles_flat_and_empty_lists(rankings: list[list[ListedNode]]) -> None:
    fused = zscore_fusion(rankings)
    assert sorted(_ids(fused)) == ["x", "y"] and len(fused) == 2


def test_fuse_rankings_uses_rrf_without_scores_and_keeps_a_single_list() -> None:
    alone = [_node("x", 2.0), _node("y", 1.0)]
    assert fuse_rankings([alone]) == alone
    unscored = [[_node("a"), _node("b")], [_node("b"), _node("c")]]
    assert _ids(fuse_rankings(unscored)) == ["b", "a", "c"]
    scored = [[_node("a", 3.0), _node("b", 2.0), _node("c", 1.0)], [_node("c", 0.9)]]
    assert _ids(fuse_rankings(scored)) == _ids(zscore_fusion(scored))


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
