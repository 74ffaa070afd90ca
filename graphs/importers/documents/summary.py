"""The extraction summary of a document snapshot (extraction.json beside its manifest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

EXTRACTION_FILE = "extraction.json"
MAX_LISTED = 200


class ExtractionSummary(BaseModel):
    """What a document build read, extracted, merged and skipped; `ark graph info` shows it."""

    documents: int
    passages: int
    skipped: dict[str, int] = Field(description="Skipped input reason -> count.")
    skipped_inputs: list[dict[str, str]] = Field(
        description=f"The first {MAX_LISTED} skipped inputs: source, reason, detail."
    )
    extractor: str
    model: str
    prompt_version: str
    cache: str
    cache_hits: int
    extracted: int
    failed: int
    failures: dict[str, int] = Field(description="Failure reason -> passages.")
    failed_passages: list[dict[str, str]] = Field(
        description=f"The first {MAX_LISTED} failed passages: passage, reason."
    )
    repaired: int = Field(description="Extractions read from repaired (almost-)JSON.")
    mentions: int
    triples: int
    entities: int
    entities_by_type: dict[str, int]
    merges: dict[str, int] = Field(description="Names merged by rule (normalised, alias, ...).")
    relation_types: dict[str, int] = Field(description="Edge type -> relation edges.")
    generic_labels: int = Field(description="Distinct labels mapped to the generic type.")
    chunk: dict[str, int]
    seconds: dict[str, float]
    endpoint: dict[str, Any] | None = Field(
        default=None,
        description="The LLM extractor's endpoint settings (URL credentials redacted); "
        "None for an extractor that calls no endpoint.",
    )
    excluded_documents: list[str] = Field(
        default_factory=list,
        description="Document ids read from the sources but left out (deleted through "
        "`ark serve`); an update from the same sources leaves them out again.",
    )
    update: dict[str, Any] | None = Field(
        default=None,
        description="For `--update`: documents added, changed, removed and unchanged against "
        "the snapshot replaced, and the entities that appeared or went (changes.py).",
    )


def write_summary(summary: ExtractionSummary, directory: Path) -> None:
    """Write `extraction.json` into `directory` (whole or not at all: readers may be open)."""
    partial = directory / f".{EXTRACTION_FILE}.tmp"
    partial.write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    partial.replace(directory / EXTRACTION_FILE)


def read_summary(directory: Path) -> dict[str, Any] | None:
    """The extraction summary of a snapshot as a dict.

    None when it was not built from documents (or the file is unreadable: `ark graph info`
    then shows the rest).
    """
    path = Path(directory) / EXTRACTION_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
