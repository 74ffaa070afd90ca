"""The run directory: config.json, results.jsonl and failures.jsonl, appended durably.

Layout (the contract with distill/, see docs/contracts.md)::

    RUN_DIR/config.json      what was run: {"agent", "snapshot", "qa", "split", "created_at", ...}
    RUN_DIR/results.jsonl    one RunRecord per finished question, never duplicated
    RUN_DIR/failures.jsonl   one FailureRecord per failed attempt; retried on --resume

Every line is written with a single ``write`` followed by ``fsync``, so a crash or
``kill -9`` leaves at most one torn (newline-less or unparsable) final line. Readers ignore
such a line with a warning, and ``RunStore.open`` truncates it before appending again. A write
that fails (a full disk) is cut back to the last complete line before the error is raised.

One writer at a time: ``RunStore.open`` locks the directory (evals/runs/lock.py) and a second
writer is refused with the holder's pid, host and command. config.json is written to a
temporary file and renamed into place, so it is either absent or complete.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agent.config import AgentConfig
from evals.runs.errors import RunLockedError, RunStoreError, RunWriteError
from evals.runs.files import (
    append_line,
    run_content,
    truncate_torn_tail,
    write_atomically,
    write_error,
)
from evals.runs.lock import RunLock
from evals.runs.records import (
    CONFIG_FILE,
    FAILURES_FILE,
    RESULTS_FILE,
    FailureRecord,
    RunRecord,
    read_config,
    read_failures,
    read_results,
)

logger = logging.getLogger(__name__)

IDENTITY_KEYS: tuple[str, ...] = ("agent", "baseline", "snapshot", "qa", "split", "sample")
"""config.json keys that must match for --resume to continue a run (limit may change)."""

__all__ = [
    "CONFIG_FILE",
    "FAILURES_FILE",
    "RESULTS_FILE",
    "FailureRecord",
    "RunLockedError",
    "RunRecord",
    "RunStore",
    "RunStoreError",
    "RunWriteError",
    "check_run_dir",
    "config_differences",
    "read_config",
    "read_failures",
    "read_results",
]


def config_differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Dotted names of identity fields whose values differ, e.g. ``agent.max_steps: 20 -> 10``.

    An agent setting that `old` does not record (its run predates the setting) counts as
    AgentConfig's default, so a run written before a new switch resumes while the switch is off.
    """
    differences: list[str] = []

    def walk(prefix: str, a: Any, b: Any, default: Any) -> None:
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            defaults = default if isinstance(default, Mapping) else {}
            for key in sorted(set(a) | set(b)):
                was = a[key] if key in a else defaults.get(key)
                walk(f"{prefix}.{key}", was, b.get(key), defaults.get(key))
        elif a != b:
            differences.append(f"{prefix}: {a!r} -> {b!r}")

    defaults = {"agent": AgentConfig().to_record()}
    for key in IDENTITY_KEYS:
        walk(key, old.get(key), new.get(key), defaults.get(key))
    return differences


def parses_as(model: type[BaseModel]) -> Callable[[bytes], bool]:
    """A test of one JSONL line for `truncate_torn_tail`: it validates as `model`."""

    def complete(line: bytes) -> bool:
        try:
            model.model_validate_json(line)
        except ValidationError:
            return False
        return True

    return complete


def check_run_dir(run_dir: Path, *, resume: bool = False, hint: str) -> None:
    """Refuse a path that is a file, or (unless resuming) a non-empty directory.

    Commands call it before any costly work, so a bad `--out` fails at once.

    Raises:
        RunStoreError: ending with `hint` for a non-empty directory.
    """
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise RunStoreError(f"{run_dir} exists and is a file, not a directory; choose another "
                            "directory")  # fmt: skip
    if not resume and run_content(run_dir):
        raise RunStoreError(f"{run_dir} is not empty; {hint}")


def make_run_dir(run_dir: Path) -> None:
    """Create `run_dir` (and its parents) when missing.

    Raises:
        RunStoreError: it cannot be created (a parent is a file, no permission, ...).
    """
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        if isinstance(error, NotADirectoryError | FileExistsError):
            reason = "a part of the path is a file, not a directory"
        raise RunStoreError(
            f"cannot create the run directory {run_dir}: {reason}; choose another --out"
        ) from error


