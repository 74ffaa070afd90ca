"""Turning user errors, missing extras and Ctrl-C into one clear line and an exit code."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from cli.output.safe_text import printable
from graphs.errors import ArkError, MissingExtraError

USER_ERROR_EXIT = 2
"""Exit code of a command stopped by an ArkError (bad input or setup the message explains)."""

EXTRA_OF_MODULE: Mapping[str, str] = MappingProxyType(
    {
        "torch": "distill",
        "transformers": "distill",
        "trl": "distill",
        "peft": "distill",
        "datasets": "distill",
        "accelerate": "distill",
        "tokenizers": "distill",
        "gguf": "distill",
        "sentence_transformers": "dense",
        "scipy": "dense",
        "mcp": "mcp",
    }
)
"""The optional extra that installs each optional top-level module (pyproject.toml)."""


def print_error(message: str, console: Console | None = None) -> None:
    """Print `error: message` on one line; the message is plain text, never rich markup.

    Brackets in a message (`pip install 'ark-kg[dense]'`, a node id `[x]`) are printed as
    written: only the `error:` prefix is styled.
    """
    line = Text("error: ", style="bold red")
    line.append(printable(message))  # messages quote data: escape sequences print as text
    (console or Console(stderr=True)).print(line, highlight=False, soft_wrap=True)


def fail(message: str, console: Console | None = None) -> NoReturn:
    """Print one clear error line (see `print_error`) and exit with code 2."""
    print_error(message, console)
    raise typer.Exit(code=USER_ERROR_EXIT)


def missing_extra(error: ModuleNotFoundError) -> MissingExtraError | None:
    """The one-line hint for an optional module that is not installed (None: not optional)."""
    module = (error.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    return MissingExtraError(extra, module) if extra else None


FILE_SYSTEM_HINTS: Mapping[int, str] = MappingProxyType(
    {
        errno.ENOSPC: "free some space or write elsewhere, then rerun the command",
        errno.EDQUOT: "free some space or write elsewhere, then rerun the command",
        errno.EROFS: "write to a path on a writable file system",
        errno.EACCES: "write to a path you may write to, or change its permissions",
        errno.EPERM: "write to a path you may write to, or change its permissions",
        errno.ENOTDIR: "a file stands where a directory is needed: choose another path",
        errno.EISDIR: "a directory stands where a file is needed: choose another path",
        errno.EEXIST: "a file stands where a directory is needed: choose another path",
        errno.ENAMETOOLONG: "choose a shorter path",
        errno.ENOENT: "check the path: a directory on the way does not exist",
    }
)
"""What to do about each file-system error of the machine (not of the program): the disk is
full, the path is read-only or not writable, or a file stands where a directory must go.
Commands that write write atomically (a snapshot is swapped in once whole; a run directory
keeps every finished record), so what was there before such an error is still there."""


def user_message(error: BaseException) -> str | None:
    """The one line a user sees for `error`, or None when it is a bug (keep the traceback).

    ArkError is a user error by definition; a missing optional module becomes the install
    hint of its extra; a file-system error of the machine (`FILE_SYSTEM_HINTS`: disk full,
    read-only, no permission, a file in the way) says which path and what to do. Everything
    else is a bug.
    """
    if isinstance(error, ArkError):
        return str(error) or type(error).__name__
    if isinstance(error, ModuleNotFoundError):
        hint = missing_extra(error)
        return str(hint) if hint else None
    if (
        isinstance(error, OSError)
        and type(error) in _FILE_SYSTEM_ERRORS
        and error.errno in FILE_SYSTEM_HINTS
    ):
        return _file_system_line(error)
    return None


_FILE_SYSTEM_ERRORS = (
    OSError, PermissionError, FileExistsError, FileNotFoundError, NotADirectoryError,
    IsADirectoryError,
)  # fmt: skip
"""OSError itself and its file-system subclasses (never a network error, also an OSError)."""


def _file_system_line(error: OSError) -> str:
    where = error.filename if error.filename is not None else "a file being written"
    reason = error.strerror or os.strerror(error.errno or 0)
    return f"{where}: {reason.lower()}; {FILE_SYSTEM_HINTS[error.errno or 0]}"


@contextmanager
def user_errors(console: Console, *extra: type[Exception]) -> Iterator[None]:
    """Turn ArkErrors, a missing extra (and `extra` error types) into one line and exit 2.

    The application (cli/app.py) already does this for every command; use this only to
    print on a particular console or to add a type that is a user error at this call site.
    """
    handled: tuple[type[Exception], ...] = (ArkError, ModuleNotFoundError, *extra)
    try:
        yield
    except handled as error:
        message = user_message(error)
        if message is None and not isinstance(error, extra):
            raise
        fail(message if message is not None else str(error), console)


@contextmanager
def interrupt_hint(err: Console, out: Path, *, how: str = "with --resume") -> Iterator[None]:
    """On Ctrl-C: say what is kept and how to continue, exit 130 without a traceback."""
    try:
        yield
    except KeyboardInterrupt:
        err.print(
            f"[yellow]interrupted[/]: finished questions are saved under {escape(str(out))}; "
            f"rerun the same command {how} to continue."
        )
        raise typer.Exit(code=130) from None
