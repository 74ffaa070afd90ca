"""Trajectory records: the versioned contract between agent/, evals/ and distill/ (JSON lines)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from graphs.errors import ArkError

TRAJECTORY_VERSION = 1
"""The format version written; records of a newer version are refused on read."""

StopReason = Literal["finish", "max_steps", "context_full", "error", "cancelled"]
"""How an agent ended: `finish` called, out of steps, its conversation outgrew the model's
context (answers kept, like max_steps), a model failure, or cancelled by the user."""


def new_question_id(source: str) -> str:
    """A question id unique across processes and sessions: ``ask-20250101T120000-1a2b3c4d``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return f"{source}-{stamp}-{uuid.uuid4().hex[:8]}"


class TrajectoryVersionError(ArkError, ValueError):
    """A record was written by a newer ARK in a format this one cannot read."""


def check_version(version: int) -> int:
    """Accept this format version and older ones; refuse newer ones with a clear message."""
    if version > TRAJECTORY_VERSION:
        raise TrajectoryVersionError(
            f"trajectory format version {version} is newer than this ARK reads "
            f"(up to {TRAJECTORY_VERSION}); upgrade ARK to read these records"
        )
    return version


class StepRecord(BaseModel):
    """One step of an agent: a model turn or one tool execution."""

    index: int
    kind: Literal["model", "tool"]
    tool_name: str | None = None
    wall_s: float
    usage: dict[str, int] | None = None
    error_kind: str | None = None
    error: str | None = None
    truncated_chars: int | None = None
    """Characters of the model's reply cut by agent/reply_limit.py (None: none)."""
    turn_as: str | None = None
    """A model turn asked as a JSON-schema-constrained action (`action`) instead of native
    tool calling (None: natively; agent/models/action_turns.py)."""


class Trajectory(BaseModel):
    """Everything one agent did for one question, in OpenAI chat format."""

    version: int = TRAJECTORY_VERSION
    question_id: str | None = None
    question: str
    agent_index: int = 0
    model: str
    config: dict[str, Any] = Field(default_factory=dict)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)
    stop_reason: StopReason = "finish"
    error: str | None = None
    wall_s: float = 0.0

    _version = field_validator("version")(check_version)

    @property
    def tool_errors(self) -> list[StepRecord]:
        """Steps whose tool call was rejected (bad arguments, unknown ids, ...)."""
        return [step for step in self.steps if step.kind == "tool" and step.error_kind]

    def tool_call_counts(self) -> dict[str, int]:
        """How many times each tool was called."""
        counts: dict[str, int] = {}
        for step in self.steps:
            if step.kind == "tool" and step.tool_name:
                counts[step.tool_name] = counts.get(step.tool_name, 0) + 1
        return counts


class QuestionResult(BaseModel):
    """The n agents' trajectories for one question and their fused answer list."""

    version: int = TRAJECTORY_VERSION
    question_id: str | None = None
    question: str
    model: str
    config: dict[str, Any] = Field(default_factory=dict)
    trajectories: list[Trajectory] = Field(default_factory=list)
    fused: list[str] = Field(default_factory=list)
    votes: dict[str, int] = Field(default_factory=dict)
    wall_s: float = 0.0

    _version = field_validator("version")(check_version)

    @property
    def failed(self) -> bool:
        """True when every agent stopped on an error (a failed question, retried on resume)."""
        return bool(self.trajectories) and all(t.stop_reason == "error" for t in self.trajectories)

    @property
    def errors(self) -> list[str]:
        """Distinct agent-level errors (model failures), in agent order."""
        return list(dict.fromkeys(t.error for t in self.trajectories if t.error))
