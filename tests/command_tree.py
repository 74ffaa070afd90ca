"""The leaf commands of the `ark` app, as tests that check every command walk them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def walk(command: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf command of the Click tree Typer builds, with its full name (typer vendors
    its own click)."""
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from walk(sub, f"{prefix} {name}".strip())
    else:
        yield prefix, command
