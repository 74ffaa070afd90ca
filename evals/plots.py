"""PNG figures: metrics per run, and the paper's tool-call shares, neighbors calls, grid heatmaps.

Figures are drawn on `matplotlib.figure.Figure` objects directly (the Agg canvas), so no
pyplot state or display backend is involved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from evals.metrics import METRIC_NAMES, METRIC_TITLES, PROTOCOL_TITLES, PROTOCOLS, ark_metrics
from evals.runs.store import RunRecord
from evals.summary import RunSummary

logger = logging.getLogger(__name__)

SUCCESS_METRIC = ("stark", "hit@5")
"""A trajectory is successful when its own answers have a gold node in the top 5 (Fig. 5)."""
HEATMAP_PROTOCOL = "stark"
"""Fig. 2's heatmaps use the STaRK protocol, like the paper's tables."""


def metric_bars(summaries: Sequence[RunSummary], path: Path) -> Path | None:
    """Grouped bars: Hit@1, Hit@5, Recall@20 and MRR of every run, one panel per protocol.

    The headline means (a failed question counts as a miss), as in the report's tables.
    """
    if not summaries:
        return None
    panel_width = 3.0 + 0.9 * len(summaries)
    figure = Figure(figsize=(panel_width * len(PROTOCOLS) + 2.0, 3.8))
    width = 0.8 / len(summaries)
    positions = np.arange(len(METRIC_NAMES))
    for panel, protocol in enumerate(PROTOCOLS, start=1):
        axes = figure.add_subplot(1, len(PROTOCOLS), panel)
        for index, summary in enumerate(summaries):
            means = summary.overall.means()[protocol]
            values = [means[name] for name in METRIC_NAMES]
            offset = (index - (len(summaries) - 1) / 2) * width
            bars = axes.bar(positions + offset, values, width, label=summary.label)
            axes.bar_label(bars, fmt="%.2f", fontsize="x-small", padding=1)
        axes.set_xticks(positions, [METRIC_TITLES[name] for name in METRIC_NAMES])
        axes.set_ylim(0, 1.08)
        axes.set_title(f"{PROTOCOL_TITLES[protocol]} protocol")
    figure.axes[-1].legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
    figure.suptitle("Metrics per run (overall)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return path


def tool_share_plot(summaries: Sequence[RunSummary], path: Path) -> Path | None:
    """Stacked bars: share of `search` vs `neighbors` calls per run (runs with calls only)."""
    rows = [
        (s.label, s.tool_calls.get("search", 0), s.tool_calls.get("neighbors", 0))
        for s in summaries
        if s.tool_calls.get("search", 0) + s.tool_calls.get("neighbors", 0) > 0
    ]
    if not rows:
        return None
    labels = [row[0] for row in rows]
    totals = np.array([row[1] + row[2] for row in rows], dtype=float)
    search = np.array([row[1] for row in rows]) / totals
    figure = Figure(figsize=(7, 0.6 * len(rows) + 1.5))
    axes = figure.add_subplot()
    positions = np.arange(len(rows))
    axes.barh(positions, search, label="search", color="#4C72B0")
    axes.barh(positions, 1 - search, left=search, label="neighbors", color="#DD8452")
    for position, share in zip(range(len(rows)), search.tolist(), strict=True):
        # Labels only where the bar is wide enough to hold them.
        for start, width in ((0.0, share), (share, 1 - share)):
            if width >= 0.06:
                axes.text(
                    start + width / 2,
                    position,
                    f"{width:.0%}",
                    va="center",
                    ha="center",
                    color="white",
                )
    axes.set_yticks(positions, labels)
    axes.set_xlim(0, 1)
    axes.set_xlabel("share of tool calls")
    axes.set_title("Global search vs neighbourhood exploration")
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return path


def trajectory_succeeded(record: RunRecord, agent_index: int) -> bool:
    """Whether one agent's own answers hit gold in the top 5 (STaRK protocol).

    Records written before per-agent scores were kept fall back to the ARK protocol on the
    trajectory's answers (the node types needed for STaRK's are not in the record).
    """
    protocol, metric = SUCCESS_METRIC
    if agent_index < len(record.agent_metrics):
        return record.agent_metrics[agent_index][protocol][metric] > 0
    answers = record.result.trajectories[agent_index].answers
    return ark_metrics(answers, record.gold)[metric] > 0


def neighbors_counts(records: Sequence[RunRecord]) -> tuple[list[int], list[int]]:
    """Neighbors calls per trajectory, split by that trajectory's own success (Hit@5).

    The paper labels each run (tool-call sequence) by whether it retrieved the gold, not by
    the fused question's outcome. Trajectories that ended on a model error are left out:
    their call counts say nothing about the policy.
    """
    success: list[int] = []
    failure: list[int] = []
    for record in records:
        for index, trajectory in enumerate(record.result.trajectories):
            if trajectory.stop_reason == "error":
                continue
            target = success if trajectory_succeeded(record, index) else failure
            target.append(trajectory.tool_call_counts().get("neighbors", 0))
    return success, failure


def neighbors_plot(
    runs: Sequence[tuple[RunSummary, Sequence[RunRecord]]], path: Path
) -> Path | None:
    """Per run, the distribution of neighbors calls for successful vs failed trajectories."""
    panels = [(s, neighbors_counts(r)) for s, r in runs if s.tool_calls]
    if not panels:
        return None
    figure = Figure(figsize=(max(4.0 * len(panels), 6.0), 3.6))
    for index, (summary, (success, failure)) in enumerate(panels, start=1):
        axes = figure.add_subplot(1, len(panels), index)
        top = max([*success, *failure, 1])
        bins = [edge - 0.5 for edge in range(top + 2)]
        for values, name, color in ((success, "Hit@5", "#55A868"), (failure, "miss", "#C44E52")):
            if values:
                weights = np.full(len(values), 1 / len(values))
                axes.hist(
                    values,
                    bins=bins,
                    weights=weights,
                    alpha=0.6,
                    color=color,
                    label=f"{name} (n={len(values)}, mean {np.mean(values):.1f})",
                )
        axes.set_title(summary.label, fontsize="small")
        axes.set_xlabel("neighbors calls per trajectory")
        axes.set_xticks(range(top + 1))
        axes.set_ylabel("share of trajectories")
        axes.legend(fontsize="x-small")
    figure.suptitle("Neighbors calls: trajectories with Hit@5 (STaRK) vs misses")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return path


def grid_cells(summaries: Sequence[RunSummary]) -> dict[tuple[int, int], RunSummary]:
    """Agent runs keyed by (n_agents, max_steps); the first run wins a duplicated cell."""
    cells: dict[tuple[int, int], RunSummary] = {}
    for summary in summaries:
        n, steps = summary.n_agents, summary.max_steps
        if n is not None and steps is not None:
            cells.setdefault((n, steps), summary)
    return cells


def _warn_duplicate_cells(
    summaries: Sequence[RunSummary], cells: dict[tuple[int, int], RunSummary]
) -> None:
    """Say which run a drawn heatmap shows where two runs share a cell."""
    for summary in summaries:
        n, steps = summary.n_agents, summary.max_steps
        if n is None or steps is None or cells[(n, steps)] is summary:
            continue
        logger.warning(
            "two runs with agents=%d, max_steps=%d; the heatmap shows %s, not %s",
            n,
            steps,
            cells[(n, steps)].run_dir,
            summary.run_dir,
        )


HEATMAP_PANELS: tuple[tuple[str, Callable[[RunSummary], float], str], ...] = (
    ("Hit@1 (STaRK)", lambda s: s.overall.means()[HEATMAP_PROTOCOL]["hit@1"], "{:.3f}"),
    ("Recall@20 (STaRK)", lambda s: s.overall.means()[HEATMAP_PROTOCOL]["recall@20"], "{:.3f}"),
    ("mean latency (s)", lambda s: s.latency()["mean"], "{:.2f}"),
)
"""Fig. 2's panels: title, value of a run, number format. Metrics are the headline means (a
failed question counts as a miss) under the STaRK protocol, like the paper's tables."""


