"""AgentEvent: what running agents report as they go (live traces in the CLI and the REPL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

EventKind = Literal["model", "tool", "nudge", "done"]


@dataclass(frozen=True)
class AgentEvent:
    """One thing an agent just did.

    Attributes:
        agent_index: Which of the n parallel agents.
        kind: "model" (an assistant turn), "tool" (one tool executed), "nudge" (the corrective
            message sent after a turn without a tool call) or "done" (agent stopped).
        step: The agent's step counter (model turns so far) when the event happened.
        tool_name: The tool called ("tool" events).
        arguments: The call's raw JSON arguments ("tool" events).
        observation: The model-facing text of the result ("tool" events).
        error: Error kind and message, for rejected calls and failed model turns.
        content: Assistant text ("model"), the message sent ("nudge"), or the stop reason
            ("done").
        tool_calls: How many tool calls the turn made ("model" events; None when unknown).
    """

    agent_index: int
    kind: EventKind
    step: int
    tool_name: str | None = None
    arguments: str | None = None
    observation: str | None = None
    error: str | None = None
    content: str | None = None
    tool_calls: int | None = None

    @property
    def without_tool_call(self) -> bool:
        """A model turn that answered in text only (the agent is nudged, or stops at its limit)."""
        return self.kind == "model" and self.error is None and self.tool_calls == 0


EventHandler = Callable[[AgentEvent], None]
