"""`ark eval report`: runs side by side in markdown (overall and per family), plus PNG plots."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evals.metrics import (
    ALL_METRIC_NAMES,
    METRIC_TITLES,
    OVERALL,
    PROTOCOL_TITLES,
    PROTOCOLS,
    metric_cell,
    successful_cell,
)
from evals.runs.store import RunRecord, read_config, read_failures, read_results
from evals.summary import RunSummary, summarize_records

REPORT_FILE = "report.md"


@dataclass
class Report:
    """A written (or printable) report.

    Attributes:
        markdown: The report text.
        files: Files written (report.md and the PNGs), empty when nothing was written.
        summaries: The runs compared, in the order given (for a terminal table).
        notes: What the reader should know that the files do not say (figures skipped).
    """

    markdown: str
    files: list[Path] = field(default_factory=list)
    summaries: list[RunSummary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def load_runs(run_dirs: Sequence[Path]) -> list[tuple[RunSummary, list[RunRecord]]]:
    """Read every run; labels are made unique by appending the directory name.

    Raises:
        RunStoreError: a directory is not a run directory or holds a corrupt file.
    """
    runs = []
    for run_dir in run_dirs:
        records = read_results(run_dir)
        summary = summarize_records(run_dir, read_config(run_dir), records, read_failures(run_dir))
        runs.append((summary, records))
    labels = [summary.label for summary, _ in runs]
    for summary, _ in runs:
        if labels.count(summary.label) > 1:
            summary.label = f"{summary.label} ({Path(summary.run_dir).name})"
    return runs


def _table(summaries: Sequence[RunSummary], group: str, protocol: str, *, latency: bool) -> str:
    header = ["run", "n", "failed", *(METRIC_TITLES[m] for m in ALL_METRIC_NAMES)]
    if latency:
        header += ["p50 s", "p95 s"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for summary in summaries:
        aggregate = summary.groups.get(group)
        if aggregate is None:
            continue
        means = aggregate.means()[protocol]
        cells = [summary.label, str(aggregate.total), str(aggregate.failures)]
        cells += [metric_cell(aggregate, means[m]) for m in ALL_METRIC_NAMES]
        if latency:
            timing = summary.latency()
            cells += [f"{timing['p50']:.2f}", f"{timing['p95']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _unlabelled_lines(summaries: Sequence[RunSummary]) -> list[str]:
    lines = []
    for summary in summaries:
        ids = summary.unlabelled_ids
        if ids:
            shown = ", ".join(ids[:20]) + (" ..." if len(ids) > 20 else "")
            lines.append(
                f"- **{summary.label}**: {len(ids)} saved question(s) without gold answers "
                f"(`ark ask --save`, `:save`), not scored: {shown}"
            )
    return lines


def _failure_lines(summaries: Sequence[RunSummary]) -> list[str]:
    lines = []
    for summary in summaries:
        overall = summary.overall
        if overall.failures:
            successful = overall.means_successful()
            lines.append(
                f"- **{summary.label}**: {overall.failures} failed question(s), counted as misses "
                f"in the tables; over the {overall.questions} successful question(s) only: "
                + ", ".join(
                    f"Hit@1 {successful_cell(overall, successful[p]['hit@1'])}, "
                    f"R@20 {successful_cell(overall, successful[p]['recall@20'])} "
                    f"({PROTOCOL_TITLES[p]})"
                    for p in PROTOCOLS
                )
                + f". Failed ids: {', '.join(summary.failed_ids[:10])}"
                + (" ..." if len(summary.failed_ids) > 10 else "")
            )
    return lines


def markdown_report(
    summaries: Sequence[RunSummary], images: Sequence[Path] = (), *, at: Path | None = None
) -> str:
    """The markdown text: runs, overall tables (both protocols), per-family tables, failures.

    `at`: where the report is written; run directories are shown relative to it and question
    files by name, so the report holds no absolute path (it is shared and moved).
    """
    parts = ["# ARK evaluation report", "", "| run | directory | config |", "|---|---|---|"]
    for summary in summaries:
        config = summary.config
        source = (
            f"{Path(str(config['qa'])).name} [{config.get('split') or 'whole file'}]"
            if config.get("qa")
            else str(config.get("source", "?"))
        )
        shown = Path(summary.run_dir)
        if at is not None:
            shown = Path(os.path.relpath(shown.resolve(), at.resolve()))
        parts.append(f"| {summary.label} | `{shown}` | {source} |")
    parts += [
        "",
        "Protocols: **ARK** scores the fused list as is; **STaRK** keeps only candidate node "
        "types (see evals/metrics.py). Rankings are cut to their top 20 before scoring. `n` "
        "counts every question; `failed` counts those whose model calls kept failing, which "
        "score 0 (a miss) in the means, as in the paper's tables.",
    ]
    for protocol in PROTOCOLS:
        parts += ["", f"## Overall, {PROTOCOL_TITLES[protocol]} protocol", ""]
        parts.append(_table(summaries, OVERALL, protocol, latency=True))
    failures = _failure_lines(summaries)
    if failures:
        parts += ["", "## Failures", "", *failures]
    unlabelled = _unlabelled_lines(summaries)
    if unlabelled:
        parts += ["", "## Saved questions without gold", "", *unlabelled]
    families = [name for name in _group_names(summaries) if name != OVERALL]
    for protocol in PROTOCOLS:
        if families:
            parts += ["", f"## By family, {PROTOCOL_TITLES[protocol]} protocol"]
        for family in families:
            parts += ["", f"### {family}", "", _table(summaries, family, protocol, latency=False)]
    if images:
        parts += ["", "## Figures", ""]
        parts += [f"![{image.stem}]({image.name})" for image in images]
    return "\n".join(parts) + "\n"


def _group_names(summaries: Sequence[RunSummary]) -> list[str]:
    names: list[str] = []
    for summary in summaries:
        names.extend(name for name in summary.groups if name not in names)
    return names


def build_report(run_dirs: Sequence[Path], out: Path | None = None) -> Report:
    """Compare runs; with `out`, write report.md and the PNG figures there.

    Args:
        run_dirs: Run directories (agent runs and baselines).
        out: Output directory (created); None only builds the markdown.

    Returns:
        The report text and the files written.

    Raises:
        RunStoreError: a directory is not a run directory.
        ValueError: no run directory was given.
    """
    if not run_dirs:
        raise ValueError("give at least one run directory (made by `ark eval ... --out DIR`)")
    runs = load_runs(run_dirs)
    summaries = [summary for summary, _ in runs]
    if out is None:
        return Report(markdown_report(summaries), summaries=summaries)
    out.mkdir(parents=True, exist_ok=True)
    images, notes = _figures(runs, out)
    markdown = markdown_report(summaries, images, at=out)
    (out / REPORT_FILE).write_text(markdown, encoding="utf-8")
    return Report(markdown, [out / REPORT_FILE, *images], summaries=summaries, notes=notes)


def _figures(
    runs: list[tuple[RunSummary, list[RunRecord]]], out: Path
) -> tuple[list[Path], list[str]]:
    """Draw the PNG figures that apply; without matplotlib, none, and a note saying how."""
    try:
        from evals.plots import grid_heatmaps, metric_bars, neighbors_plot, tool_share_plot
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "matplotlib":
            raise
        return [], [
            "figures skipped: matplotlib is not installed (pip install 'ark-kg[plots]'); "
            "report.md has every table"
        ]
    summaries = [summary for summary, _ in runs]
    drawn = (
        metric_bars(summaries, out / "metrics.png"),
        tool_share_plot(summaries, out / "tool_share.png"),
        neighbors_plot(runs, out / "neighbors_by_outcome.png"),
        grid_heatmaps(summaries, out / "grid_heatmaps.png"),
    )
    return [image for image in drawn if image is not None], []
