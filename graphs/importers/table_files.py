"""Read a CSV/TSV, Parquet or JSON-lines file into an Arrow table, reporting bad bytes by row."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.json as pjson
import pyarrow.parquet as pq

from graphs.errors import GraphImportError

DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
PARQUET = (".parquet", ".pq")
JSONL = (".jsonl", ".ndjson", ".json")
SUPPORTED = ", ".join([*DELIMITERS, *PARQUET, *JSONL])


def read_table(
    path: Path, *, delimiter: str | None = None, string_columns: Sequence[str] = ()
) -> pa.Table:
    """Read `path` by its extension (or as delimited text when `delimiter` is given).

    Row numbers in errors are 1-based record numbers: row 1 is the first record after a
    CSV header, or the first line of a JSON-lines file.

    Args:
        path: The file.
        delimiter: Field delimiter; forces CSV parsing whatever the extension.
        string_columns: CSV columns to read as text verbatim (ids like "007" stay strings).

    Raises:
        GraphImportError: the file is missing, of an unknown format, unparsable, or holds
            bytes that are not UTF-8 (naming the row and column).
    """
    path = Path(path)
    if not path.is_file():
        raise GraphImportError("file not found", file=str(path))
    suffix = path.suffix.lower()
    if delimiter is not None or suffix in DELIMITERS:
        table = _read_csv(path, delimiter or DELIMITERS[suffix], string_columns)
    elif suffix in PARQUET:
        table = _read_parquet(path)
    elif suffix in JSONL:
        table = _read_jsonl(path)
    else:
        raise GraphImportError(
            f"unknown file format {suffix or '(no extension)'!r}; use one of {SUPPORTED}, "
            "or pass --delimiter to read it as delimited text",
            file=str(path),
        )
    check_utf8(table, str(path))
    return table


def _read_csv(path: Path, delimiter: str, string_columns: Sequence[str]) -> pa.Table:
    convert = csv_conversion(string_columns)
    parse = pcsv.ParseOptions(delimiter=delimiter)
    try:
        return pcsv.read_csv(path, parse_options=parse, convert_options=convert)
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        raise unreadable_file(path, error, delimiter, string_columns) from error


def csv_conversion(string_columns: Sequence[str]) -> pcsv.ConvertOptions:
    """How delimited text is converted: `string_columns` verbatim, UTF-8 checked by ARK."""
    return pcsv.ConvertOptions(
        column_types={column: pa.string() for column in string_columns}, check_utf8=False
    )


def unreadable_file(
    path: Path,
    error: Exception,
    delimiter: str | None = None,
    string_columns: Sequence[str] = (),
) -> GraphImportError:
    """The error for a file pyarrow could not parse, naming its first bad row.

    The file is read again in a stream to find that row (pyarrow's own row numbers are per
    block), so memory stays that of one block whatever the file's size.
    """
    if delimiter is None:
        row, problem = _first_bad_json_line(path)
        return GraphImportError(
            problem or f"cannot read JSON lines ({error})", file=str(path), row=row
        )
    failures: list[int] = []

    def remember(row: pcsv.InvalidRow) -> str:
        failures.append(row.number or 0)
        return "error"

    single = pcsv.ParseOptions(delimiter=delimiter, invalid_row_handler=remember)
    reading = pcsv.ReadOptions(use_threads=False, block_size=16 << 20)
    with contextlib.suppress(pa.ArrowInvalid, UnicodeDecodeError):
        stream = pcsv.open_csv(
            path,
            read_options=reading,
            parse_options=single,
            convert_options=csv_conversion(string_columns),
        )
        for _ in stream:  # each block is dropped as soon as it is parsed
            if failures:
                break
    row = failures[0] - 1 if failures and failures[0] > 1 else None
    return GraphImportError(f"cannot parse delimited text ({error})", file=str(path), row=row)


def _read_parquet(path: Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise GraphImportError(f"cannot read Parquet ({error})", file=str(path)) from error


def _read_jsonl(path: Path) -> pa.Table:
    try:
        return pjson.read_json(path)
    except pa.ArrowInvalid as error:
        raise unreadable_file(path, error) from error


def _first_bad_json_line(path: Path) -> tuple[int | None, str | None]:
    """Find the first undecodable line; pyarrow's own row numbers are per block."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                return number, f"bytes that are not UTF-8 at byte {error.start} of the line"
            if not line.strip():
                continue
            try:
                if not isinstance(json.loads(line), dict):
                    return number, "a JSON line must be an object ({...})"
            except ValueError as error:
                return number, f"invalid JSON ({error})"
    return None, None


