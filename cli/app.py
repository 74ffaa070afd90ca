"""The `ark` Typer application: each command group lives in its own module and registers here."""

from __future__ import annotations

import typer

from cli import (
    ask_cmds,
    demo_cmds,
    dense_cmds,
    distill_cmds,
    embed_cmds,
    eval_cmds,
    fuse_cmds,
    graph_cmds,
    mcp_cmds,
    repl_entry,
    stark_cmds,
    synth_cmds,
    tool_cmds,
)


def build_app() -> typer.Typer:
    """Build the `ark` application with every command group registered."""
    app = typer.Typer(
        name="ark",
        help="ARK: agentic retrieval over knowledge graphs.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    graph_app = typer.Typer(help="Build, import and inspect graph snapshots.", no_args_is_help=True)
    import_app = typer.Typer(help="Import a graph into a snapshot directory.", no_args_is_help=True)
    graph_app.add_typer(import_app, name="import")
    app.add_typer(graph_app, name="graph")

    graph_cmds.register(graph_app, import_app)
    stark_cmds.register(import_app)
    synth_cmds.register(graph_app)
    embed_cmds.register(graph_app)
    tool_cmds.register(app)
    ask_cmds.register(app)
    repl_entry.register(app)
    eval_cmds.register(app, extra_baselines={"dense": dense_cmds.baseline_dense})
    demo_cmds.register(app)
    distill_cmds.register(app)
    mcp_cmds.register(app)
    fuse_cmds.register(app)
    return app


def main() -> None:
    """Console entry point of `ark`."""
    build_app()()
