"""`ark demo`: a synthetic graph, the agent next to BM25, and one trajectory, fully offline."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from agent.config import AgentConfig
from cli.flags.agent import AgentFlags
from cli.flags.groups import with_flags
from cli.flags.paths import out_dir
from cli.guards import fail, interrupt_hint


@with_flags()
def demo(
    domain: Annotated[
        str, typer.Option("--domain", help="products | academic | biomed.")
    ] = "products",
    out: Annotated[
        Path, typer.Option("--out", help="Demo directory (graph + runs).", parser=out_dir)
    ] = Path("ark-demo"),
    limit: Annotated[int, typer.Option("--limit", min=1, help="Test questions to run.")] = 100,
    *,
    agent: AgentFlags,
) -> None:
    """Generate a synthetic graph, evaluate the agent (rule policy) next to BM25, show a run.

    The agent is the offline rule policy unless -m names another model ($ARK_MODEL is not
    read here, so the demo stays offline by default).
    """
    from cli.demo import DOMAINS, DemoRequest, run_demo
    from cli.output.console import ProgressPerRun, demo_view

    console, err = Console(), Console(stderr=True)
    if domain not in DOMAINS:
        fail(f"unknown domain {domain!r}; choose one of {', '.join(DOMAINS)}", err)
    model = agent.model
    if model and not (agent.base_url or _endpoint_configured(model)):
        fail(f"-m {model} needs an endpoint: pass --base-url or set OPENAI_BASE_URL (and "
             "OPENAI_API_KEY if it asks for one), or leave out -m to run the offline rule "
             "policy", err)  # fmt: skip
    config = replace(agent, model=model or AgentConfig.model).config()
    request = DemoRequest(domain=domain, out=out, agent=config, limit=limit)
    console.print(f"[bold]ARK demo[/]: {domain} graph, {config.model} agent vs BM25, "
                  f"first {limit} test questions")  # fmt: skip
    with (
        ProgressPerRun(console) as bars,
        interrupt_hint(err, out, how="(the graph is kept)"),
    ):
        result = run_demo(request, handlers=bars.handlers)
    console.print(demo_view(result))
    runs = out / "runs"
    console.print(f"runs in {runs}; compare them with `ark eval report {runs}/*`", style="dim")


def _endpoint_configured(model: str) -> bool:
    """Local specs need no endpoint; served models need OPENAI_BASE_URL or OPENAI_API_KEY."""
    if model == "rules" or model.startswith("hf:"):
        return True
    return bool(os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"))


def register(app: typer.Typer) -> None:
    """Add `ark demo`."""
    app.command("demo")(demo)
