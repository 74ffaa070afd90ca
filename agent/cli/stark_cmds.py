"""Commands of the `ark` CLI (stark)."""

from __future__ import annotations

import typer


def register(import_app: typer.Typer) -> None:
    """Add this module's commands to the `ark` application."""
