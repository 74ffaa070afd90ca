"""`ark eval answers`: answer a QA file into a resumable run directory, scored by EM and F1.

Layout (beside evals/runs/store.py's config.json and failures.jsonl)::

    RUN_DIR/config.json      {"kind": "answers", "baseline": {method, SARG settings, model},
                              "snapshot", "qa", "created_at"}
    RUN_DIR/answers.jsonl    one AnswerRecord per finished question: the answer, EM/F1, and the
                             AnswerResult with its chains, citations, prompt and timings
    RUN_DIR/failures.jsonl   one FailureRecord per failed attempt; retried on --resume

Answers live in their own file (not results.jsonl) because they are not agent rankings;
`RunStore` still owns the directory (its lock, config identity, failures) and writes both
files through evals/runs/files.py: each line is one write followed by fsync (cut back if the
write fails), and a torn or unreadable last line is cut off when the run is resumed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import traceback
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agent.models.base import EndpointUnreachableError, ModelError
from agent.models.circuit import CircuitBreaker
from answer.result import AnswerResult
from evals.answers.metrics import score_answer
from evals.runs.circuit import UNREACHABLE, stop_error
from evals.runs.files import truncate_torn_tail
from evals.runs.store import FailureRecord, RunStore, RunStoreError, parses_as, read_failures
from graphs.errors import ArkError

logger = logging.getLogger(__name__)

ANSWERS_FILE = "answers.jsonl"


class AnswerQAError(ArkError):
    """The QA file cannot be read as `{"id", "question", "answer"}` lines."""


SUPPORTING_KEYS = ("supporting", "context")
"""QA keys naming the passages / documents a question is answered from (`--retrieval gold`)."""


@dataclass(frozen=True)
class AnswerQA:
    """One question with its string answers; `extra` keeps the file's other keys.

    Attributes:
        supporting: Ids of the passages or documents the row names under `supporting` (or
            `context`, HotpotQA's distractor setting), for `--retrieval gold`.
    """

    id: str
    question: str
    answers: tuple[str, ...]
    extra: dict[str, Any] = field(default_factory=dict)
    supporting: tuple[str, ...] = ()


class AnswerRecord(BaseModel):
    """One finished question: gold, prediction, EM / F1, and the full AnswerResult."""

    question_id: str
    question: str
    gold: list[str]
    answer: str
    em: float
    f1: float
    extra: dict[str, Any] = Field(default_factory=dict)
    result: AnswerResult


def load_answer_qa(path: str | Path) -> list[AnswerQA]:
    """Read a JSONL file of `{"id", "question", "answer"}` (or `query` / `answers`) rows.

    Raises:
        AnswerQAError: unreadable file, bad JSON, or a row without id, question or answer.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise AnswerQAError(f"cannot read the QA file {path}: {error}") from error
    items = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            items.append(_qa_row(line, f"{path}:{number}"))
    return items


def _qa_row(line: str, where: str) -> AnswerQA:
    try:
        row = json.loads(line)
    except ValueError as error:
        raise AnswerQAError(f"{where}: not JSON ({error})") from error
    if not isinstance(row, dict):
        raise AnswerQAError(f"{where}: a row must be a JSON object")
    question = row.get("question", row.get("query"))
    answers = row.get("answers", row.get("answer"))
    if isinstance(answers, str):
        answers = [answers]
    if row.get("id") is None or not isinstance(question, str) or not answers:
        raise AnswerQAError(
            f'{where}: each row needs "id", "question" and "answer" (a string or a list of strings)'
        )
    supporting: Any = next((row[k] for k in SUPPORTING_KEYS if k in row), [])
    if not isinstance(supporting, list) or not all(isinstance(i, str) for i in supporting):
        raise AnswerQAError(f'{where}: "supporting" / "context" must be a list of id strings')
    known = ("id", "question", "query", "answer", *SUPPORTING_KEYS)
    extra = {k: v for k, v in row.items() if k not in known}
    answer_texts = tuple(str(a) for a in answers)
    return AnswerQA(str(row["id"]), question, answer_texts, extra, tuple(supporting))


def read_answers(run_dir: str | Path) -> list[AnswerRecord]:
    """The finished questions of an answers run, in order (a torn last line is skipped).

    Raises:
        RunStoreError: a line other than the last is corrupt.
    """
    path = Path(run_dir) / ANSWERS_FILE
    if not path.is_file():
        return []
    lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
    records: dict[str, AnswerRecord] = {}
    for index, line in enumerate(lines):
        try:
            record = AnswerRecord.model_validate_json(line)
        except ValidationError as error:
            if index == len(lines) - 1:
                logger.warning("%s: ignoring an incomplete last line", path)
                continue
            raise RunStoreError(
                f"{path}: line {index + 1} is not an AnswerRecord; delete it and --resume"
            ) from error
        records[record.question_id] = record
    return list(records.values())


AnswerFn = Callable[[str, Sequence[str]], Awaitable[AnswerResult]]
"""Answers one question given the ids its QA row names as supporting (an `Answerer.answer`)."""


async def run_answers(
    answer: AnswerFn,
    items: Sequence[AnswerQA],
    run_dir: Path,
    config: dict[str, Any],
    *,
    resume: bool = False,
    on_record: Callable[[AnswerRecord | FailureRecord], None] | None = None,
    concurrency: int = 1,
) -> list[AnswerRecord]:
    """Answer every unfinished question into `run_dir`; return all finished records.

    Model errors and user-facing errors of one question are recorded in failures.jsonl and
    the run goes on; anything else is a bug and propagates (what is on disk stays valid).
    Up to `concurrency` questions are answered at once (Ray workers: one each); each record
    is written as its question finishes.

    Raises:
        RunStoreError: the directory holds another run, or is not empty without `resume`.
    """
    store = RunStore.open(run_dir, {"kind": "answers", **config}, resume=resume)
    breaker = CircuitBreaker()  # the one breaker (agent/models/circuit.py), as in `ark eval`
    try:
        truncate_torn_tail(run_dir / ANSWERS_FILE, parses_as(AnswerRecord))
        done = {record.question_id for record in read_answers(run_dir)}
        pending = [item for item in items if item.id not in done]
        queue = iter(pending)
        finished = 0

        async def worker() -> None:  # no question starts once the breaker has tripped
            nonlocal finished
            for item in queue:
                if breaker.tripped:
                    return  # the item stays pending: --resume asks it
                record = await _attempt(answer, item)
                _keep(record, run_dir, store, on_record, breaker)
                finished += 1

        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
        if breaker.tripped:
            raise stop_error(breaker, run_dir, remaining=len(pending) - finished)
    finally:
        store.close()
    return read_answers(run_dir)


def _keep(
    record: AnswerRecord | FailureRecord,
    run_dir: Path,
    store: RunStore,
    on_record: Callable[[AnswerRecord | FailureRecord], None] | None,
    breaker: CircuitBreaker,
) -> None:
    """Write one finished question, report it and feed the breaker."""
    if isinstance(record, AnswerRecord):
        store.append_line(ANSWERS_FILE, record.model_dump_json())
    else:
        store.append_failure(record)
    if on_record is not None:
        on_record(record)
    failed = isinstance(record, FailureRecord) and record.error_type == UNREACHABLE
    breaker.record(failed, record.error if isinstance(record, FailureRecord) else "")


async def _attempt(answer: AnswerFn, item: AnswerQA) -> AnswerRecord | FailureRecord:
    try:
        result = await answer(item.question, item.supporting)
    except (ModelError, ArkError) as error:
        unreachable = isinstance(error, EndpointUnreachableError)  # a timeout is one too
        return FailureRecord(
            question_id=item.id,
            query=item.question,
            error_type=UNREACHABLE if unreachable else type(error).__name__,
            error=str(error),
            traceback=traceback.format_exc(),
        )
    score = score_answer(result.answer, item.answers)
    return AnswerRecord(
        question_id=item.id,
        question=item.question,
        gold=list(item.answers),
        answer=result.answer,
        em=score.em,
        f1=score.f1,
        extra=item.extra,
        result=result,
    )


def unresolved_failures(run_dir: Path, records: Iterable[AnswerRecord]) -> list[str]:
    """Ids of the questions whose last attempt failed (in failures.jsonl, not answered)."""
    answered = {record.question_id for record in records}
    failed = [f.question_id for f in read_failures(run_dir) if f.question_id not in answered]
    return list(dict.fromkeys(failed))


def summarise(records: Iterable[AnswerRecord], failed: Sequence[str] = ()) -> dict[str, Any]:
    """Mean EM and F1 over every question tried, a failed one scoring 0, and the counts.

    Returns:
        n (questions tried), answered, failed (their ids), em, f1, no_chain (SARG questions
        answered from the flat passages because no chain was found), and the mean
        construction / generation seconds of the answered questions.
    """
    rows = list(records)
    n = len(rows) + len(failed)
    answered = max(len(rows), 1)
    return {
        "n": n,
        "answered": len(rows),
        "failed": list(failed),
        "em": sum(r.em for r in rows) / n if n else 0.0,
        "f1": sum(r.f1 for r in rows) / n if n else 0.0,
        "no_chain": sum(r.result.fallback == "no-chain" for r in rows),
        "construct_s": sum(r.result.timings.get("construct_s", 0.0) for r in rows) / answered,
        "generate_s": sum(r.result.timings.get("generate_s", 0.0) for r in rows) / answered,
    }
