"""Rich terminal output for runs: progress (a bar, or plain lines off a terminal) and tables."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from cli.demo import DemoResult, trajectory_lines
from cli.output.safe_text import for_markup, printable
from evals.metrics import (
    METRIC_NAMES,
    METRIC_TITLES,
    OVERALL,
    PROTOCOL_TITLES,
    PROTOCOLS,
    metric_cell,
    successful_cell,
)
from evals.report import Report
from evals.runs.outcomes import Outcome, OutcomeHandler
from evals.runs.runner import RunPlan, StartHandler
from evals.summary import RunSummary

ETA_AFTER = 3
"""Questions finished before an ETA is shown: the first ones pay the start-up (a demo's first
estimate read 0:32:40 for a run that took 27 s)."""


class SettledTimeRemaining(TimeRemainingColumn):
    """Rich's time remaining, `estimating…` until `ETA_AFTER` questions are finished."""

    def render(self, task: Task) -> Text:
        """The estimate, once enough questions finished to make one."""
        if task.completed < ETA_AFTER and not task.finished:
            return Text("estimating…", style="progress.remaining")
        return super().render(task)


class RunProgress:
    """Progress with ETA and running Hit@1 / Recall@20 (ARK protocol) of this session.

    On a terminal it is a live bar. When the console is not a terminal (piped into `tee`, a log
    file, CI) it prints plain lines instead: one when the run starts, one every `interval_s`
    seconds while questions finish, and one at the end, so a logged run is never silent.
    Like the final tables, the running means count a failed question as a miss.

    Disabled (a no-op) when `enabled` is False, e.g. with --json.

    Args:
        console: Where to print.
        enabled: Show progress at all.
        label: The run's name, first on every line.
        interval_s: Seconds between plain lines when not on a terminal.
        clock: Monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(
        self,
        console: Console,
        *,
        enabled: bool,
        label: str = "eval",
        interval_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._console = console
        self._label = label
        self._lines = enabled and not console.is_terminal
        self._interval_s = interval_s
        self._clock = clock
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            SettledTimeRemaining(),
            TextColumn("{task.fields[running]}"),
            console=console,
            disable=not enabled or self._lines,
        )
        self._task: TaskID | None = None
        self._total = 0
        self._started = self._last_line = 0.0
        self._lined = -1  # questions finished when the last plain line was printed
        self._done = 0
        self._failed = 0
        self._hit1 = 0.0
        self._recall = 0.0

    def __enter__(self) -> RunProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.__exit__(exc_type, exc, traceback)
        if self._lines and self._task is not None and self._lined != self._done + self._failed:
            self._line()

    def start(self, plan: RunPlan) -> None:
        """Create the bar (or print the first line) for the questions still to run."""
        self._total = len(plan.pending)
        self._task = self._progress.add_task(
            self._label, total=self._total, running=self._running_text(markup=True)
        )
        self._started = self._clock()
        if self._lines:
            self._line()

    def update(self, outcome: Outcome) -> None:
        """Advance by one finished question and refresh the running metrics."""
        if outcome.record is not None:
            self._done += 1
            self._hit1 += outcome.record.metrics["ark"]["hit@1"]
            self._recall += outcome.record.metrics["ark"]["recall@20"]
        else:
            self._failed += 1
        if self._task is not None:
            self._progress.update(self._task, advance=1, running=self._running_text(markup=True))
        if self._lines and self._now() - self._last_line >= self._interval_s:
            self._line()

    def _now(self) -> float:
        return self._clock() - self._started

    def _line(self) -> None:
        """One plain progress line: done/total, elapsed, ETA and the running metrics."""
        finished = self._done + self._failed
        elapsed = self._now()
        eta = ""
        if ETA_AFTER <= finished < self._total:
            eta = f", ETA {_clock_text(elapsed / finished * (self._total - finished))}"
        self._console.print(
            f"{self._label}: {finished}/{self._total} questions, {_clock_text(elapsed)} "
            f"elapsed{eta}; {self._running_text(markup=False)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        self._last_line = elapsed
        self._lined = finished

    def _running_text(self, *, markup: bool = True) -> str:
        count = max(self._done + self._failed, 1)  # a failed question is a miss
        text = f"Hit@1 {self._hit1 / count:.3f}  R@20 {self._recall / count:.3f}"
        if not self._failed:
            return text
        return text + (f"  [red]failed {self._failed}[/]" if markup else f"  failed {self._failed}")


def _clock_text(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}"


class ProgressPerRun:
    """One progress bar per run, for commands that chain runs (sweep, demo).

    Use as a context manager; `handlers(label)` opens the next bar and returns its
    (on_start, on_outcome) pair for `evaluate`/`run_baseline`.
    """

    def __init__(self, console: Console) -> None:
        self._console = console
        self._bars = ExitStack()

    def __enter__(self) -> ProgressPerRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bars.close()

    def handlers(self, label: str) -> tuple[StartHandler, OutcomeHandler]:
        """Open a bar for the run called `label` (plain periodic lines when not on a terminal).

        Its start handler also prints the plan's warnings and notes, once.
        """
        bar = RunProgress(self._console, enabled=True, label=label)
        self._bars.enter_context(bar)

        def start(plan: RunPlan) -> None:
            for message in plan_messages(plan):
                self._console.print(message)
            bar.start(plan)

        return start, bar.update


def plan_messages(plan: RunPlan) -> list[Text]:
    """The plan's warnings (yellow) and notes (dim), as text that is not parsed as markup."""
    warnings = [Text.assemble(("warning: ", "yellow"), printable(w)) for w in plan.warnings]
    return warnings + [Text(printable(f"note: {note}"), style="dim") for note in plan.notes]


