"""`ark eval sweep`: run a grid of agents × max steps (one resumable run dir per cell) + report.

Layout::

    OUT/agents{n}-steps{T}/   one run directory per grid cell (resumed if it exists)
    OUT/bm25/                 the BM25 baseline on the same questions
    OUT/report/               report.md and the figures, heatmaps included
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agent.config import AgentConfig
from evals.baseline import BaselineRequest, run_baseline
from evals.report import Report, build_report
from evals.runner import EvalRequest, OutcomeHandler, StartHandler, evaluate

BASELINE_DIR = "bm25"
REPORT_DIR = "report"


def parse_grid(text: str, what: str) -> list[int]:
    """Parse "1,3,5" into sorted unique positive ints.

    Raises:
        ValueError: not a comma-separated list of positive integers (the message says so).
    """
    try:
        values = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        values = []
    if not values or values[0] < 1:
        raise ValueError(f"{what} must be positive integers separated by commas, got {text!r}")
    return values


def cell_dir(out: Path, n_agents: int, max_steps: int) -> Path:
    """The run directory of one grid cell."""
    return Path(out) / f"agents{n_agents}-steps{max_steps}"


@dataclass(frozen=True, kw_only=True)
class SweepRequest:
    """A grid run.

    Attributes:
        snapshot: Snapshot directory.
        qa: Question file.
        split: Split: train, val, test, or "all" (None: see `evals.runner.resolve_split`).
        out: Sweep directory (see the module docstring).
        agent: Base agent configuration; n_agents and max_steps are set per cell.
        agents: Grid values of n_agents.
        max_steps: Grid values of max_steps.
        limit: First N questions only.
        concurrency: Questions in flight per cell.
        baseline: Also score BM25 on the same questions.
    """

    snapshot: Path
    qa: Path
    split: str | None = None
    out: Path
    agent: AgentConfig
    agents: Sequence[int]
    max_steps: Sequence[int]
    limit: int | None = None
    concurrency: int = 4
    baseline: bool = True

    def cells(self) -> list[EvalRequest]:
        """One resumable EvalRequest per (agents, max steps) cell, in grid order."""
        return [
            EvalRequest(
                snapshot=self.snapshot,
                qa=self.qa,
                split=self.split,
                out=cell_dir(self.out, n, t),
                agent=replace(self.agent, n_agents=n, max_steps=t),
                limit=self.limit,
                concurrency=self.concurrency,
                resume=True,
            )
            for n in self.agents
            for t in self.max_steps
        ]


CellStart = Callable[[str], tuple[StartHandler | None, OutcomeHandler | None]]
"""Given a cell's label, the progress handlers to use for it."""


def run_sweep(request: SweepRequest, *, on_cell: CellStart | None = None) -> Report:
    """Run every cell (finished cells are skipped, broken ones resumed), then the report.

    Args:
        request: The grid.
        on_cell: Called before each cell with its label; returns its progress handlers.

    Returns:
        The report written to OUT/report.
    """
    run_dirs: list[Path] = []
    for cell in request.cells():
        on_start, on_outcome = on_cell(cell.out.name) if on_cell else (None, None)
        evaluate(cell, on_start=on_start, on_outcome=on_outcome)
        run_dirs.append(cell.out)
    if request.baseline:
        baseline = BaselineRequest(
            snapshot=request.snapshot,
            qa=request.qa,
            split=request.split,
            out=Path(request.out) / BASELINE_DIR,
            limit=request.limit,
            resume=True,
        )
        on_start, on_outcome = on_cell(BASELINE_DIR) if on_cell else (None, None)
        run_baseline(baseline, on_start=on_start, on_outcome=on_outcome)
        run_dirs.append(baseline.out)
    return build_report(run_dirs, Path(request.out) / REPORT_DIR)
