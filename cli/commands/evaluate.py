"""Commands of the `ark` CLI: `ark eval` (run, report, sweep) and `ark baseline bm25`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from cli.flags.agent import AgentFlags
from cli.flags.executor import ExecutorFlags
from cli.flags.groups import with_flags
from cli.flags.paths import SnapshotArg, out_dir
from cli.flags.run import RunFlags
from cli.guards import interrupt_hint, user_errors
from cli.output.run_progress import run_with_progress

ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", min=1, help="Questions in flight at once.")
]


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


@with_flags()
def eval_run(
    snapshot: SnapshotArg,
    *,
    run: RunFlags,
    agent: AgentFlags,
    where: ExecutorFlags,
    concurrency: ConcurrencyOpt = 4,
) -> None:
    """Evaluate agents on the questions of QA over SNAPSHOT (also `ark eval SNAPSHOT ...`)."""
    from evals.runs.runner import evaluate

    config = agent.config()
    request = run.request(snapshot, concurrency=concurrency)
    spread = where.config()
    run_with_progress(
        Console(),
        run.out,
        as_json=run.as_json,
        label=f"{config.model} n={config.n_agents}",
        execute=lambda **handlers: evaluate(request, config, executor=spread, **handlers),
    )


@with_flags()
def baseline_bm25(
    snapshot: SnapshotArg,
    *,
    run: RunFlags,
    k: Annotated[int, typer.Option("--k", min=1, help="Hits kept per question.")] = 100,
    preset: Annotated[
        str,
        typer.Option(
            "--preset",
            help="ark: the snapshot's index over every node; stark: STaRK's own BM25 baseline "
            "(candidate nodes only, bm25s defaults), to check a STaRK import against Table 1.",
        ),
    ] = "ark",
) -> None:
    """Score plain BM25 global search (top-k for the raw question) like an agent run."""
    from rank.baselines.bm25 import PRESETS, run_baseline

    if preset not in PRESETS:
        raise typer.BadParameter(f"choose one of: {', '.join(PRESETS)}", param_hint="--preset")

    request = run.request(snapshot)
    run_with_progress(
        Console(),
        run.out,
        as_json=run.as_json,
        label="bm25",
        execute=lambda **handlers: run_baseline(
            request,
            k=k,
            preset=preset,  # type: ignore[arg-type]  # checked against PRESETS above
            **handlers,
        ),
    )


def eval_report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories to compare.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write report.md and PNG figures here.", parser=out_dir),
    ] = None,
) -> None:
    """Compare runs side by side (overall and per family, both protocols) with figures."""
    from evals.report import build_report

    report = build_report(run_dirs, out)
    if out is None:
        print(report.markdown, end="")
        return
    from cli.output.console import report_view

    console = Console()
    console.print(report_view(report))
    console.print(f"wrote {', '.join(str(path) for path in report.files)}")


@with_flags(without={"run": ("resume", "as_json"), "agent": ("agents", "max_steps")})
def eval_sweep(
    snapshot: SnapshotArg,
    *,
    run: RunFlags,
    agents: Annotated[str, typer.Option("--agents", help="Grid of agent counts.")] = "1,3,5",
    max_steps: Annotated[
        str, typer.Option("--max-steps", help="Grid of step budgets.")
    ] = "5,10,20",
    agent: AgentFlags,
    concurrency: ConcurrencyOpt = 4,
    baseline: Annotated[bool, typer.Option(help="Also score BM25 on the questions.")] = True,
) -> None:
    """Run a grid of agents × max steps (resumable), then write the report with heatmaps.

    A sweep always continues the cells already in --out, so it takes no --resume; it
    replaces --agents and --max-steps by grids of them.
    """
    from cli.output.console import ProgressPerRun
    from cli.sweep import SweepRequest, parse_grid, run_sweep

    console, err = Console(), Console(stderr=True)
    with user_errors(err, ValueError):
        request = SweepRequest(
            questions=run.request(snapshot, concurrency=concurrency),
            agent=agent.config(),
            agents=parse_grid(agents, "--agents"),
            max_steps=parse_grid(max_steps, "--max-steps"),
            baseline=baseline,
        )
    with (
        ProgressPerRun(console) as bars,
        interrupt_hint(err, run.out, how="(finished cells are kept)"),
    ):
        report = run_sweep(request, on_cell=bars.handlers)
    from cli.output.console import report_view

    console.print(report_view(report))
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
