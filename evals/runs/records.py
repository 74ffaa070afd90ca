"""The records of a run directory and their readers (a torn last line is ignored).

See evals/runs/store.py for the layout and the writer.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from agent.trajectory import QuestionResult, TrajectoryVersionError
from evals.runs.errors import RunStoreError

logger = logging.getLogger(__name__)

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"
FAILURES_FILE = "failures.jsonl"

RecordT = TypeVar("RecordT", bound=BaseModel)


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
