"""The LangGraph state of one agent and the run context passed to its nodes."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.events import EventHandler
    from agent.models.base import Model
    from tools.toolset import Toolset


def extend_unique(current: list[str], new: list[str]) -> list[str]:
    """Reducer for the answer list: append new ids in order, ignoring ones already listed."""
    merged = list(current)
    seen = set(current)
    for node_id in new:
        if node_id not in seen:
            seen.add(node_id)
            merged.append(node_id)
    return merged


class AgentState(TypedDict, total=False):
    """State of one agent.

    `messages`, `answers`, `shown` and `steps` only ever grow (their reducers append); `step`
    counts model turns explicitly so the step limit never depends on LangGraph's recursion limit.
    `shown` holds every id a tool listed so far, in the order first shown: `select` accepts only
    these.
    """

    messages: Annotated[list[dict[str, Any]], operator.add]
    answers: Annotated[list[str], extend_unique]
    shown: Annotated[list[str], extend_unique]
    steps: Annotated[list[dict[str, Any]], operator.add]
    step: int
    finished: bool
    stop_reason: str | None
    error: str | None


@dataclass(frozen=True)
class RunContext:
    """Objects one agent run needs, passed to every node through LangGraph's runtime context."""

    toolset: Toolset
    model: Model
    config: AgentConfig
    tools: list[dict[str, Any]]
    agent_index: int = 0
    on_event: EventHandler | None = None