class RunStore:
    """Append-only writer of one run directory; use ``RunStore.open`` and close it when done.

    It holds the directory's writer lock from `open` to `close`.
    """

    def __init__(self, run_dir: Path, lock: RunLock | None = None) -> None:
        self.run_dir = Path(run_dir)
        self._lock = lock
        self._fds: dict[str, int] = {}
        self._failed: RunWriteError | None = None

    @classmethod
    def open(
        cls, run_dir: Path, config: Mapping[str, Any], *, resume: bool, wait_s: float = 0.0
    ) -> RunStore:
        """Create a run directory, or reopen one to resume it, and lock it for this writer.

        Args:
            run_dir: Where the run lives.
            config: What is being run (written to config.json; identity keys are compared
                with the stored ones on resume).
            resume: Continue an existing run instead of refusing a non-empty directory.
            wait_s: How long to wait for another writer to finish (0: refuse at once).

        Raises:
            RunLockedError: another process is writing to the directory (named in the message).
            RunStoreError: the directory is not empty and `resume` is False, it holds a run
                of another configuration (the message lists the differing fields), or it
                cannot be created or written.
        """
        run_dir = Path(run_dir)
        hint = "pass --resume to continue the run there, or choose a new --out directory"
        check_run_dir(run_dir, resume=resume, hint=hint)
        make_run_dir(run_dir)
        try:
            lock = RunLock.acquire(run_dir, wait_s=wait_s)
        except OSError as error:
            raise RunStoreError(
                f"cannot write to the run directory {run_dir}: {error.strerror or error}; "
                "choose another --out"
            ) from error
        try:
            _prepare(run_dir, config, resume=resume, hint=hint)
        except BaseException:
            lock.release()
            raise
        return cls(run_dir, lock)

    def finished_ids(self) -> set[str]:
        """Ids of the questions already in results.jsonl."""
        return {record.question_id for record in read_results(self.run_dir)}

    def append_result(self, record: RunRecord) -> None:
        """Append one finished question durably (single write + fsync)."""
        self.append_line(RESULTS_FILE, record.model_dump_json())

    def append_failure(self, record: FailureRecord) -> None:
        """Append one failed attempt durably (single write + fsync)."""
        self.append_line(FAILURES_FILE, record.model_dump_json())

    def append_line(self, name: str, line: str) -> None:
        """Append one line to the run's file `name` durably (single write + fsync).

        After a failed write every later append fails alike, unwritten.

        Raises:
            RunWriteError: this write, or an earlier one, failed (the file is cut back).
        """
        if self._failed is not None:
            raise self._failed
        path = self.run_dir / name
        try:
            if name not in self._fds:
                self._fds[name] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            append_line(self._fds[name], path, (line + "\n").encode("utf-8"))
        except RunWriteError as error:
            self._failed = error
            raise
        except OSError as error:
            self._failed = write_error(path, error)
            raise self._failed from error

    def close(self) -> None:
        """Close the open file descriptors and release the lock (idempotent)."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _prepare(run_dir: Path, config: Mapping[str, Any], *, resume: bool, hint: str) -> None:
    """Under the lock: check the directory again, write config.json or compare it, repair."""
    check_run_dir(run_dir, resume=resume, hint=hint)  # another writer may have filled it
    if run_content(run_dir):
        differences = config_differences(read_config(run_dir), config)
        if differences:
            raise RunStoreError(
                f"{run_dir} holds a run of another configuration ("
                + "; ".join(differences)
                + "); rerun with the same options, or choose a new --out directory"
            )
    else:
        stored = {**config, "created_at": datetime.now(UTC).isoformat()}
        write_atomically(run_dir / CONFIG_FILE, json.dumps(stored, indent=2) + "\n")
    try:
        truncate_torn_tail(run_dir / RESULTS_FILE, parses_as(RunRecord))
        truncate_torn_tail(run_dir / FAILURES_FILE, parses_as(FailureRecord))
    except OSError as error:
        raise write_error(run_dir, error) from error
