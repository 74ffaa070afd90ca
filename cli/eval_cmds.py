"""Commands of the `ark` CLI: `ark eval` (run, report, sweep) and `ark baseline bm25`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from cli.guards import interrupt_hint, user_errors
from cli.options import (
    AblateOpt,
    AgentsOpt,
    BaseUrlOpt,
    BriefPromptOpt,
    DenseSearchOpt,
    MaxTokensOpt,
    ModelOpt,
    SnapshotArg,
    StepsOpt,
    TemperatureOpt,
    agent_config,
    fail,
)

if TYPE_CHECKING:
    from evals.request import RunRequest

QaOpt = Annotated[Path, typer.Option("--qa", help="Questions: JSONL or STaRK CSV (see docs).")]
SplitOpt = Annotated[
    str | None,
    typer.Option(
        "--split",
        help=(
            "train, val, test, or all (every question of the file or directory). Default: "
            "test; a .jsonl file, or a STaRK CSV without split/*.index files: all of it "
            "(a notice says so)."
        ),
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", min=1, help="Only the first N questions (of the sample, if any)."),
]
SampleOpt = Annotated[
    int | None,
    typer.Option(
        "--sample",
        help="A random N questions of the split (seeded by --seed; the paper distils from up "
        "to 6,000 training queries).",
    ),
]
SampleFractionOpt = Annotated[
    float | None,
    typer.Option(
        "--sample-fraction",
        help="A random fraction of the split, e.g. 0.1 (the paper's ablations use a random "
        "10%% of the test set); seeded by --seed.",
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of --sample / --sample-fraction.")]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", min=1, help="Questions in flight at once.")
]
OutOpt = Annotated[Path, typer.Option("--out", help="Run directory (results.jsonl, ...).")]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Continue the run in --out; retries failed questions.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a machine-readable summary.")]


class DefaultCommandGroup(TyperGroup):
    """A group that runs its `run` command when the first token names no subcommand.

    Click cannot give a group both a positional argument and subcommands, so
    `ark eval SNAPSHOT --qa FILE ...` is rewritten to `ark eval run SNAPSHOT --qa FILE ...`
    before parsing, while `ark eval report ...`, `ark eval sweep ...` and `ark eval --help`
    keep their usual meaning. (A snapshot directory literally named `report` or `sweep` must
    be written `./report`.)
    """

    default_command = "run"

    # ctx is typer's vendored click Context (typer._click), which typer does not export.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Prepend the default command unless the first token is a subcommand or --help."""
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


def run_with_progress(
    console: Console,
    out: Path,
    *,
    as_json: bool,
    label: str,
    execute: Callable[..., Any],
) -> None:
    """Run `execute(on_start=..., on_outcome=...)` under a progress bar, then print the summary."""
    from cli.console import RunProgress, failure_notes, plan_messages, results_table
    from evals.runner import RunPlan
    from evals.summary import summarize_run

    err = Console(stderr=True)
    show = not as_json and console.is_terminal
    plans: list[RunPlan] = []
    answered: list[bool] = []

    def on_start(plan: RunPlan) -> None:
        plans.append(plan)
        progress.start(plan)
        for message in plan_messages(plan):
            err.print(message)

    def on_outcome(outcome: Any) -> None:
        answered.append(outcome.record is not None)
        progress.update(outcome)

    with (
        interrupt_hint(err, out),
        user_errors(err),
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
        err.print(
            f"[bold red]error:[/] all {len(answered)} questions run failed (see the notes "
            f"above and {out}/failures.jsonl); fix the cause, then rerun with --resume"
        )
        raise typer.Exit(code=1)


def run_request(
    snapshot: Path,
    qa: Path,
    out: Path,
    *,
    split: str | None,
    sample: int | None,
    sample_fraction: float | None,
    seed: int,
    limit: int | None,
    concurrency: int = 4,
    resume: bool = False,
) -> RunRequest:
    """The shared run request; bad sample values exit 2 with the reason."""
    from evals.request import RunRequest
    from evals.sampling import QuestionSample

    try:
        return RunRequest(
            snapshot=snapshot,
            qa=qa,
            out=out,
            split=split,
            sample=QuestionSample(size=sample, fraction=sample_fraction, seed=seed),
            limit=limit,
            concurrency=concurrency,
            resume=resume,
        )
    except ValueError as error:
        fail(str(error), Console(stderr=True))


def eval_run(
    snapshot: SnapshotArg,
    qa: QaOpt,
    out: OutOpt,
    split: SplitOpt = None,
    model: ModelOpt = None,
    agents: AgentsOpt = None,
    max_steps: StepsOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    sample_fraction: SampleFractionOpt = None,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = 4,
    ablate: AblateOpt = None,
    dense_search: DenseSearchOpt = None,
    brief_prompt: BriefPromptOpt = False,
    base_url: BaseUrlOpt = None,
    temperature: TemperatureOpt = None,
    max_tokens: MaxTokensOpt = None,
    resume: ResumeOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Evaluate agents on the questions of QA over SNAPSHOT (also `ark eval SNAPSHOT ...`)."""
    from evals.runner import evaluate

    console = Console()
    with user_errors(Console(stderr=True), ValueError):
        config = agent_config(
            model=model,
            agents=agents,
            max_steps=max_steps,
            base_url=base_url,
            temperature=temperature,
            max_tokens=max_tokens,
            ablate=ablate,
            dense_search=dense_search,
            brief_prompt=brief_prompt,
        )
    request = run_request(
        snapshot,
        qa,
        out,
        split=split,
        sample=sample,
        sample_fraction=sample_fraction,
        seed=seed,
        limit=limit,
        concurrency=concurrency,
        resume=resume,
    )
    run_with_progress(
        console,
        out,
        as_json=as_json,
        label=f"{config.model} n={config.n_agents}",
        execute=lambda **handlers: evaluate(request, config, **handlers),
    )


def baseline_bm25(
    snapshot: SnapshotArg,
    qa: QaOpt,
    out: OutOpt,
    split: SplitOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    sample_fraction: SampleFractionOpt = None,
    seed: SeedOpt = 0,
    k: Annotated[int, typer.Option("--k", min=1, help="Hits kept per question.")] = 100,
    resume: ResumeOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Score plain BM25 global search (top-k for the raw question) like an agent run."""
    from rank.baseline import run_baseline

    request = run_request(
        snapshot,
        qa,
        out,
        split=split,
        sample=sample,
        sample_fraction=sample_fraction,
        seed=seed,
        limit=limit,
        resume=resume,
    )
    run_with_progress(
        Console(),
        out,
        as_json=as_json,
        label="bm25",
        execute=lambda **handlers: run_baseline(request, k=k, **handlers),
    )


def eval_report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories to compare.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write report.md and PNG figures here.")
    ] = None,
) -> None:
    """Compare runs side by side (overall and per family, both protocols) with figures."""
    from evals.report import build_report

    with user_errors(Console(stderr=True), ValueError):
        report = build_report(run_dirs, out)
    if out is None:
        print(report.markdown, end="")
        return
    Console().print(f"wrote {', '.join(str(path) for path in report.files)}")


