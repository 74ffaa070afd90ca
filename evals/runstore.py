"""The run directory: config.json, results.jsonl and failures.jsonl, appended durably.

Layout (the contract with distill/, see docs/contracts.md)::

    RUN_DIR/config.json      what was run: {"agent", "snapshot", "qa", "split", "created_at", ...}
    RUN_DIR/results.jsonl    one RunRecord per finished question, never duplicated
    RUN_DIR/failures.jsonl   one FailureRecord per failed attempt; retried on --resume

Every line is written with a single ``write`` followed by ``fsync``, so a crash or
``kill -9`` leaves at most one torn (newline-less or unparsable) final line. Readers ignore
such a line with a warning, and ``RunStore.open`` truncates it before appending again.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from agent.config import AgentConfig
from agent.trajectory import QuestionResult, TrajectoryVersionError

logger = logging.getLogger(__name__)

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"
FAILURES_FILE = "failures.jsonl"
IDENTITY_KEYS: tuple[str, ...] = ("agent", "baseline", "snapshot", "qa", "split", "sample")
"""config.json keys that must match for --resume to continue a run (limit may change)."""

RecordT = TypeVar("RecordT", bound=BaseModel)


class RunStoreError(Exception):
    """A run directory cannot be used as asked (not empty, other config, corrupt file)."""


class RunRecord(BaseModel):
    """One finished question: its gold answers, the agents' result and both metric protocols."""

    question_id: str
    query: str
    family: str | None = None
    gold: list[str]
    result: QuestionResult
    metrics: dict[str, dict[str, float]]
    agent_metrics: list[dict[str, dict[str, float]]] = Field(default_factory=list)
    """Each trajectory's own answers scored like `metrics`, in agent order (Fig. 5 labels
    trajectories by these); empty for baselines and records written without gold."""


class FailureRecord(BaseModel):
    """One failed attempt at a question (all agents failed, or `ask` raised)."""

    question_id: str
    query: str = ""
    family: str | None = None
    error_type: str
    error: str
    traceback: str | None = None
    at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())


def _lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """Yield (line number, raw line, is_last) for every non-empty line, torn tail included."""
    if not path.is_file():
        return
    chunks = path.read_bytes().split(b"\n")
    # A file ending in "\n" yields a final empty chunk; a torn tail yields a non-empty one.
    last_index = len(chunks) - 1 if chunks[-1] else len(chunks) - 2
    for number, chunk in enumerate(chunks, start=1):
        if chunk.strip():
            yield number, chunk, number - 1 == last_index and bool(chunks[-1])


def _read_jsonl(path: Path, model: type[RecordT]) -> list[RecordT]:
    records: list[RecordT] = []
    entries = list(_lines(path))
    for position, (number, raw, torn) in enumerate(entries):
        try:
            records.append(model.model_validate_json(raw))
        except ValidationError as error:
            newer = _version_error(error)
            if newer is not None:
                raise RunStoreError(f"{path}:{number}: {newer}") from error
            if torn or position == len(entries) - 1:
                logger.warning(
                    "%s:%d: ignoring an incomplete last line (the run was interrupted mid-write)",
                    path,
                    number,
                )
                continue
            raise RunStoreError(
                f"{path}:{number} is not a valid {model.__name__} "
                f"({error.errors()[0]['msg']}); delete that line and rerun with --resume"
            ) from error
    return records


def _version_error(error: ValidationError) -> TrajectoryVersionError | None:
    """The format-version refusal inside a validation error, if that is what failed."""
    for detail in error.errors():
        cause = detail.get("ctx", {}).get("error")
        if isinstance(cause, TrajectoryVersionError):
            return cause
    return None


def read_results(run_dir: Path) -> list[RunRecord]:
    """Every finished question of a run, in the order they finished.

    A torn last line is ignored; should a question id appear twice (a file edited by hand),
    the later record wins and a warning is logged.

    Raises:
        RunStoreError: `run_dir` is not a run directory, a line other than the last is
            corrupt, or a record was written in a newer trajectory format (any line).
    """
    run_dir = Path(run_dir)
    if not (run_dir / CONFIG_FILE).is_file():
        raise RunStoreError(
            f"{run_dir} is not a run directory ({CONFIG_FILE} is missing); "
            "create one with `ark eval SNAPSHOT --qa FILE --out RUN_DIR`"
        )
    unique: dict[str, RunRecord] = {}
    for record in _read_jsonl(run_dir / RESULTS_FILE, RunRecord):
        if record.question_id in unique:
            logger.warning(
                "%s: question %s appears twice; keeping the later record",
                run_dir,
                record.question_id,
            )
            del unique[record.question_id]
        unique[record.question_id] = record
    return list(unique.values())