def results_table(
    summaries: Sequence[RunSummary], protocol: str, *, families: bool = True
) -> Table:
    """Runs side by side, overall and (optionally) per family, for one metric protocol."""
    table = Table(title=f"{PROTOCOL_TITLES[protocol]} protocol", title_justify="left")
    table.add_column("family")
    table.add_column("run")
    table.add_column("n", justify="right")
    table.add_column("failed", justify="right")
    for name in METRIC_NAMES:
        table.add_column(METRIC_TITLES[name], justify="right")
    groups = _group_names(summaries) if families else [OVERALL]
    for group in groups:
        for index, summary in enumerate(summaries):
            aggregate = summary.groups.get(group)
            if aggregate is None:
                continue
            means = aggregate.means()[protocol]
            failed = f"[red]{aggregate.failures}[/]" if aggregate.failures else "0"
            table.add_row(
                for_markup(group) if index == 0 else "",
                for_markup(summary.label),
                str(aggregate.total),
                failed,
                *(metric_cell(aggregate, means[name]) for name in METRIC_NAMES),
                end_section=index == len(summaries) - 1,
            )
    return table


def failure_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """One line per run with failures: how many, and the metrics counting them as misses."""
    notes = []
    for summary in summaries:
        overall = summary.overall
        if overall.failures:
            successful = overall.means_successful()["ark"]
            notes.append(
                f"{summary.label}: {overall.failures} question(s) failed and count as misses "
                f"in the means above; over the {overall.questions} successful question(s) only, "
                f"Hit@1 {successful_cell(overall, successful['hit@1'])}, "
                f"R@20 {successful_cell(overall, successful['recall@20'])} (ARK). "
                "Rerun with --resume to retry them."
            )
    return notes


def _group_names(summaries: Sequence[RunSummary]) -> list[str]:
    names: list[str] = [OVERALL]
    for summary in summaries:
        names.extend(name for name in summary.groups if name not in names)
    return names


def _marks(fused: Sequence[str], gold: set[str]) -> str:
    return " ".join("✓" if node in gold else "·" for node in fused[:10])


def demo_view(result: DemoResult) -> Group:
    """The demo's output: both tables, failure notes, and one trajectory told compactly."""
    parts: list[RenderableType] = [
        Text(f"graph {'generated' if result.built else 'reused'}: {result.graph}", style="dim"),
        results_table(result.summaries, "ark"),
        results_table(result.summaries, "stark"),
        *(Text(note, style="red") for note in failure_notes(result.summaries)),
    ]
    example = result.example
    if example is not None:
        gold = set(example.gold)
        title = f"one trajectory: {example.question_id} ({example.family})"
        parts.append(Rule(for_markup(title)))
        parts.append(Text.assemble(("Q: ", "bold"), printable(example.query)))
        for line in trajectory_lines(example.result.trajectories[0]):
            parts.append(Text(printable(line), overflow="ellipsis", no_wrap=True))
        parts.append(Text(f"agent top-10 vs gold: {_marks(example.result.fused, gold)}"))
        if result.baseline_example is not None:
            bm25 = _marks(result.baseline_example.result.fused, gold)
            parts.append(Text(f"BM25  top-10 vs gold: {bm25}"))
    return Group(*parts)


def report_view(report: Report) -> Group:
    """What `ark eval report` prints: the overall tables of both protocols, then its notes."""
    parts: list[RenderableType] = [
        results_table(report.summaries, protocol, families=False) for protocol in PROTOCOLS
    ]
    parts += [Text(note, style="yellow") for note in report.notes]
    return Group(*parts)
