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
from evals.report import Report, build_report
from evals.runs.outcomes import OutcomeHandler
from evals.runs.request import RunRequest
from evals.runs.runner import StartHandler, evaluate
from graphs.errors import ConfigError
from rank.baselines.bm25 import run_baseline

BASELINE_DIR = "bm25"
REPORT_DIR = "report"


def parse_grid(text: str, what: str) -> list[int]:
    """Parse "1,3,5" into sorted unique positive ints.

    Raises:
        ConfigError: not a comma-separated list of positive integers (the message says so).
    """
    try:
        values = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        values = []
    if not values or values[0] < 1:
        raise ConfigError(f"{what} must be positive integers separated by commas, got {text!r}")
    return values


def cell_dir(out: Path, n_agents: int, max_steps: int) -> Path:
    """The run directory of one grid cell."""
    return Path(out) / f"agents{n_agents}-steps{max_steps}"


@dataclass(frozen=True, kw_only=True)
class SweepRequest:
    """A grid run.

    Attributes:
        questions: The snapshot and questions (split, sample, limit, concurrency); its `out`
            is the sweep directory (see the module docstring).
        agent: Base agent configuration; n_agents and max_steps are set per cell.
        agents: Grid values of n_agents.
        max_steps: Grid values of max_steps.
        baseline: Also score BM25 on the same questions.
    """

    questions: RunRequest
    agent: AgentConfig
    agents: Sequence[int]
    max_steps: Sequence[int]
    baseline: bool = True

    @property
    def out(self) -> Path:
        """The sweep directory."""
        return Path(self.questions.out)

    def cells(self) -> list[tuple[RunRequest, AgentConfig]]:
        """One resumable (request, agent) pair per (agents, max steps) cell, in grid order."""
        return [
            (
                self.questions.elsewhere(cell_dir(self.out, n, t), resume=True),
                replace(self.agent, n_agents=n, max_steps=t),
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
    for cell, agent in request.cells():
        on_start, on_outcome = on_cell(Path(cell.out).name) if on_cell else (None, None)
        evaluate(cell, agent, on_start=on_start, on_outcome=on_outcome)
        run_dirs.append(cell.out)
    if request.baseline:
        baseline = request.questions.elsewhere(request.out / BASELINE_DIR, resume=True)
        on_start, on_outcome = on_cell(BASELINE_DIR) if on_cell else (None, None)
        run_baseline(baseline, on_start=on_start, on_outcome=on_outcome)
        run_dirs.append(baseline.out)
    return build_report(run_dirs, request.out / REPORT_DIR)
