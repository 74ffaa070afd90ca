"""The extraction cache: one sqlite file keyed by (passage hash, extractor, model, prompt)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from graphs.cache_dir import cache_path
from graphs.errors import GraphImportError
from graphs.importers.documents.model import Extraction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extractions (
    passage_hash TEXT NOT NULL,
    extractor TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    result TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (passage_hash, extractor, model, prompt_version)
)
"""
_LOOKUP_BATCH = 500


def default_cache_path() -> Path:
    """`extractions.sqlite` in ARK's cache (graphs/cache_dir.py: `~/.cache/ark` by default).

    One store per user, so a passage extracted for any snapshot is never extracted again.
    """
    return cache_path("extractions")


@dataclass(frozen=True)
class CacheKey:
    """What, besides the passage text, decides an extraction."""

    extractor: str
    model: str
    prompt_version: str


class ExtractionCache:
    """Extractions stored durably as they finish.

    Only successes are stored (a failure is retried on the next run). Each `put_many`
    commits, so an interrupted build keeps its work.
    """

    def __init__(self, path: Path) -> None:
        """Open (creating if needed) the store at `path`.

        Raises:
            GraphImportError: The file is not a usable sqlite database.
        """
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path)
            self._db.execute(_SCHEMA)
            self._db.commit()
        except (sqlite3.Error, OSError) as error:
            raise GraphImportError(
                f"cannot use {self.path} as the extraction cache ({error}); pass --cache with "
                "another path or remove the file"
            ) from error

    def get_many(self, digests: Iterable[str], key: CacheKey) -> dict[str, Extraction]:
        """The cached extractions among `digests` (passage hash -> extraction)."""
        found: dict[str, Extraction] = {}
        unique = list(dict.fromkeys(digests))
        for first in range(0, len(unique), _LOOKUP_BATCH):
            batch = unique[first : first + _LOOKUP_BATCH]
            rows = self._db.execute(
                "SELECT passage_hash, result FROM extractions WHERE extractor = ? AND model = ? "
                f"AND prompt_version = ? AND passage_hash IN ({','.join('?' * len(batch))})",
                (key.extractor, key.model, key.prompt_version, *batch),
            )
            for digest, result in rows:
                found[digest] = Extraction.from_json(json.loads(result))
        return found

    def put_many(self, extractions: Mapping[str, Extraction], key: CacheKey) -> None:
        """Store extractions (passage hash -> extraction) and commit."""
        now = time.time()
        self._db.executemany(
            "INSERT OR REPLACE INTO extractions VALUES (?, ?, ?, ?, ?, ?)",
            [
                (digest, key.extractor, key.model, key.prompt_version,
                 json.dumps(extraction.to_json(), ensure_ascii=False), now)
                for digest, extraction in extractions.items()
            ],
        )  # fmt: skip
        self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> ExtractionCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
