"""Wiring an ArkAgent from a snapshot and a config: toolset, model and system prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.ark import ArkAgent
from agent.models.action_turns import ActionTurns, ToolCallMode
from agent.models.registry import load_model, parse_model_spec
from agent.prompt import BRIEF_SYSTEM_PROMPT_FILE, SYSTEM_PROMPT_FILE, render_system_prompt
from tools.dense import DenseSearch
from tools.plans.vocabulary import TermStats
from tools.toolset import Toolset

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.models.base import Model
    from graphs.snapshot import Snapshot


def make_agent(snapshot: Snapshot, config: AgentConfig, *, model: Model | None = None) -> ArkAgent:
    """Build the agent for one snapshot.

    Args:
        snapshot: The opened graph snapshot.
        config: The run configuration; `config.model` picks the backend unless `model` is given.
        model: An already built model (tests pass scripted models here).

    Returns:
        A ready ArkAgent.
    """
    if config.answer_types:
        snapshot = snapshot.with_candidate_types(config.answer_types)
    toolset = Toolset(snapshot, config.tools, dense=_dense_search(snapshot, config))
    if model is None:
        model = load_model(config, manifest=snapshot.manifest, vocabulary=TermStats.of(snapshot))
        spec = parse_model_spec(config.model, base_url=config.base_url)
        if config.tool_calls != "native" and spec.backend != "rules":
            model = ActionTurns(
                model, ToolCallMode(config.tool_calls), max_tokens=config.max_tokens
            )
    prompt = render_system_prompt(
        snapshot,
        toolset.schemas(),
        max_steps=config.max_steps,
        template_name=BRIEF_SYSTEM_PROMPT_FILE if config.brief_prompt else SYSTEM_PROMPT_FILE,
    )
    return ArkAgent(toolset, model, config, system_prompt=prompt)


def _dense_search(snapshot: Snapshot, config: AgentConfig) -> DenseSearch | None:
    """The dense_search backend when the run switches it on (the encoder loads once, here)."""
    if not (config.tools.enable_dense_search and config.tools.dense_encoder):
        return None
    from graphs.dense.encoder import TextEncoder

    return DenseSearch.open(snapshot, TextEncoder.load(config.tools.dense_encoder))
