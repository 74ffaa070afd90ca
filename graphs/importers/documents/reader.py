"""Read `.txt`, `.md`, `.jsonl` and `.pdf` files into documents, skipping bad input by name."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graphs.errors import GraphImportError
from graphs.importers.documents.model import Document, Skip
from graphs.layout import DOCUMENT_SUFFIXES

logger = logging.getLogger(__name__)

TEXT_SUFFIXES = (".txt", ".md")
SUFFIXES = DOCUMENT_SUFFIXES
_SNIFF_BYTES = 8192
_TITLE_CHARS = 120


@dataclass(frozen=True, kw_only=True)
class ReadConfig:
    """How documents are read.

    Attributes:
        max_file_bytes: Files larger than this are skipped as `too large` (--max-file-mb);
            16 MB holds a ~2,500-page book as plain text, so a bigger file is almost always a
            dump or a binary blob that would dominate the build.
    """

    max_file_bytes: int = 16 * 1024 * 1024
    follow_links: bool = False
    """Read files in the folders whose real path lies outside every folder given (symbolic
    links out of them: `--follow-links`); by default they are skipped, so a link such as
    `docs/passwd.txt -> /etc/passwd` never ends up in a snapshot that `ark mcp` serves."""


@dataclass
class ReadResult:
    """The documents read, in input order, and every input skipped (with its reason)."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)


def read_documents(paths: Sequence[Path], config: ReadConfig | None = None) -> ReadResult:
    """Read every supported file under `paths` (files or folders, folders recursively).

    Bad input never raises: empty, binary, undecodable, oversized or text-less files, bad
    JSONL rows, repeated document ids and (unless `config.follow_links`) files in a folder
    whose real path lies outside the folders given are skipped and listed with a reason. A
    file given by name is read wherever it points.

    Raises:
        GraphImportError: A path does not exist, or no document at all could be read.
    """
    config = config or ReadConfig()
    result = ReadResult()
    seen: set[str] = set()
    folders = [path.resolve() for path in paths if path.is_dir()]
    for root, file, named in _files(paths):
        if not named and not config.follow_links and not _inside(file, folders):
            real = file.resolve()
            result.skipped.append(
                Skip(str(file), "link outside the folders", f"to {real} (--follow-links reads it)")
            )
            continue
        for item in _read_file(file, root, config):
            if isinstance(item, Skip):
                result.skipped.append(item)
            elif item.doc_id in seen:
                result.skipped.append(Skip(item.source, "duplicate id", item.doc_id))
            else:
                seen.add(item.doc_id)
                result.documents.append(item)
    if not result.documents:
        reasons = ", ".join(sorted({skip.reason for skip in result.skipped})) or "no files"
        raise GraphImportError(
            f"no document could be read from {', '.join(map(str, paths))} ({reasons}); give "
            f"folders or files of {', '.join(SUFFIXES)} with text in them"
        )
    return result


def _inside(file: Path, folders: Sequence[Path]) -> bool:
    """Whether `file`'s real path (links resolved) lies in one of `folders` (resolved)."""
    real = file.resolve()
    return any(real.is_relative_to(folder) for folder in folders)


def _files(paths: Sequence[Path]) -> Iterator[tuple[Path, Path, bool]]:
    """(its root, the file, whether it was given by name) of every file to read."""
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in file.relative_to(path).parts)
                if file.is_file() and not hidden:
                    yield path, file, False
        elif path.is_file():
            yield path.parent, path, True
        else:
            raise GraphImportError(f"{path} does not exist; give document files or folders")


def _read_file(file: Path, root: Path, config: ReadConfig) -> Iterable[Document | Skip]:
    suffix = file.suffix.lower()
    source = str(file)
    if suffix not in SUFFIXES:
        return [Skip(source, "unsupported type", f"not one of {', '.join(SUFFIXES)}")]
    size = file.stat().st_size
    if size == 0:
        return [Skip(source, "empty")]
    if size > config.max_file_bytes:
        limit = config.max_file_bytes / 2**20
        return [Skip(source, "too large", f"{size / 2**20:.1f} MB > {limit:g} MB (--max-file-mb)")]
    if suffix == ".pdf":
        return [_read_pdf(file, root)]
    data = file.read_bytes()
    # JSONL is judged row by row: one row with NUL bytes must not lose the file's others
    if suffix != ".jsonl" and b"\x00" in data[:_SNIFF_BYTES]:
        return [Skip(source, "binary", "NUL bytes in the first 8 KB")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [Skip(source, "undecodable", f"not UTF-8 at byte {error.start}")]
    if suffix == ".jsonl":
        return list(_jsonl_rows(text, source))
    return [_text_document(text, file, root, source)]


def _doc_id(file: Path, root: Path) -> str:
    return file.relative_to(root).as_posix()


def _text_document(text: str, file: Path, root: Path, source: str) -> Document | Skip:
    if not text.strip():
        return Skip(source, "empty", "whitespace only")
    first = next(line for line in text.splitlines() if line.strip())
    title = first.strip().lstrip("#").strip()[:_TITLE_CHARS] or file.stem
    return Document(doc_id=_doc_id(file, root), title=title, text=text, source=source)


def _jsonl_rows(text: str, source: str) -> Iterator[Document | Skip]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        if "\x00" in line:
            yield Skip(where, "binary", "NUL bytes in the row")
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            yield Skip(where, "invalid json", str(error)[:80])
            continue
        if not isinstance(row, dict):
            yield Skip(where, "invalid json", "a row must be an object")
            continue
        doc_id, text_value = row.get("id"), row.get("text")
        if doc_id is None or str(doc_id).strip() == "":
            yield Skip(where, "missing id")
        elif not isinstance(text_value, str) or not text_value.strip():
            yield Skip(where, "empty", "no `text`")
        else:
            title = row.get("title")
            yield Document(
                doc_id=str(doc_id),
                title=str(title) if title else short_title(text_value),
                text=text_value,
                source=where,
                metadata={
                    key: str(value)
                    for key, value in row.items()
                    if key not in ("id", "text", "title")
                },
            )


def short_title(text: str, limit: int = 60) -> str:
    """A title for untitled text: its first line, cut at a word boundary near `limit` chars."""
    line = text.strip().split("\n")[0]
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0].rstrip(",;:(")
    return f"{cut}…"


def _read_pdf(file: Path, root: Path) -> Document | Skip:
    source = str(file)
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        return Skip(source, "pdf support missing", "pip install 'ark-kg[documents]'")
    try:
        reader = PdfReader(file)
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, OSError) as error:
        return Skip(source, "unreadable pdf", str(error)[:80])
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        return Skip(source, "pdf without text layer", "scanned? run OCR first")
    title = (reader.metadata.title if reader.metadata else None) or file.stem
    return Document(doc_id=_doc_id(file, root), title=str(title), text=text, source=source)
