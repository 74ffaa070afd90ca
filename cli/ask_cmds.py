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
from agent.models.base import ModelError
from agent.trajectory import QuestionResult, new_question_id
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
from cli.render import TracePrinter, answer_table, result_summary
from graphs.errors import GraphError
from graphs.snapshot import Snapshot


def ask(
    snapshot: SnapshotArg,
    question: Annotated[str, typer.Argument(help="The question, in natural language.")],
    model: ModelOpt = None,
    agents: AgentsOpt = None,
    max_steps: StepsOpt = None,
    base_url: BaseUrlOpt = None,
    temperature: TemperatureOpt = None,
    max_tokens: MaxTokensOpt = None,
    ablate: AblateOpt = None,
    dense_search: DenseSearchOpt = None,
    brief_prompt: BriefPromptOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live trace.")] = False,
    save: Annotated[
        Path | None,
        typer.Option(
            "--save",
            help="Append the result to this run directory (the `ark eval` format; "
            "`ark eval report` and `ark distill dataset` read it).",
        ),
    ] = None,
) -> None:
    """Answer QUESTION over SNAPSHOT: n agents explore in parallel, answers fused by vote."""
    console = Console()
    if not question.strip():
        fail("the question is empty; pass it as the second argument in quotes")
    try:
        graph = Snapshot.open(snapshot)
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
        agent = make_agent(graph, config)
    except (GraphError, ModelError, ValueError) as exc:
        fail(str(exc))
    if save is not None:
        _check_save(save, config, snapshot)
    trace = None if (quiet or as_json) else TracePrinter(console)
    question_id = None if save is None else new_question_id("ask")
    result = asyncio.run(agent.ask(question, question_id=question_id, on_event=trace))
    if save is not None:
        _save(save, result, config, snapshot, quiet=quiet or as_json)
    if as_json:
        print(json.dumps(result.model_dump(mode="json")))
        return
    if result.failed:
        fail("every agent failed: " + "; ".join(result.errors))
    console.print(answer_table(result, graph))
    console.print(result_summary(result), style="dim")


def _check_save(run_dir: Path, config: AgentConfig, snapshot: Path) -> None:
    """Fail before the agents run when the answer could not be saved to `run_dir`."""
    from evals.answer_log import answer_run_config, check_answer_dir
    from evals.runstore import RunStoreError

    try:
        check_answer_dir(run_dir, answer_run_config(config.to_record(), snapshot))
    except (RunStoreError, OSError) as exc:
        fail(f"cannot save to {run_dir}: {exc}")


def _save(
    run_dir: Path, result: QuestionResult, config: AgentConfig, snapshot: Path, *, quiet: bool
) -> None:
    from evals.answer_log import answer_run_config, save_answer
    from evals.runstore import RunStoreError

    try:
        save_answer(run_dir, result, answer_run_config(config.to_record(), snapshot))
    except (RunStoreError, OSError) as exc:
        fail(f"could not save to {run_dir}: {exc}")
    if not quiet:
        Console(stderr=True).print(f"saved {result.question_id} to {run_dir}", style="dim")


def register(app: typer.Typer) -> None:
    """Add `ark ask`."""
    app.command("ask")(ask)
