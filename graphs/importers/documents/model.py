"""The records that flow through a document build: documents, passages, extractions, skips."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Document:
    """One input document.

    Attributes:
        doc_id: Unique id (a file's path relative to its folder, or a JSONL row's `id`).
        title: Display name (JSONL `title`, else the first line or the file name).
        text: The full text.
        source: Where it was read from (file path, with `:LINE` for a JSONL row).
        metadata: Extra JSONL fields, kept as strings.
    """

    doc_id: str
    title: str
    text: str
    source: str
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Passage:
    """A chunk of a document: the unit that is extracted, cached and indexed.

    Attributes:
        passage_id: `<doc_id>#<n>` (n from 0).
        doc_id: The document it was cut from.
        index: Its position in the document.
        text: The passage text, a verbatim slice of the document.
        start: Character offset of the slice in the document text.
    """

    passage_id: str
    doc_id: str
    index: int
    text: str
    start: int

    @property
    def digest(self) -> str:
        """sha256 of the text: the extraction cache key (ids may change, text does not)."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Skip:
    """An input that was not used, and why (`reason` is a short stable label)."""

    source: str
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class Mention:
    """An entity named in a passage.

    Attributes:
        name: The surface form.
        type: Entity type (person, organisation, place, work, date, group, event, ...).
        sentence: Index of the sentence (in the passage) that names it.
    """

    name: str
    type: str
    sentence: int = 0


@dataclass(frozen=True)
class Triple:
    """A relation read from one sentence of a passage.

    Attributes:
        subject: Subject surface form.
        subject_type: Its entity type (`concept` for a plain noun phrase).
        relation: Relation label as extracted (canonicalised later).
        object: Object surface form.
        object_type: Its entity type.
        sentence: Index of the sentence in the passage it was read from.
        evidence: That sentence's text (the relation's provenance).
    """

    subject: str
    subject_type: str
    relation: str
    object: str
    object_type: str
    sentence: int = 0
    evidence: str = ""


@dataclass(frozen=True)
class Extraction:
    """What an extractor read from one passage (what the cache stores)."""

    mentions: tuple[Mention, ...] = ()
    triples: tuple[Triple, ...] = ()
    repaired: bool = False

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the cache's value)."""
        return {
            "mentions": [[m.name, m.type, m.sentence] for m in self.mentions],
            "triples": [
                [
                    t.subject,
                    t.subject_type,
                    t.relation,
                    t.object,
                    t.object_type,
                    t.sentence,
                    t.evidence,
                ]
                for t in self.triples
            ],
            "repaired": self.repaired,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Extraction:
        """Inverse of `to_json`."""
        return cls(
            mentions=tuple(Mention(str(n), str(t), int(s)) for n, t, s in data["mentions"]),
            triples=tuple(
                Triple(str(a), str(b), str(c), str(d), str(e), int(f), str(g))
                for a, b, c, d, e, f, g in data["triples"]
            ),
            repaired=bool(data.get("repaired", False)),
        )


@dataclass(frozen=True)
class ExtractionFailure:
    """A passage the extractor could not read; it is retried on the next run."""

    reason: str
