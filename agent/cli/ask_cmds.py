"""Commands of the `ark` CLI (ask)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `ark` application."""
