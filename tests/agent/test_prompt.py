"""The system prompt follows the toolset: an ablated run is never told to use what is off."""

from __future__ import annotations

import asyncio

import pytest

from agent.factory import make_agent
from agent.models.scripted import ScriptedModel, tool_call_message
from cli.flags.agent import Ablation, agent_config
from graphs.snapshot import Snapshot


def system_prompt(snapshot: Snapshot, ablate: list[Ablation]) -> str:
    """The system message an agent built through the CLI's flag mapping actually sends."""
    config = agent_config(model="rules", agents=1, max_steps=4, ablate=ablate)
    model = ScriptedModel([tool_call_message("finish", {})])
    result = asyncio.run(make_agent(snapshot, config, model=model).ask("papers by Ada?"))
    message = result.trajectories[0].messages[0]
    assert message["role"] == "system"
    return str(message["content"])


def how_to_work(prompt: str) -> str:
    return prompt[prompt.index("# How to work") :]


def test_the_full_toolset_prompt_names_neighbors_filters_and_query(
    tiny_snapshot: Snapshot,
) -> None:
    advice = how_to_work(system_prompt(tiny_snapshot, []))
    assert "expand it with `neighbors`, filtering by the node type of the answers" in advice
    assert "ranking with a `query`" in advice
    assert "Always use type and relation filters" in advice
    assert "Only ids a tool has shown you can be selected." in advice


def test_no_neighbors_never_mentions_neighbours(tiny_snapshot: Snapshot) -> None:
    prompt = system_prompt(tiny_snapshot, [Ablation.no_neighbors])
    assert "neighbo" not in prompt.lower()
    assert "filter" not in how_to_work(prompt)
    assert "`search` query" in how_to_work(prompt)  # relational questions still get advice


def test_no_query_ranking_never_asks_for_a_neighbour_query(tiny_snapshot: Snapshot) -> None:
    advice = how_to_work(system_prompt(tiny_snapshot, [Ablation.no_query_ranking]))
    assert "`query`" not in advice
    assert "ranking" not in advice
    assert "filtering by the node type of the answers" in advice
    assert "not by relevance" in advice


def test_no_type_filters_never_asks_for_filters(tiny_snapshot: Snapshot) -> None:
    prompt = system_prompt(tiny_snapshot, [Ablation.no_type_filters])
    assert "filter" not in prompt.lower()
    assert "expand it with `neighbors`, ranking with a `query`" in how_to_work(prompt)


@pytest.mark.parametrize("ablate", [[Ablation.no_query_ranking, Ablation.no_type_filters]])
def test_ablations_combine(tiny_snapshot: Snapshot, ablate: list[Ablation]) -> None:
    advice = how_to_work(system_prompt(tiny_snapshot, ablate))
    assert "expand it with `neighbors`. Expand again" in advice
    assert "filter" not in advice and "`query`" not in advice


def test_the_brief_prompt_keeps_the_graph_schema_and_the_rules(tiny_snapshot: Snapshot) -> None:
    config = agent_config(model="rules", agents=1, max_steps=4, brief_prompt=True)
    assert config.brief_prompt and config.tools.brief_schemas
    model = ScriptedModel([tool_call_message("finish", {})])
    result = asyncio.run(make_agent(tiny_snapshot, config, model=model).ask("papers by Ada?"))
    brief = str(result.trajectories[0].messages[0]["content"])
    full = system_prompt(tiny_snapshot, [])
    manifest = tiny_snapshot.manifest
    for node_type in manifest.node_types:
        assert node_type in brief
    for sig in manifest.signatures:
        assert f"{sig.relation} ({sig.source_type} -> {sig.target_type})" in brief
    assert "at most 4 turns" in brief and "[brackets]" in brief
    assert "# How to work" not in brief
    assert len(brief) < len(full) / 2
    assert result.trajectories[0].config["brief_prompt"] is True  # recorded with the run
