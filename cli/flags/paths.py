"""Where a command reads and writes: the snapshot argument and the `--out DIR` parser."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["SnapshotArg", "out_dir"]

SnapshotArg = Annotated[Path, typer.Argument(help="Snapshot directory (see `ark graph`).")]


def out_dir(value: str | Path) -> Path:
    """`--out DIR`: a directory to write (new or existing), never empty, never a file.

    The parser of every command's directory `--out` (an empty path would write into the
    current directory; a file there would fail half way through with a traceback).
    """
    text = str(value)
    if not text.strip() or (isinstance(value, str) and not value.strip()):
        raise typer.BadParameter("the path is empty: give the directory to write, e.g. --out out")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise typer.BadParameter(
            f"{text} is a file, not a directory: give a directory path (new, or one to reuse)"
        )
    return path
