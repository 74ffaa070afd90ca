"""Question sets: load JSONL and STaRK CSV (+ split index) questions, check them against a graph.

STaRK's QA format (snap-stanford/stark, `stark_qa/retrieval/dataset.py`): a CSV with columns
`id`, `query` and `answer_ids` (a Python list literal of node indices), laid out as
`qa/<dataset>/stark_qa/stark_qa.csv` beside `qa/<dataset>/split/{train,val,test}.index`, each
index file holding query ids one per line. STaRK `eval`s the list literal; here it is parsed
with `ast.literal_eval`, which runs no code. ARK's own format is JSON lines with `id`,
`query`, `answer_ids` and an optional `family`; the synthetic generator writes
`SNAPSHOT/qa/{train,val,test}.jsonl`. Split "all" takes every question of a file or
directory; `ark eval` uses it by default for a STaRK CSV with no split index files (with a
one-line notice), since such a file is the question set the user means to run.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evals.qa.records import (
    QAError,
    QAFormatError,
    QAItem,
    QASplitError,
    answer_list,
    make_item,
    parse_list_literal,
    read_lines,
    read_text,
    unique_items,
)
from evals.qa.splits import (
    ALL_SPLITS,
    STARK_CSV,
    has_split_index,
    read_split_index,
    split_index_beside,
    stark_csv_candidates,
)

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

STARK_HUMAN_CSV = "stark_qa_human_generated_eval.csv"
HUMAN_SPLIT = "human_generated_eval"
REQUIRED_COLUMNS = ("id", "query", "answer_ids")

__all__ = [
    "ALL_SPLITS",
    "QAError",
    "QAFormatError",
    "QAItem",
    "QASplitError",
    "QAValidation",
    "has_split_index",
    "load_jsonl",
    "load_qa",
    "load_stark_csv",
    "read_split_index",
    "validate_against",
]
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def load_qa(path: str | Path, split: str | None = None) -> list[QAItem]:
    """Load questions from a JSONL file, a STaRK CSV, or a directory of either.

    Args:
        path: a `.jsonl` file; a STaRK `.csv` (with `split`, the index file
            `split/<split>.index` beside it or beside its folder); a directory holding
            `<split>.jsonl` files (or `qa/<split>.jsonl`, i.e. a synthetic snapshot); or a
            STaRK QA directory holding `stark_qa/stark_qa.csv` and `split/`.
        split: which split to load; "all" loads every question of the file or directory
            (all its splits); None loads the whole CSV, or a directory's only JSONL.

    Returns:
        The questions, in split-file order when a split index is used, else file order.

    Raises:
        QAFormatError: the file is missing or malformed.
        QASplitError: the split is unknown (the message lists the available ones).
    """
    path = Path(path)
    if path.is_dir():
        return _load_directory(path, split)
    if not path.is_file():
        raise QAFormatError("question file does not exist", file=path)
    if path.suffix.lower() in JSONL_SUFFIXES:
        if split not in (None, ALL_SPLITS, path.stem):
            raise QASplitError(
                f"split {split!r} asked of a single JSONL file; pass the directory holding "
                f"{split}.jsonl, or leave out the split",
                file=path,
            )
        return load_jsonl(path)
    if path.suffix.lower() == ".csv":
        index = None if split in (None, ALL_SPLITS) else split_index_beside(path, split)
        return load_stark_csv(path, index)
    raise QAFormatError(
        f"unknown question file type {path.suffix!r}; expected .jsonl or a STaRK .csv", file=path
    )


def load_jsonl(path: str | Path) -> list[QAItem]:
    """Load JSON lines with `id`, `query`, `answer_ids` (a list) and an optional `family`.

    Raises:
        QAFormatError: a line is not a JSON object, or has a bad field or a duplicate id.
    """
    path = Path(path)
    items: list[tuple[int, QAItem]] = []
    for row, line in read_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise QAFormatError(f"not valid JSON ({error.msg})", file=path, row=row) from error
        if not isinstance(record, dict):
            raise QAFormatError("each line must be a JSON object", file=path, row=row)
        missing = [key for key in REQUIRED_COLUMNS if key not in record]
        if missing:
            raise QAFormatError(f"missing field(s) {', '.join(missing)}", file=path, row=row)
        family = record.get("family")
        if family is not None and not isinstance(family, str):
            raise QAFormatError("family must be a string or null", file=path, row=row)
        answers = answer_list(record["answer_ids"], path, row)
        items.append((row, make_item(record["id"], record["query"], answers, family, path, row)))
    if not items:
        raise QAFormatError("the file holds no questions", file=path)
    return unique_items(items, path)


def load_stark_csv(path: str | Path, split_index: str | Path | None = None) -> list[QAItem]:
    """Load a STaRK QA CSV, optionally keeping only the ids of a split index file.

    Raises:
        QAFormatError: columns are missing, or a row has a bad id, query or answer_ids.
        QASplitError: the split index is unreadable or names ids the CSV lacks.
    """
    path = Path(path)
    items = unique_items(list(_csv_items(path)), path)
    if not items:
        raise QAFormatError("the file holds a header but no questions", file=path)
    if split_index is None:
        return items
    by_id = {item.id: item for item in items}
    selected: list[QAItem] = []
    for row, query_id in read_split_index(split_index):
        if query_id not in by_id:
            raise QASplitError(
                f"query id {query_id!r} is not in {path.name}", file=split_index, row=row
            )
        selected.append(by_id[query_id])
    return selected


@dataclass(frozen=True)
class QAValidation:
    """Gold answers of a question set checked against a snapshot.

    Attributes:
        num_questions: questions checked.
        num_gold: gold answer ids checked.
        unknown: (question id, gold id) pairs whose gold id is no node of the snapshot.
        non_candidate: (question id, gold id) pairs whose node is not of a candidate type.
    """

    num_questions: int
    num_gold: int
    unknown: tuple[tuple[str, str], ...]
    non_candidate: tuple[tuple[str, str], ...]

    @property
    def ok(self) -> bool:
        """Every gold id names a node of the snapshot."""
        return not self.unknown

    def summary(self, limit: int = 5) -> str:
        """One line per finding, the first `limit` examples of each."""
        lines = [f"{self.num_questions} questions, {self.num_gold} gold ids"]
        for label, pairs in (("unknown to the snapshot", self.unknown),
                             ("not of a candidate type", self.non_candidate)):  # fmt: skip
            if pairs:
                shown = ", ".join(f"{qid}:{gold}" for qid, gold in pairs[:limit])
                lines.append(f"{len(pairs)} gold ids {label} (question:gold {shown})")
        return "\n".join(lines)


def validate_against(snapshot: Snapshot, items: Sequence[QAItem]) -> QAValidation:
    """Report gold ids the snapshot does not hold, and gold nodes of non-candidate types.

    Args:
        snapshot: the open snapshot the questions are asked of.
        items: the questions.

    Returns:
        The findings; nothing is raised, the caller decides what to do with them.
    """
    pairs = [(item.id, gold) for item in items for gold in item.answer_ids]
    nodes = snapshot.find_internal_ids([gold for _, gold in pairs])
    candidates = set(snapshot.manifest.candidate_types)
    unknown, non_candidate = [], []
    for pair, node in zip(pairs, nodes.tolist(), strict=True):
        if node < 0:
            unknown.append(pair)
        elif candidates and snapshot.type_name(node) not in candidates:
            non_candidate.append(pair)
    return QAValidation(len(items), len(pairs), tuple(unknown), tuple(non_candidate))


def _csv_items(path: Path) -> Iterator[tuple[int, QAItem]]:
    if not path.is_file():
        raise QAFormatError("question file does not exist", file=path)
    reader = csv.DictReader(io.StringIO(read_text(path, QAFormatError), newline=""), strict=True)
    header = reader.fieldnames or []
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise QAFormatError(
            f"missing column(s) {', '.join(missing)}; a STaRK QA CSV has columns "
            f"{', '.join(REQUIRED_COLUMNS)} (found: {', '.join(header) or 'none'})",
            file=path,
            row=1,
        )
    try:
        for record in reader:
            row = reader.line_num
            answers = answer_list(parse_list_literal(record["answer_ids"], path, row), path, row)
            family = record.get("family") or None
            yield row, make_item(record["id"], record["query"], answers, family, path, row)
    except csv.Error as error:
        raise QAFormatError(f"malformed CSV ({error})", file=path, row=reader.line_num) from error


def _load_directory(directory: Path, split: str | None) -> list[QAItem]:
    for folder in (directory, directory / "qa"):
        files = sorted(p for p in folder.glob("*") if p.suffix.lower() in JSONL_SUFFIXES)
        if files:
            return _load_jsonl_split(folder, files, split)
    for csv_path in stark_csv_candidates(directory):
        if csv_path.is_file():
            if split == HUMAN_SPLIT and (csv_path.parent / STARK_HUMAN_CSV).is_file():
                return load_stark_csv(csv_path.parent / STARK_HUMAN_CSV)
            return load_qa(csv_path, split)
    raise QAFormatError(
        f"no questions found: expected <split>.jsonl files, qa/<split>.jsonl, or STaRK's "
        f"stark_qa/{STARK_CSV} with split/<split>.index",
        file=directory,
    )


def _load_jsonl_split(folder: Path, files: list[Path], split: str | None) -> list[QAItem]:
    available = [path.stem for path in files]
    if split is None and len(files) == 1:
        return load_jsonl(files[0])
    if split == ALL_SPLITS:
        return _all_jsonl_splits(folder, files)
    chosen = [path for path in files if path.stem == split]
    if not chosen:
        asked = "no split given" if split is None else f"no split {split!r}"
        raise QASplitError(
            f"{asked}; available splits: {', '.join(available)} (or {ALL_SPLITS!r}: every file)",
            file=folder,
        )
    return load_jsonl(chosen[0])


def _all_jsonl_splits(folder: Path, files: list[Path]) -> list[QAItem]:
    """Every question of every split file, refusing an id found in two files."""
    source: dict[str, Path] = {}
    items: list[QAItem] = []
    for path in files:
        for item in load_jsonl(path):
            if item.id in source:
                raise QAFormatError(
                    f"question id {item.id!r} is in both {source[item.id].name} and "
                    f"{path.name}; split {ALL_SPLITS!r} needs ids unique across files",
                    file=folder,
                )
            source[item.id] = path
            items.append(item)
    return items
