"""Choosing a split: STaRK split index files (where they lie, reading them), "all", the default."""

from __future__ import annotations

from pathlib import Path

from evals.qa.records import QASplitError, read_lines

STARK_CSV = "stark_qa.csv"
ALL_SPLITS = "all"


def read_split_index(path: str | Path) -> list[tuple[int, str]]:
    """(line number, query id) of a STaRK split index file: one id per line, blanks ignored.

    Raises:
        QASplitError: the file is missing, empty, or repeats an id.
    """
    path = Path(path)
    if not path.is_file():
        raise QASplitError("split index file does not exist", file=path)
    entries: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for row, line in read_lines(path, error=QASplitError):
        query_id = line.strip()
        if not query_id:
            continue
        if query_id in seen:
            raise QASplitError(
                f"query id {query_id!r} repeats line {seen[query_id]}", file=path, row=row
            )
        seen[query_id] = row
        entries.append((row, query_id))
    if not entries:
        raise QASplitError("split index file holds no query ids", file=path)
    return entries


def has_split_index(path: str | Path) -> bool:
    """Whether a STaRK CSV (or a STaRK QA directory) has any `split/<name>.index` file.

    Args:
        path: a STaRK `.csv` file, or a directory holding `stark_qa/stark_qa.csv` or
            `stark_qa.csv`; anything else (e.g. JSONL) answers False.
    """
    path = Path(path)
    if path.is_dir():
        csv_path = next((p for p in stark_csv_candidates(path) if p.is_file()), None)
        return csv_path is not None and has_split_index(csv_path)
    if path.suffix.lower() != ".csv":
        return False
    return any(next(d.glob("*.index"), None) is not None for d in split_dirs(path) if d.is_dir())


def split_dirs(csv_path: Path) -> list[Path]:
    """Where split index files may lie: beside the CSV or beside its folder, each once."""
    dirs: dict[Path, Path] = {}
    for directory in (csv_path.parent / "split", csv_path.parent.parent / "split"):
        dirs.setdefault(directory.resolve(), directory)
    return list(dirs.values())


def stark_csv_candidates(directory: Path) -> tuple[Path, Path]:
    """Where a STaRK QA directory keeps its CSV: `stark_qa/stark_qa.csv` or `stark_qa.csv`."""
    return directory / "stark_qa" / STARK_CSV, directory / STARK_CSV


def split_index_beside(csv_path: Path, split: str) -> Path:
    """The `split/<split>.index` file beside a STaRK CSV or beside its folder.

    Raises:
        QASplitError: no such file; the message lists each place looked in once, the
            splits that exist, and split "all".
    """
    places = split_dirs(csv_path)
    for directory in places:
        if (directory / f"{split}.index").is_file():
            return directory / f"{split}.index"
    available = sorted({p.stem for d in places if d.is_dir() for p in d.glob("*.index")})
    raise QASplitError(
        f"no split {split!r}: looked for {split}.index in "
        f"{' and '.join(str(d) for d in places)}; available splits: "
        f"{', '.join(available) or 'none'}; split {ALL_SPLITS!r} (--split {ALL_SPLITS}) "
        "takes every question of the file",
        file=csv_path,
    )


def resolve_split(qa: Path, split: str | None) -> str | None:
    """The split to load when none is given.

    Returns:
        `split` if given; else None (the whole file) for a JSONL file, "all" for a STaRK CSV
        (file or directory) without any split index file, and "test" otherwise.
    """
    if split is not None:
        return split
    qa = Path(qa)
    if qa.is_file() and qa.suffix.lower() == ".jsonl":
        return None
    csv_path = (
        qa if qa.is_file() else next((p for p in stark_csv_candidates(qa) if p.is_file()), None)
    )
    if csv_path is not None and csv_path.suffix.lower() == ".csv" and not has_split_index(csv_path):
        return ALL_SPLITS
    return "test"


def split_notes(qa: Path, split: str | None, count: int) -> tuple[str, ...]:
    """The notice that a run takes a whole STaRK CSV because none was asked for (else none).

    Args:
        qa: The question file or directory.
        split: The split asked for (None: none given).
        count: Questions in the file.
    """
    if split is None and resolve_split(qa, split) == ALL_SPLITS:
        return (
            f"{qa} has no split index files (split/<name>.index): evaluating all {count} "
            "questions of the file; pass --split NAME to choose a split",
        )
    return ()
