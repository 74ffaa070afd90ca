"""The writer's lock of a run directory: one process writes to it at a time.

`RunLock.acquire` takes an exclusive ``fcntl.flock`` on ``RUN_DIR/.writer.lock`` and keeps it
until `release` (or the process ends: the kernel drops the lock of a killed writer, so a
stale lock never blocks a ``--resume``). The lock file holds who took it (pid, host, command,
since when; URL credentials and query values redacted; readable by its owner only) so a
refused writer can say who holds the directory; `release` empties it. The file is left in
place: deleting a lock file another process is waiting on would let two writers in.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from evals.runs.errors import RunLockedError

LOCK_FILE = ".writer.lock"
"""The lock file inside a run directory (not part of the run's content)."""

_POLL_S = 0.05
_USERINFO = re.compile(r"://[^/@\s]+@")
_QUERY_VALUE = re.compile(r"([?&][^=&\s]+=)[^&\s]+")
"""Every value of a URL's query string (`?api_key=...`): credentials travel there too."""
_COMMAND_CHARS = 300


@dataclass(frozen=True)
class LockHolder:
    """Who holds a run directory's lock.

    Attributes:
        pid: Process id.
        host: Host name.
        command: The command line (URL credentials redacted, cut to 300 characters).
        since: When the lock was taken (ISO 8601, UTC).
    """

    pid: int
    host: str
    command: str
    since: str

    @classmethod
    def current(cls) -> LockHolder:
        """This process."""
        command = _QUERY_VALUE.sub(r"\1***", _USERINFO.sub("://***@", " ".join(sys.argv)))
        return cls(
            pid=os.getpid(),
            host=socket.gethostname(),
            command=command[:_COMMAND_CHARS],
            since=datetime.now(UTC).isoformat(timespec="seconds"),
        )

    def describe(self) -> str:
        """E.g. ``pid 4242 on host box, `ark eval ...`, since 2026-12-04T03:00:00+00:00``."""
        return f"pid {self.pid} on host {self.host}, `{self.command}`, since {self.since}"


class RunLock:
    """An exclusive lock on one run directory, held by this process until `release`."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def acquire(cls, run_dir: Path, *, wait_s: float = 0.0) -> RunLock:
        """Lock `run_dir` (which must exist) for writing.

        Args:
            run_dir: The run directory.
            wait_s: How long to wait for another writer to finish (0: refuse at once).

        Raises:
            RunLockedError: another process holds the lock (the message names it).
            OSError: the lock file cannot be created (e.g. the directory is read-only).
        """
        path = Path(run_dir) / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise RunLockedError(_refusal(Path(run_dir), read_holder(path))) from None
                time.sleep(_POLL_S)
        _record_holder(fd, LockHolder.current())
        return cls(fd, path)

    def release(self) -> None:
        """Drop the lock (idempotent); the holder it recorded is erased first."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None


def read_holder(path: Path) -> LockHolder | None:
    """The holder recorded in a lock file (None when unreadable or not yet written)."""
    try:
        return LockHolder(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def _record_holder(fd: int, holder: LockHolder) -> None:
    """Write the holder into the lock file; best effort (a full disk must not stop the run)."""
    data = json.dumps(asdict(holder)).encode("utf-8")
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError:
        pass


def _refusal(run_dir: Path, holder: LockHolder | None) -> str:
    who = holder.describe() if holder else "another process (its details are not written yet)"
    return (
        f"{run_dir} is being written by {who}; two writers would run questions twice. "
        "Wait for it to finish (or stop it), then rerun this command (with --resume to "
        "continue the run)"
    )
