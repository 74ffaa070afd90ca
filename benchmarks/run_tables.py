"""Markdown tables of evaluation runs for benchmark reports (per stage, per family; heatmaps)."""

from __future__ import annotations

import json
from pathlib import Path

from evals.metrics import OVERALL
from evals.runs.store import read_config, read_failures, read_results
from evals.summary import RunSummary, summarize_records
from rank.fusion.grid import STATIC_KS


def subset_summary(run_dir: Path, keep: set[str] | None, label: str) -> RunSummary:
    records = [r for r in read_results(run_dir) if keep is None or r.question_id in keep]
    summary = summarize_records(run_dir, read_config(run_dir), records, read_failures(run_dir))
    summary.label = label
    return summary


def table(rows: list[RunSummary], protocol: str) -> str:
    families = sorted({g for s in rows for g in s.groups if g != OVERALL})
    header = ["stage", "n", "Hit@1", "Hit@5", "R@20", "MRR", *(f"{f} H@1" for f in families)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for summary in rows:
        means = summary.overall.means()[protocol]
        cells = [summary.label, str(summary.overall.questions)]
        cells += [f"{means[m]:.3f}" for m in ("hit@1", "hit@5", "recall@20", "mrr")]
        for family in families:
            group = summary.groups.get(family)
            cells.append(f"{group.means()[protocol]['hit@1']:.3f}" if group else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def heatmap(path: Path) -> str:
    record = json.loads(path.read_text())
    heat = record["validation"]["heatmap"]
    weights, grid = heat["graph_weights"], heat["hit@1"]
    best = max(max(row) for row in grid)
    lines = ["| w \\ k | " + " | ".join(f"{k:g}" for k in STATIC_KS) + " |",
             "|" + "---|" * (len(STATIC_KS) + 1)]  # fmt: skip
    for index in range(len(weights) - 1, -1, -2):
        cells = [f"**{v:.3f}**" if v == best else f"{v:.3f}" for v in grid[index]]
        lines.append(f"| {weights[index]:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
