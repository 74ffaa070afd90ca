"""`ark repl`: the interactive session over a snapshot."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from agent.factory import make_agent
from cli.flags.agent import AgentFlags
from cli.flags.groups import with_flags
from cli.flags.paths import SnapshotArg
from cli.repl.lines import LineReader, PromptToolkitReader, StreamReader, history_path
from cli.repl.loop import Repl
from cli.repl.session import ReplSession
from graphs.snapshot import Snapshot


@with_flags()
def repl(snapshot: SnapshotArg, *, agent: AgentFlags) -> None:
    """Ask questions interactively over SNAPSHOT (history is kept across sessions)."""
    console = Console()
    graph = Snapshot.open(snapshot)
    session = ReplSession(snapshot=graph, config=agent.config(), agent_factory=make_agent)
    session.current_agent()
    reader: LineReader = (
        PromptToolkitReader(history_path()) if sys.stdin.isatty() else StreamReader(sys.stdin)
    )
    Repl(session, reader, console).run()


def register(app: typer.Typer) -> None:
    """Add `ark repl`."""
    app.command("repl")(repl)
