"""A run of a question set on the terminal: a progress bar (or periodic lines), then the summary.

Used by every command that answers a question set into a run directory (`ark eval run`,
`ark baseline bm25`, `ark baseline dense`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from cli.guards import interrupt_hint, print_error


def run_with_progress(
    console: Console,
    out: Path,
    *,
    as_json: bool,
    label: str,
    execute: Callable[..., Any],
) -> None:
    """Run `execute(on_start=..., on_outcome=...)` under a progress bar, then print the summary."""
    from cli.output.console import RunProgress, failure_notes, plan_messages, results_table
    from evals.runs.runner import RunPlan
    from evals.summary import summarize_run

    err = Console(stderr=True)
    show = not as_json  # a bar on a terminal, plain periodic lines otherwise
    plans: list[RunPlan] = []
    answered: list[bool] = []
    errors: Counter[str] = Counter()

    def on_start(plan: RunPlan) -> None:
        plans.append(plan)
        progress.start(plan)
        for message in plan_messages(plan):
            err.print(message)

    def on_outcome(outcome: Any) -> None:
        answered.append(outcome.record is not None)
        if outcome.failure is not None:
            errors[outcome.failure.error] += 1
        progress.update(outcome)

    with (
        interrupt_hint(err, out),
        RunProgress(console, enabled=show, label=label) as progress,
    ):
        execute(on_start=on_start, on_outcome=on_outcome)
    summary = summarize_run(out)
    plan = plans[0]
    all_failed = bool(answered) and not any(answered)
    if as_json:
        session = {"total": plan.total, "already_done": plan.already_done,
                   "retried": plan.retrying, "ran": len(plan.pending)}  # fmt: skip
        print(json.dumps({**summary.to_dict(), "session": session}))
        if all_failed:
            raise typer.Exit(code=1)
        return
    if plan.already_done:
        console.print(
            f"resumed: {plan.already_done} of {plan.total} questions were already done; "
            f"{len(plan.pending)} run now ({plan.retrying} retried after failing)",
            style="dim",
        )
    console.print(results_table([summary], "ark"))
    console.print(results_table([summary], "stark"))
    for note in failure_notes([summary]):
        console.print(note, style="red")
    console.print(f"results in {out}", style="dim")
    if all_failed:
        print_error(_all_failed(len(answered), errors, out), err)
        raise typer.Exit(code=1)


def _all_failed(count: int, errors: Counter[str], out: Path) -> str:
    """Why every question of the session failed: the commonest error, quoted."""
    (common, times), *others = errors.most_common() or [("no error recorded", count)]
    also = f" ({times} of them; {len(others)} other error(s))" if others else ""
    return (
        f"all {count} questions run failed: {common.rstrip('.')}{also}. Every failure is in "
        f"{out}/failures.jsonl; fix the cause, then rerun with --resume"
    )
