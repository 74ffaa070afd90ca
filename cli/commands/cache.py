"""`ark cache info|clear`: the user-wide caches ARK writes (graphs/cache_dir.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from cli.flags.errors import FlagError
from graphs.cache_dir import CACHES, cache_path, cache_root


def register(app: typer.Typer) -> None:
    """Add `ark cache` (info, clear)."""
    cache_app = typer.Typer(
        help="The caches ARK writes under ~/.cache/ark ($ARK_CACHE_DIR): list or empty them.",
        no_args_is_help=True,
    )
    cache_app.command("info")(info)
    cache_app.command("clear")(clear)
    app.add_typer(cache_app, name="cache")


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def info() -> None:
    """Each cache: where it is, its size, and what it holds (removing one only costs time)."""
    print(f"cache root: {cache_root()} (set ARK_CACHE_DIR to move it)")
    for cache in CACHES:
        path = cache_path(cache.name)
        size = _megabytes(_size(path)) if path.exists() else "empty"
        print(f"{cache.name:12s} {size:>12s}  {path}  ({cache.holds})")


def clear(
    names: Annotated[
        list[str] | None,
        typer.Argument(help=f"Caches to empty: {', '.join(c.name for c in CACHES)}."),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Empty every cache.")] = False,
) -> None:
    """Empty the caches named (or --all): the work they hold is redone when next needed."""
    known = [cache.name for cache in CACHES]
    chosen = known if every else list(names or [])
    if not chosen:
        raise FlagError(f"name the caches to empty ({', '.join(known)}) or pass --all")
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise FlagError(f"unknown cache {unknown[0]!r}; the caches are: {', '.join(known)}")
    for name in chosen:
        path = cache_path(name)
        size = _size(path)
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        print(f"{name}: emptied ({_megabytes(size)} freed)")
