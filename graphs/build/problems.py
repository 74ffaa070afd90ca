"""Invalid input rows found at import: grouping, the error that lists them, and the skip report."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.errors import GraphImportError

SHOWN_PROBLEMS = 5
SKIP_HINT = (
    "fix these rows, or pass --skip-invalid (Python: BuildOptions(skip_invalid=True)) to skip "
    "them with a report"
)


@dataclass(frozen=True)
class RowProblems:
    """Rows of one input file that share one problem.

    Attributes:
        file: The input file (or table label) the rows come from.
        problem: What is wrong with every one of these rows.
        rows: 1-based row numbers (row 1 is the first record after any header).
        values: The offending value of each row (the id, endpoint or relation), same length.
        hint: How to fix these rows, added once to the error that lists them ("" = none).
    """

    file: str
    problem: str
    rows: np.ndarray
    values: pa.Array
    hint: str = ""

    def __len__(self) -> int:
        return len(self.rows)


def count_problems(problems: Sequence[RowProblems]) -> int:
    """Total number of problem rows."""
    return sum(len(group) for group in problems)


def first_problems(
    problems: Sequence[RowProblems], limit: int = SHOWN_PROBLEMS
) -> list[tuple[str, int, str]]:
    """The `limit` earliest (file, row, "problem: value") triples, in file then row order."""
    shown: list[tuple[int, int, str, str]] = []
    file_order = {group.file: position for position, group in reversed(list(enumerate(problems)))}
    for group in problems:
        order = np.argsort(group.rows, kind="stable")[:limit]
        for position in order:
            value = group.values[int(position)].as_py()
            text = f"{group.problem}: {value!r}" if value not in (None, "") else group.problem
            shown.append((file_order[group.file], int(group.rows[position]), group.file, text))
    shown.sort(key=lambda item: (item[0], item[1]))
    return [(file, row, text) for _, row, file, text in shown[:limit]]


def raise_for_problems(problems: Sequence[RowProblems]) -> None:
    """Raise a GraphImportError naming the first problem rows, if there are any.

    Raises:
        GraphImportError: at least one row is invalid; `.file` and `.row` are the first one's.
    """
    total = count_problems(problems)
    if total == 0:
        return
    shown = first_problems(problems)
    first_file, first_row, first_text = shown[0]
    lines = [first_text]
    lines += [f"  file {file}, row {row}: {text}" for file, row, text in shown[1:]]
    if total > len(shown):
        lines.append(f"  ... and {total - len(shown)} more invalid rows")
    hints = dict.fromkeys(group.hint for group in problems if group.hint)
    lines += [f"  {hint}" for hint in hints]
    lines.append(f"  {total} invalid rows in all; {SKIP_HINT}")
    raise GraphImportError("\n".join(lines), file=first_file, row=first_row)


def write_report(problems: Sequence[RowProblems], path: Path) -> int:
    """Write every problem row to `path` (JSON lines if it ends in .jsonl, else CSV).

    Columns: file, row, problem, value. Returns the number of rows written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    records = (
        (group.file, int(row), group.problem, value)
        for group in problems
        for row, value in zip(group.rows.tolist(), group.values.to_pylist(), strict=True)
    )
    written = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        if path.suffix == ".jsonl":
            for file, row, problem, value in records:
                line = {"file": file, "row": row, "problem": problem, "value": value}
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
                written += 1
        else:
            writer = csv.writer(handle)
            writer.writerow(["file", "row", "problem", "value"])
            for record in records:
                writer.writerow(record)
                written += 1
    return written
