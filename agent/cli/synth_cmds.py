"""Commands of the `ark` CLI (synth)."""

from __future__ import annotations

import typer


def register(graph_app: typer.Typer) -> None:
    """Add this module's commands to the `ark` application."""
