"""RunRequest: which questions to run over which snapshot into which run directory.

One request type serves every command that answers a question set into a run directory
(`ark eval`, `ark baseline bm25`, each cell of `ark eval sweep`, the demo); what answers the
questions (the agent's configuration, the baseline's k) is passed beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from evals.qa.sampling import QuestionSample
from evals.qa.splits import resolve_split
from graphs.errors import ConfigError

ItemT = TypeVar("ItemT")


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """One run of a question set.

    Attributes:
        snapshot: Snapshot directory.
        qa: Question file (JSONL or STaRK CSV, see evals/qa/sets.py).
        out: Run directory.
        split: Split to run: train, val, test, or "all" (None: see `resolve_split`).
        sample: A seeded random subset of the split (default: every question).
        limit: Keep only the first `limit` questions (after sampling; None = all).
        concurrency: Questions in flight at once.
        resume: Continue an existing run in `out`.
    """

    snapshot: Path
    qa: Path
    out: Path
    split: str | None = None
    sample: QuestionSample = field(default_factory=QuestionSample)
    limit: int | None = None
    concurrency: int = 4
    resume: bool = False

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit must be >= 1 or unset, got {self.limit}")
        if self.concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {self.concurrency}")

    def select(self, items: Sequence[ItemT]) -> list[ItemT]:
        """The questions of the split this request runs: the sample, then the limit."""
        return self.sample.apply(items)[: self.limit]

    def run_config(self, method: dict[str, Any]) -> dict[str, Any]:
        """The content of config.json: `method` (e.g. ``{"agent": {...}}``) and the questions.

        The identity keys (see evals.runs.store.IDENTITY_KEYS) are compared on resume.
        """
        return {
            **method,
            "snapshot": str(Path(self.snapshot).resolve()),
            "qa": str(Path(self.qa).resolve()),
            "split": resolve_split(self.qa, self.split),
            "sample": self.sample.to_record(),
            "limit": self.limit,
            "concurrency": self.concurrency,
        }

    def elsewhere(self, out: Path, **changes: Any) -> RunRequest:
        """The same questions into another run directory (sweep cells, the baseline)."""
        return replace(self, out=out, **changes)