NOT_UTF8 = "bytes that are not UTF-8"


def read_table_skipping_bad_bytes(
    path: Path, *, delimiter: str | None = None, string_columns: Sequence[str] = ()
) -> tuple[pa.Table, np.ndarray]:
    """`read_table`, but a row holding bytes that are not UTF-8 is blanked, not an error.

    Returns:
        The table, every value of a bad row's string columns replaced by "" (so row numbers
        stay those of the file), and a boolean mask of those rows, for validation to report
        and skip as "bytes that are not UTF-8" (``--skip-invalid``).
    """
    try:
        return read_table(path, delimiter=delimiter, string_columns=string_columns), np.zeros(
            0, dtype=bool
        )
    except GraphImportError as error:
        if NOT_UTF8 not in error.problem:
            raise
    suffix = Path(path).suffix.lower()
    if delimiter is not None or suffix in DELIMITERS:
        table = _read_csv(Path(path), delimiter or DELIMITERS[suffix], string_columns)
    else:
        raise GraphImportError(
            f"{NOT_UTF8} in a {suffix} file; re-encode it as UTF-8", file=str(path)
        )
    return blank_undecodable(table)


def blank_undecodable(table: pa.Table) -> tuple[pa.Table, np.ndarray]:
    """`table` with every string of a row holding bytes that are not UTF-8 blanked, and the mask.

    Row numbers stay those of the input; validation reports and skips the masked rows.
    """
    bad = np.zeros(table.num_rows, dtype=bool)
    for name in table.column_names:
        column = table.column(name)
        if column.type in (pa.string(), pa.large_string()) and not all(
            _valid(chunk) for chunk in column.chunks
        ):
            bad |= _undecodable(column)
    if not bad.any():
        return table, bad
    blank = pa.array(bad)
    for index, name in enumerate(table.column_names):
        column = table.column(name)
        if column.type in (pa.string(), pa.large_string()):
            values = column.cast(pa.binary())
            cleaned = pc.if_else(blank, pa.scalar(b"", pa.binary()), values).cast(column.type)
            table = table.set_column(index, name, cleaned)
    return table, bad


def _undecodable(column: pa.ChunkedArray) -> np.ndarray:
    """True for each value that is not valid UTF-8 (read as bytes, decoded one by one)."""
    raw = column.cast(pa.binary()).to_pylist()
    bad = np.zeros(len(raw), dtype=bool)
    for row, value in enumerate(raw):
        if value is not None:
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                bad[row] = True
    return bad


def check_utf8(table: pa.Table, file: str, first_row: int = 0) -> None:
    """Raise a GraphImportError at the first string value that is not valid UTF-8.

    `first_row` is the 0-based number of the table's first row in the file (for a batch).
    """
    for name in table.column_names:
        column = table.column(name)
        if column.type not in (pa.string(), pa.large_string()):
            continue
        offset = first_row
        for chunk in column.chunks:
            if not _valid(chunk):
                row = offset + _first_invalid(chunk) + 1
                raise GraphImportError(
                    f"column {name!r} holds {NOT_UTF8}; re-encode the file as UTF-8 (e.g. "
                    "`iconv -f latin1 -t utf-8`), or pass --skip-invalid to skip such rows",
                    file=file,
                    row=row,
                )
            offset += len(chunk)


def _valid(values: pa.Array) -> bool:
    try:
        values.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _first_invalid(chunk: pa.Array) -> int:
    """Binary search for the first invalid value (validation of a slice checks only it)."""
    low, high = 0, len(chunk)
    while high - low > 1:
        middle = (low + high) // 2
        if _valid(chunk.slice(low, middle - low)):
            low = middle
        else:
            high = middle
    return low
