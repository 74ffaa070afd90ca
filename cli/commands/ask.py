"""`ark ask`: answer one question with n agents and print the fused answer list."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.trajectory import QuestionResult, new_question_id
from cli.flags.agent import AgentFlags
from cli.flags.groups import with_flags
from cli.flags.paths import SnapshotArg
from cli.guards import fail
from cli.output.language_warning import LanguageWarning
from cli.output.render import TracePrinter, answer_table, result_summary
from evals.qa.records import MAX_QUESTION_CHARS, check_question
from graphs.snapshot import Snapshot

QuestionArg = Annotated[
    str,
    typer.Argument(
        help=f"The question, in natural language (UTF-8, at most {MAX_QUESTION_CHARS:,} "
        "characters)."
    ),
]


@with_flags()
def ask(
    snapshot: SnapshotArg,
    question: QuestionArg,
    *,
    agent: AgentFlags,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live trace.")] = False,
    save: Annotated[
        Path | None,
        typer.Option(
            "--save",
            help="Append the result to this run directory (the `ark eval` format; "
            "`ark eval report` and `ark distill dataset` read it). One writer at a time: "
            "concurrent saves to one directory wait for each other.",
        ),
    ] = None,
) -> None:
    """Answer QUESTION over SNAPSHOT: n agents explore in parallel, answers fused by vote."""
    console = Console()
    question = check_question(question)
    graph = Snapshot.open(snapshot)
    LanguageWarning(graph).note(question)
    config = agent.config()
    ark = make_agent(graph, config)
    if save is not None:
        _check_save(save, config, snapshot)
    trace = None if (quiet or as_json) else TracePrinter(console)
    question_id = None if save is None else new_question_id("ask")
    result = asyncio.run(ark.ask(question, question_id=question_id, on_event=trace))
    if as_json:
        print(json.dumps(result.model_dump(mode="json")))
    elif not result.failed:
        console.print(answer_table(result, graph))
        console.print(result_summary(result), style="dim")
    if save is not None:  # after printing: an answer that cannot be saved is still shown
        _save(save, result, config, snapshot, quiet=quiet or as_json)
    if result.failed and not as_json:
        fail("every agent failed: " + "; ".join(result.errors))


def _check_save(run_dir: Path, config: AgentConfig, snapshot: Path) -> None:
    """Fail before the agents run when the answer could not be saved to `run_dir`."""
    from evals.answers.log import answer_run_config, check_answer_dir
    from evals.runs.store import RunStoreError

    try:
        check_answer_dir(run_dir, answer_run_config(config.to_record(), snapshot))
    except (RunStoreError, OSError) as exc:
        fail(f"cannot save to {run_dir}: {exc}")


def _save(
    run_dir: Path, result: QuestionResult, config: AgentConfig, snapshot: Path, *, quiet: bool
) -> None:
    from evals.answers.log import answer_run_config, save_answer
    from evals.runs.store import RunStoreError

    try:
        save_answer(run_dir, result, answer_run_config(config.to_record(), snapshot))
    except (RunStoreError, OSError) as exc:
        fail(f"could not save to {run_dir}: {exc}")
    if not quiet:
        Console(stderr=True).print(f"saved {result.question_id} to {run_dir}", style="dim")


def register(app: typer.Typer) -> None:
    """Add `ark ask`."""
    app.command("ask")(ask)
