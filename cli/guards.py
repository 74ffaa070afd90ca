"""Turning user errors and Ctrl-C into one clear line and an exit code, for long commands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console

from cli.options import fail


@contextmanager
def user_errors(console: Console, *extra: type[Exception]) -> Iterator[None]:
    """Turn the typed errors of bad input (and `extra` ones) into one line and exit code 2."""
    from agent.models.base import ModelError
    from evals.qa import QAError
    from evals.runstore import RunStoreError
    from graphs.errors import GraphError

    handled: tuple[type[Exception], ...] = (RunStoreError, GraphError, QAError, ModelError, *extra)
    try:
        yield
    except handled as error:
        fail(str(error), console)


@contextmanager
def interrupt_hint(err: Console, out: Path, *, how: str = "with --resume") -> Iterator[None]:
    """On Ctrl-C: say what is kept and how to continue, exit 130 without a traceback."""
    try:
        yield
    except KeyboardInterrupt:
        err.print(
            f"[yellow]interrupted[/]: finished questions are saved under {out}; "
            f"rerun the same command {how} to continue."
        )
        raise typer.Exit(code=130) from None
