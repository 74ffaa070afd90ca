"""Answers given outside `ark eval` (`ark ask --save`, the REPL's `:save`) kept in a run directory.

They are appended through the same writer as `ark eval` (RunStore: one write + fsync per
line) in the same record format, so `ark eval report` and `ark distill dataset` read them like
any run. Such questions have no gold answers: their records hold `gold=[]` and no metrics, and
reports count them apart from the scored questions. A run directory holds one configuration
(agent config and snapshot); saving an answer of another configuration there is refused.
Saves from several processes (two `ark ask --save` loops) take turns on the directory's
writer lock, each waiting up to SAVE_WAIT_S for the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.trajectory import QuestionResult
from evals.runs.store import (
    CONFIG_FILE,
    FailureRecord,
    RunRecord,
    RunStore,
    RunStoreError,
    config_differences,
    read_config,
)

SAVE_WAIT_S = 30.0
"""How long a save waits for another writer of the same directory before it is refused."""


def answer_run_config(agent: Mapping[str, Any], snapshot: Path) -> dict[str, Any]:
    """config.json of a run directory of saved answers (no question set, no split)."""
    return {
        "agent": dict(agent),
        "snapshot": str(Path(snapshot).resolve()),
        "qa": None,
        "split": None,
        "source": "saved answers (ark ask --save, :save)",
    }


def check_answer_dir(run_dir: Path, config: Mapping[str, Any]) -> None:
    """Refuse, before any question is asked, a directory `save_answer` could not append to.

    Raises:
        RunStoreError: `run_dir` is a file, or holds a run of another configuration.
    """
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise RunStoreError(
            f"{run_dir} exists and is a file, not a directory; choose another directory"
        )
    if (run_dir / CONFIG_FILE).is_file():
        differences = config_differences(read_config(run_dir), config)
        if differences:
            raise RunStoreError(
                f"{run_dir} holds answers of another configuration ({'; '.join(differences)}); "
                "save with the same settings, or to another directory"
            )


def save_answer(run_dir: Path, result: QuestionResult, config: Mapping[str, Any]) -> str:
    """Append one answered question to `run_dir` (created when missing), durably.

    Args:
        run_dir: The run directory.
        result: The question's result; it must carry its question id.
        config: The run's config (:func:`answer_run_config`); must match the stored one.

    Returns:
        "result" when the answer was recorded, "failure" when every agent had failed (it goes
        to failures.jsonl, as in `ark eval`).

    Raises:
        RunStoreError: `run_dir` holds a run of another configuration, or this question id is
            already recorded there.
    """
    question_id = result.question_id
    if not question_id:
        raise ValueError("save_answer needs a result with a question_id (see new_question_id)")
    check_answer_dir(run_dir, config)
    with RunStore.open(run_dir, config, resume=True, wait_s=SAVE_WAIT_S) as store:
        if question_id in store.finished_ids():
            raise RunStoreError(f"question {question_id} is already saved in {run_dir}")
        if result.failed:
            failure = FailureRecord(
                question_id=question_id,
                query=result.question,
                error_type="ModelError",
                error="; ".join(result.errors) or "every agent failed",
            )
            store.append_failure(failure)
            return "failure"
        record = RunRecord(
            question_id=question_id, query=result.question, gold=[], result=result, metrics={}
        )
        store.append_result(record)
    return "result"


def save_cancelled(
    run_dir: Path, question_id: str, question: str, config: Mapping[str, Any], reason: str
) -> None:
    """Record a question whose run was stopped before it finished (a failure, `Cancelled`).

    `ark eval report` lists it among the failed questions, with `reason`.

    Raises:
        RunStoreError: `run_dir` holds a run of another configuration.
    """
    check_answer_dir(run_dir, config)
    with RunStore.open(run_dir, config, resume=True, wait_s=SAVE_WAIT_S) as store:
        store.append_failure(
            FailureRecord(
                question_id=question_id, query=question, error_type="Cancelled", error=reason
            )
        )
