"""Statistics of an SFT dataset build: questions, rows, skips, tool-call mix, errors, tokens."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agent.trajectory import Trajectory

APPROX_CHARS_PER_TOKEN = 4
"""Characters per token assumed when no tokenizer is given (English text, BPE vocabularies)."""


@dataclass
class DatasetStats:
    """What `build_sft_dataset` read, kept, skipped and wrote.

    Attributes:
        questions: Finished questions read from the run directories.
        seen: Trajectories read.
        skipped: Trajectories (or, for `zero_recall`, questions) left out, by reason.
        stop_reasons: How the read trajectories ended.
        rows: Rows written per split.
        split_questions: Questions per split.
        tool_calls: Tool calls in the kept trajectories, by tool name.
        tool_errors: Tool-call errors in the kept trajectories, by error kind.
        malformed_arguments: Kept tool calls whose arguments are not a JSON object.
        tokens: Per split {"total", "mean", "max"}: exact with a tokenizer, otherwise the
            `APPROX_CHARS_PER_TOKEN` estimate (see `token_method`).
        token_method: How `tokens` was counted: `exact` or `approx`.
        val_source: Where the val questions came from: `official` (the question set's val
            split) or `random` (a random share of the questions).
        sample: Training questions sampled at random (None: all were kept).
    """

    questions: int = 0
    seen: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    stop_reasons: Counter[str] = field(default_factory=Counter)
    rows: dict[str, int] = field(default_factory=lambda: {"train": 0, "val": 0})
    split_questions: dict[str, int] = field(default_factory=lambda: {"train": 0, "val": 0})
    tool_calls: Counter[str] = field(default_factory=Counter)
    tool_errors: Counter[str] = field(default_factory=Counter)
    malformed_arguments: int = 0
    tokens: dict[str, dict[str, float]] = field(default_factory=dict)
    token_method: str = "approx"
    val_source: str = "random"
    sample: int | None = None

    def add_split(self, split: str, rows: list[dict[str, Any]], *, questions: int) -> None:
        """Record one written split."""
        self.rows[split] = len(rows)
        self.split_questions[split] = questions

    def add_trajectory(self, trajectory: Trajectory) -> None:
        """Count a kept trajectory's tool calls and tool errors."""
        self.tool_calls.update(trajectory.tool_call_counts())
        self.tool_errors.update(step.error_kind or "" for step in trajectory.tool_errors)

    def skipped_summary(self) -> str:
        """Skips as `reason: n` text, or `none skipped`."""
        if not self.skipped:
            return "none skipped"
        return ", ".join(f"{reason}: {n}" for reason, n in sorted(self.skipped.items()))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (written to stats.json)."""
        return {
            "questions": self.questions,
            "trajectories_seen": self.seen,
            "rows": dict(self.rows),
            "split_questions": dict(self.split_questions),
            "skipped": dict(self.skipped),
            "stop_reasons": dict(self.stop_reasons),
            "tool_calls": dict(self.tool_calls.most_common()),
            "tool_errors": dict(self.tool_errors.most_common()),
            "malformed_arguments": self.malformed_arguments,
            "tokens": self.tokens,
            "token_method": self.token_method,
            "val_source": self.val_source,
            "sample": self.sample,
        }

    def lines(self) -> list[str]:
        """A short human-readable summary, one fact per line."""
        lines = [
            f"questions read: {self.questions}; trajectories read: {self.seen}",
            f"train: {self.rows['train']} rows over {self.split_questions['train']} questions; "
            f"val: {self.rows['val']} rows over {self.split_questions['val']} questions "
            f"({self.val_source} validation split)"
            + (f"; training questions: a random {self.sample}" if self.sample else ""),
            f"skipped: {self.skipped_summary()}",
            "stop reasons: " + ", ".join(f"{k}: {n}" for k, n in self.stop_reasons.most_common()),
            "tool calls: " + ", ".join(f"{k}: {n}" for k, n in self.tool_calls.most_common()),
            "tool errors: "
            + (", ".join(f"{k}: {n}" for k, n in self.tool_errors.most_common()) or "none"),
            f"malformed tool-call arguments: {self.malformed_arguments}",
        ]
        label = (
            "tokens"
            if self.token_method == "exact"
            else f"tokens (approx.: characters/{APPROX_CHARS_PER_TOKEN}; pass --tokenizer "
            "for exact counts)"
        )
        for split, tokens in self.tokens.items():
            lines.append(
                f"{split} {label}: {int(tokens['total'])} total, {tokens['mean']:.0f} mean, "
                f"{int(tokens['max'])} max per row"
            )
        return lines


def count_tokens(tokenizer: Any, rows: list[dict[str, Any]]) -> dict[str, float]:
    """Token counts of `rows` rendered with ARK's training template.

    Returns:
        {"total", "mean", "max"} (zeros for no rows).
    """
    from distill.template import load_training_template

    template = load_training_template()
    lengths = [
        len(
            tokenizer.apply_chat_template(
                row["messages"],
                tools=json.loads(row["tools"]),
                chat_template=template,
                tokenize=True,
                return_dict=True,
            )["input_ids"]
        )
        for row in rows
    ]
    return _summary(lengths)


def approximate_tokens(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Estimated token counts of `rows` without a tokenizer.

    Each row's characters (message contents, tool-call names and arguments, and the tool
    schemas) divided by `APPROX_CHARS_PER_TOKEN`, rounded up: the usual rule of thumb for
    English text with BPE tokenizers; the chat template's own markup is not counted.

    Returns:
        {"total", "mean", "max"} (zeros for no rows).
    """
    return _summary([-(-_row_chars(row) // APPROX_CHARS_PER_TOKEN) for row in rows])


def _row_chars(row: dict[str, Any]) -> int:
    chars = len(row.get("tools") or "")
    for message in row["messages"]:
        chars += len(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            chars += len(function.get("name") or "") + len(str(function.get("arguments") or ""))
    return chars


def _summary(lengths: list[int]) -> dict[str, float]:
    if not lengths:
        return {"total": 0, "mean": 0.0, "max": 0}
    return {"total": sum(lengths), "mean": sum(lengths) / len(lengths), "max": max(lengths)}