def read_failures(run_dir: Path) -> list[FailureRecord]:
    """Every failed attempt recorded in a run, oldest first (torn last line ignored)."""
    return _read_jsonl(Path(run_dir) / FAILURES_FILE, FailureRecord)


def read_config(run_dir: Path) -> dict[str, Any]:
    """The run's config.json.

    Raises:
        RunStoreError: missing or unreadable.
    """
    path = Path(run_dir) / CONFIG_FILE
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise RunStoreError(
            f"{run_dir} is not a run directory ({CONFIG_FILE} is missing)"
        ) from error
    except ValueError as error:
        raise RunStoreError(f"{path} is not valid JSON ({error}); delete the run dir") from error
    if not isinstance(config, dict):
        raise RunStoreError(f"{path} must hold a JSON object; delete the run dir")
    return config


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


def _truncate_torn_tail(path: Path, model: type[BaseModel]) -> None:
    """Cut a file back to its last complete, parseable line (see the module docstring)."""
    if not path.is_file():
        return
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1  # 0 when not even one line is complete
    if end:
        start = data.rfind(b"\n", 0, end - 1) + 1
        try:
            model.model_validate_json(data[start:end])
        except ValidationError:
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


def check_run_dir(run_dir: Path, *, resume: bool = False, hint: str) -> None:
    """Refuse a path that is a file, or (unless resuming) a non-empty directory.

    Commands call it before any costly work, so a bad `--out` fails at once.

    Raises:
        RunStoreError: ending with `hint` for a non-empty directory.
    """
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise RunStoreError(f"{run_dir} exists and is not a directory; choose another directory")
    if not resume and run_dir.is_dir() and any(run_dir.iterdir()):
        raise RunStoreError(f"{run_dir} is not empty; {hint}")


class RunStore:
    """Append-only writer of one run directory; use ``RunStore.open`` and close it when done."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self._fds: dict[str, int] = {}

    @classmethod
    def open(cls, run_dir: Path, config: Mapping[str, Any], *, resume: bool) -> RunStore:
        """Create a run directory, or reopen one to resume it.

        Args:
            run_dir: Where the run lives.
            config: What is being run (written to config.json; identity keys are compared
                with the stored ones on resume).
            resume: Continue an existing run instead of refusing a non-empty directory.

        Raises:
            RunStoreError: the directory is not empty and `resume` is False, or it holds a
                run of another configuration (the message lists the differing fields).
        """
        run_dir = Path(run_dir)
        check_run_dir(
            run_dir,
            resume=resume,
            hint="pass --resume to continue the run there, or choose a new --out directory",
        )
        has_content = run_dir.is_dir() and any(run_dir.iterdir())
        if has_content:
            differences = config_differences(read_config(run_dir), config)
            if differences:
                raise RunStoreError(
                    f"{run_dir} holds a run of another configuration ("
                    + "; ".join(differences)
                    + "); rerun with the same options, or choose a new --out directory"
                )
        run_dir.mkdir(parents=True, exist_ok=True)
        if not has_content:
            stored = {**config, "created_at": datetime.now(UTC).isoformat()}
            _write_durably(run_dir / CONFIG_FILE, json.dumps(stored, indent=2) + "\n")
        _truncate_torn_tail(run_dir / RESULTS_FILE, RunRecord)
        _truncate_torn_tail(run_dir / FAILURES_FILE, FailureRecord)
        return cls(run_dir)

    def finished_ids(self) -> set[str]:
        """Ids of the questions already in results.jsonl."""
        return {record.question_id for record in read_results(self.run_dir)}

    def append_result(self, record: RunRecord) -> None:
        """Append one finished question durably (single write + fsync)."""
        self._append(RESULTS_FILE, record.model_dump_json())

    def append_failure(self, record: FailureRecord) -> None:
        """Append one failed attempt durably (single write + fsync)."""
        self._append(FAILURES_FILE, record.model_dump_json())

    def _append(self, name: str, line: str) -> None:
        if name not in self._fds:
            self._fds[name] = os.open(
                self.run_dir / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644
            )
        fd = self._fds[name]
        data = (line + "\n").encode("utf-8")
        written = os.write(fd, data)
        while written < len(data):  # a regular file rarely writes short, but never drop bytes
            written += os.write(fd, data[written:])
        os.fsync(fd)

    def close(self) -> None:
        """Close the open file descriptors (idempotent)."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_durably(path: Path, text: str) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    temporary.replace(path)