def eval_sweep(
    snapshot: SnapshotArg,
    qa: QaOpt,
    out: Annotated[Path, typer.Option("--out", help="Sweep directory (one run dir per cell).")],
    agents: Annotated[str, typer.Option("--agents", help="Grid of agent counts.")] = "1,3,5",
    max_steps: Annotated[
        str, typer.Option("--max-steps", help="Grid of step budgets.")
    ] = "5,10,20",
    split: SplitOpt = None,
    model: ModelOpt = None,
    limit: LimitOpt = None,
    sample: SampleOpt = None,
    sample_fraction: SampleFractionOpt = None,
    seed: SeedOpt = 0,
    concurrency: ConcurrencyOpt = 4,
    ablate: AblateOpt = None,
    dense_search: DenseSearchOpt = None,
    brief_prompt: BriefPromptOpt = False,
    base_url: BaseUrlOpt = None,
    temperature: TemperatureOpt = None,
    max_tokens: MaxTokensOpt = None,
    baseline: Annotated[bool, typer.Option(help="Also score BM25 on the questions.")] = True,
) -> None:
    """Run a grid of agents × max steps (resumable), then write the report with heatmaps."""
    from cli.console import ProgressPerRun
    from cli.sweep import SweepRequest, parse_grid, run_sweep

    console, err = Console(), Console(stderr=True)
    questions = run_request(
        snapshot,
        qa,
        out,
        split=split,
        sample=sample,
        sample_fraction=sample_fraction,
        seed=seed,
        limit=limit,
        concurrency=concurrency,
    )
    with user_errors(err, ValueError):
        request = SweepRequest(
            questions=questions,
            agent=agent_config(
                model=model,
                base_url=base_url,
                temperature=temperature,
                max_tokens=max_tokens,
                ablate=ablate,
                dense_search=dense_search,
                brief_prompt=brief_prompt,
            ),
            agents=parse_grid(agents, "--agents"),
            max_steps=parse_grid(max_steps, "--max-steps"),
            baseline=baseline,
        )
    with (
        ProgressPerRun(console) as bars,
        user_errors(err),
        interrupt_hint(err, out, how="(finished cells are kept)"),
    ):
        report = run_sweep(request, on_cell=bars.handlers)
    console.print(f"wrote {', '.join(str(path) for path in report.files)}")


def register(
    app: typer.Typer, extra_baselines: dict[str, Callable[..., None]] | None = None
) -> None:
    """Add `ark eval` (run/report/sweep) and `ark baseline bm25` (+ `extra_baselines`)."""
    eval_app = typer.Typer(
        cls=DefaultCommandGroup,
        no_args_is_help=True,
        help=(
            "Batch-evaluate agents on question sets. `ark eval SNAPSHOT --qa FILE --out DIR` "
            "is short for `ark eval run ...`."
        ),
    )
    eval_app.command("run")(eval_run)
    eval_app.command("report")(eval_report)
    eval_app.command("sweep")(eval_sweep)
    baseline_app = typer.Typer(
        help="Non-agent baselines, scored like agent runs.", no_args_is_help=True
    )
    baseline_app.command("bm25")(baseline_bm25)
    for name, command in (extra_baselines or {}).items():
        baseline_app.command(name)(command)
    app.add_typer(eval_app, name="eval")
    app.add_typer(baseline_app, name="baseline")