def heatmap_grids(
    summaries: Sequence[RunSummary],
) -> tuple[list[int], list[int], list[tuple[str, np.ndarray, str]]]:
    """(agent counts, step budgets, [(title, agents × steps values, format)]) of the grid."""
    cells = grid_cells(summaries)
    agents = sorted({n for n, _ in cells})
    steps = sorted({t for _, t in cells})
    grids = []
    for title, value_of, fmt in HEATMAP_PANELS:
        grid = np.full((len(agents), len(steps)), np.nan)
        for (n, t), summary in cells.items():
            grid[agents.index(n), steps.index(t)] = value_of(summary)
        grids.append((title, grid, fmt))
    return agents, steps, grids


def grid_heatmaps(summaries: Sequence[RunSummary], path: Path) -> Path | None:
    """Heatmaps of Hit@1, Recall@20 (STaRK) and mean latency over agents × max steps.

    Drawn when the runs fill at least 2 cells of the grid (see `HEATMAP_PANELS`).
    """
    agents, steps, grids = heatmap_grids(summaries)
    if not grids or np.count_nonzero(~np.isnan(grids[0][1])) < 2:
        return None
    _warn_duplicate_cells(summaries, grid_cells(summaries))
    figure = Figure(figsize=(4.2 * len(grids), 0.7 * len(agents) + 2.2))
    for index, (title, grid, fmt) in enumerate(grids, start=1):
        axes = figure.add_subplot(1, len(grids), index)
        image = axes.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
        for row, col in np.argwhere(~np.isnan(grid)):
            axes.text(
                col,
                row,
                fmt.format(grid[row, col]),
                ha="center",
                va="center",
                color="white",
                fontsize="small",
            )
        axes.set_xticks(range(len(steps)), [str(t) for t in steps])
        axes.set_yticks(range(len(agents)), [str(n) for n in agents])
        axes.set_xlabel("max steps T")
        axes.set_ylabel("agents n")
        axes.set_title(title)
        figure.colorbar(image, ax=axes, shrink=0.8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return path
