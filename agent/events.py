"""AgentEvent: what running agents report as they go (live traces in the CLI and the REPL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class AgentEvent:
    """One thing an agent just did.

    Attributes:
        agent_index: Which of the n parallel agents.
        kind: "model" (an assistant turn), "tool" (one tool executed) or "done" (agent stopped).
        step: The agent's step counter when the event happened.
        tool_name: The tool called ("tool" events).
        arguments: The call's raw JSON arguments ("tool" events).
        observation: The model-facing text of the result ("tool" events).
        error: Error kind and message, for rejected calls and failed model turns.
        content: Assistant text, or the stop reason for "done" events.
    """

    agent_index: int
    kind: Literal["model", "tool", "done"]
    step: int
    tool_name: str | None = None
    arguments: str | None = None
    observation: str | None = None
    error: str | None = None
    content: str | None = None


EventHandler = Callable[[AgentEvent], None]
