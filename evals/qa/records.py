"""Question records (QAItem), the errors of question loading, and the checks of one row."""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphs.errors import ArkError

logger = logging.getLogger(__name__)


class QAError(ArkError, ValueError):
    """A question set cannot be loaded; the message names the file, row and problem."""

    def __init__(
        self, problem: str, *, file: str | Path | None = None, row: int | None = None
    ) -> None:
        where = ", ".join(
            part for part in (file is not None and f"file {file}", row is not None and f"row {row}")
            if part
        )  # fmt: skip
        super().__init__(f"{where}: {problem}" if where else problem)
        self.file = None if file is None else str(file)
        self.row = row
        self.problem = problem


class QAFormatError(QAError):
    """A question file is missing, unreadable, or has a bad row (row = line number, from 1)."""


class QASplitError(QAError):
    """The requested split does not exist or its index file is bad."""


class QuestionError(QAError):
    """A question that cannot be asked: empty, not UTF-8, or over MAX_QUESTION_CHARS."""


MAX_QUESTION_CHARS = 4_000
"""The longest question (in characters) `ark ask`, the REPL and question files accept.

STaRK's and HotpotQA's questions are far shorter (hundreds of characters); every agent
carries the question in each turn, so a huge one only multiplies time, tokens and disk.
"""


def check_question(text: str) -> str:
    """The question without surrounding whitespace, once it is fit to be asked.

    Raises:
        QuestionError: it is empty, holds characters that are not valid UTF-8 (bytes a
            command line could not decode, or lone surrogates in JSON), or is longer than
            MAX_QUESTION_CHARS.
    """
    question = text.strip()
    if not question:
        raise QuestionError("the question is empty")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as error:
        raise QuestionError(
            f"the question holds bytes that are not UTF-8 text (at character {error.start + 1}); "
            "re-encode it as UTF-8"
        ) from None
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionError(
            f"the question is {len(question):,} characters long, over the limit of "
            f"{MAX_QUESTION_CHARS:,}; shorten it to the question itself"
        )
    return question


class QAItem(BaseModel):
    """One question with its gold answers (external node ids)."""

    model_config = ConfigDict(frozen=True)

    id: str
    query: str
    answer_ids: list[str]
    family: str | None = None


def read_text(path: Path, error: type[QAError]) -> str:
    """The file as text (UTF-8, BOM dropped); unreadable or non-UTF-8 bytes raise `error`."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (bad byte at offset {exc.start})", file=path) from exc
    except OSError as exc:
        raise error(f"cannot read ({exc.strerror})", file=path) from exc


def read_lines(path: Path, *, error: type[QAError] = QAFormatError) -> Iterator[tuple[int, str]]:
    """(line number from 1, line) pairs of a text file."""
    yield from enumerate(read_text(path, error).splitlines(), start=1)


def parse_list_literal(text: str | None, path: Path, row: int) -> Any:
    """Parse STaRK's `answer_ids` cell with `ast.literal_eval` (never `eval`)."""
    try:
        return ast.literal_eval((text or "").strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError) as error:
        raise QAFormatError(
            f"answer_ids {text!r} is not a list literal such as [12, 40]", file=path, row=row
        ) from error


def answer_list(value: Any, path: Path, row: int) -> list[str]:
    """Gold ids as strings: a non-empty list of ints or strings; a repeat is logged, kept once."""
    if not isinstance(value, list | tuple):
        raise QAFormatError(
            f"answer_ids must be a list of node ids, got {type(value).__name__}", file=path, row=row
        )
    if not value:
        raise QAFormatError("answer_ids is empty; every question needs a gold answer", file=path,
                            row=row)  # fmt: skip
    answers: list[str] = []
    for answer in value:
        if isinstance(answer, bool) or not isinstance(answer, int | str) or not str(answer).strip():
            raise QAFormatError(f"answer id {answer!r} is not an int or a non-empty string",
                                file=path, row=row)  # fmt: skip
        if str(answer).strip() in answers:
            logger.warning("%s, row %d: gold id %r repeats; counted once", path, row, answer)
        else:
            answers.append(str(answer).strip())
    return answers


def make_item(
    raw_id: Any, query: Any, answers: list[str], family: str | None, path: Path, row: int
) -> QAItem:
    """A QAItem from one row, after checking its id and query."""
    if isinstance(raw_id, bool) or not isinstance(raw_id, int | str) or not str(raw_id).strip():
        raise QAFormatError(
            f"id {raw_id!r} is not an int or a non-empty string", file=path, row=row
        )
    if not isinstance(query, str) or not query.strip():
        raise QAFormatError("query is empty", file=path, row=row)
    try:
        question = check_question(query)
    except QuestionError as error:
        raise QAFormatError(str(error).replace("the question", "query", 1), file=path,
                            row=row) from None  # fmt: skip
    return QAItem(id=str(raw_id).strip(), query=question, answer_ids=answers, family=family)


def unique_items(items: list[tuple[int, QAItem]], path: Path) -> list[QAItem]:
    """The items of (row, item) pairs, refusing a repeated question id."""
    seen: dict[str, int] = {}
    for row, item in items:
        if item.id in seen:
            raise QAFormatError(
                f"duplicate question id {item.id!r} (first on row {seen[item.id]})",
                file=path,
                row=row,
            )
        seen[item.id] = row
    return [item for _, item in items]
