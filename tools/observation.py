"""Observation: what one tool call returns to the agent (text for the model, structured data)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tools.errors import ToolCallError


@dataclass(frozen=True)
class ToolErrorInfo:
    """Why a call was rejected: a machine-readable kind and the message the model sees."""

    kind: str
    message: str


@dataclass(frozen=True, kw_only=True)
class Observation:
    """The result of one tool call.

    Attributes:
        text: Exactly what the model sees (tools/format.py owns every format).
        node_ids: External ids shown, in order (a neighbour node once, however it is linked).
        scores: BM25 scores aligned with `node_ids` (empty when the listing is unranked).
        error: Set when the call was bad (unknown tool, bad arguments, unknown id or name).
        selected: Ids `select` newly accepted, in order (duplicates and unknown ids excluded).
        finished: True when `finish` was called.
    """

    text: str
    node_ids: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    error: ToolErrorInfo | None = None
    selected: list[str] = field(default_factory=list)
    finished: bool = False

    @classmethod
    def from_error(cls, error: ToolCallError) -> Observation:
        """An observation whose text is the error message, recorded as an error of its kind."""
        return cls(text=f"error: {error.message}", error=ToolErrorInfo(error.kind, error.message))

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (for --json output and trajectory records)."""
        return asdict(self)
