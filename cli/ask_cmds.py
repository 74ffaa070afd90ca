"""`ark ask`: answer one question with n agents and print the fused answer list."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer
from rich.console import Console

from agent.factory import make_agent
from agent.models.base import ModelError
from cli.options import (
    AblateOpt,
    AgentsOpt,
    BaseUrlOpt,
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
    ablate: AblateOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live trace.")] = False,
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
            ablate=ablate,
        )
        agent = make_agent(graph, config)
    except (GraphError, ModelError, ValueError) as exc:
        fail(str(exc))
    trace = None if (quiet or as_json) else TracePrinter(console)
    result = asyncio.run(agent.ask(question, on_event=trace))
    if as_json:
        print(json.dumps(result.model_dump(mode="json")))
        return
    if result.failed:
        fail("every agent failed: " + "; ".join(result.errors))
    console.print(answer_table(result, graph))
    console.print(result_summary(result), style="dim")


def register(app: typer.Typer) -> None:
    """Add `ark ask`."""
    app.command("ask")(ask)
