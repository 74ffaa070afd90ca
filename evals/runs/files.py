"""Durable file operations of a run directory: atomic replace, append with rollback, repair."""

from __future__ import annotations

import errno
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from evals.runs.errors import RunWriteError
from evals.runs.lock import LOCK_FILE

logger = logging.getLogger(__name__)

TEMP_PREFIX = ".tmp-"
"""Prefix of the temporary files config.json is first written to."""

DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def run_content(run_dir: Path) -> list[Path]:
    """The entries of a run directory that make it non-empty (not the lock or temp files)."""
    if not run_dir.is_dir():
        return []
    return [
        entry
        for entry in run_dir.iterdir()
        if entry.name != LOCK_FILE and not entry.name.startswith(TEMP_PREFIX)
    ]


def write_error(path: Path, error: OSError) -> RunWriteError:
    """The one message a failed write ends a run with: what failed, what is kept, what next."""
    if error.errno in DISK_FULL:
        cause = "no space left on the device (or the disk quota is used up)"
        fix = "free some space"
    else:
        cause = error.strerror or str(error)
        fix = "fix the cause"
    return RunWriteError(
        f"cannot write {path}: {cause}. Every record written before is intact (an incomplete "
        f"line was cut off); {fix}, then rerun the same command with --resume to continue"
    )


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that it is either absent or complete (temp file + rename).

    Raises:
        RunWriteError: the write failed (the temporary file is removed).
    """
    fd, temporary = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise write_error(path, error) from error
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (best effort where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        logger.debug("cannot fsync directory %s", directory)
    finally:
        os.close(fd)


def append_line(fd: int, path: Path, data: bytes) -> None:
    """Append `data` (one line) to the open file, durably, or leave the file as it was.

    Raises:
        RunWriteError: the write or fsync failed; the file is cut back to its former length.
    """
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        written = os.write(fd, data)
        while written < len(data):  # a regular file rarely writes short, but never drop bytes
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except OSError as error:
        try:
            os.ftruncate(fd, start)
        except OSError:
            logger.warning("%s: cannot cut back an incomplete line; --resume will", path)
        raise write_error(path, error) from error


def truncate_torn_tail(path: Path, complete: Callable[[bytes], bool]) -> None:
    """Cut a file back to its last complete line that `complete` accepts."""
    if not path.is_file():
        return
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1  # 0 when not even one line is complete
    if end:
        start = data.rfind(b"\n", 0, end - 1) + 1
        if not complete(data[start:end]):
            end = start
    if end != len(data):
        logger.warning(
            "%s: dropping %d bytes of an incomplete last line left by an interrupted run",
            path,
            len(data) - end,
        )
        with path.open("r+b") as handle:
            handle.truncate(end)
            handle.flush()
            os.fsync(handle.fileno())
