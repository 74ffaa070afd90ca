"""The `ark` Typer application: each command group lives in its own module and registers here."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from cli.commands import (
    answer,
    ask,
    cache,
    demo,
    dense,
    distill,
    embed,
    evaluate,
    fuse,
    graph,
    mcp,
    plan,
    repl,
    serve,
    stark,
    synth,
    tool,
)
from cli.guards import USER_ERROR_EXIT, print_error, user_message

INTERRUPT_EXIT = 130
INTERRUPTED = (
    "interrupted: stopped before finishing; what was there before is unchanged (a snapshot is "
    "swapped in only once whole, a run directory keeps every finished record)"
)


class ArkGroup(TyperGroup):
    """The root command group: a user error in any command ends as one line and exit 2.

    An ArkError (or a missing optional extra) is printed as `error: message` and the command
    exits with code 2; Ctrl-C ends any command with one line and exit 130 (commands that can
    resume say how themselves); any other exception is a bug and propagates with its
    traceback.
    """

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click.Context
        """Run the command, turning user errors into one line and exit code 2."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            print_error(INTERRUPTED)
            raise typer.Exit(code=INTERRUPT_EXIT) from None
        except Exception as error:
            message = user_message(error)
            if message is None:
                raise
            print_error(message)
            raise typer.Exit(code=USER_ERROR_EXIT) from None


def build_app() -> typer.Typer:
    """Build the `ark` application with every command group registered."""
    app = typer.Typer(
        name="ark",
        cls=ArkGroup,
        help="ARK: agentic retrieval over knowledge graphs.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    graph_app = typer.Typer(help="Build, import and inspect graph snapshots.", no_args_is_help=True)
    import_app = typer.Typer(help="Import a graph into a snapshot directory.", no_args_is_help=True)
    graph_app.add_typer(import_app, name="import")
    app.add_typer(graph_app, name="graph")

    graph.register(graph_app, import_app)
    stark.register(import_app)
    synth.register(graph_app)
    embed.register(graph_app)
    tool.register(app)
    ask.register(app)
    repl.register(app)
    evaluate.register(app, extra_baselines={"dense": dense.baseline_dense})
    demo.register(app)
    distill.register(app)
    mcp.register(app)
    fuse.register(app)
    answer.register(app)
    plan.register(app)
    cache.register(app)
    serve.register(app)
    return app


def main() -> None:
    """Console entry point of `ark`."""
    build_app()()
