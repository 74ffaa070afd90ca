"""`ark graph import tabular` and `ark graph info`."""

from __future__ import annotations

import typer


def register(graph_app: typer.Typer, import_app: typer.Typer) -> None:
    """Add this module's commands to the `graph` and `graph import` groups."""
