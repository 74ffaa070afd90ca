"""`ark repl`: the interactive session over a snapshot."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from agent.factory import make_agent
from agent.models.base import ModelError
from cli.options import (
    AgentsOpt,
    BaseUrlOpt,
    BriefPromptOpt,
    DenseSearchOpt,
    MaxTokensOpt,
    ModelOpt,
    SnapshotArg,
    StepsOpt,
    agent_config,
    fail,
)
from cli.repl import Repl
from cli.repl_io import LineReader, PromptToolkitReader, StreamReader, history_path
from cli.repl_session import ReplSession
from graphs.errors import GraphError
from graphs.snapshot import Snapshot


def repl(
    snapshot: SnapshotArg,
    model: ModelOpt = None,
    agents: AgentsOpt = None,
    max_steps: StepsOpt = None,
    base_url: BaseUrlOpt = None,
    max_tokens: MaxTokensOpt = None,
    dense_search: DenseSearchOpt = None,
    brief_prompt: BriefPromptOpt = False,
) -> None:
    """Ask questions interactively over SNAPSHOT (history is kept across sessions)."""
    console = Console()
    try:
        graph = Snapshot.open(snapshot)
        config = agent_config(
            model=model,
            agents=agents,
            max_steps=max_steps,
            base_url=base_url,
            max_tokens=max_tokens,
            dense_search=dense_search,
            brief_prompt=brief_prompt,
        )
        session = ReplSession(snapshot=graph, config=config, agent_factory=make_agent)
        session.current_agent()
    except (GraphError, ModelError, ValueError) as exc:
        fail(str(exc))
    reader: LineReader = (
        PromptToolkitReader(history_path()) if sys.stdin.isatty() else StreamReader(sys.stdin)
    )
    Repl(session, reader, console).run()


def register(app: typer.Typer) -> None:
    """Add `ark repl`."""
    app.command("repl")(repl)
