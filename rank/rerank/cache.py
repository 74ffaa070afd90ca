"""On-disk cache of reranker scores keyed by (model, prompt, question, candidate document).

A SQLite file, so concurrent readers are safe and a killed run keeps every committed score.
The key hashes the scorer's identity (model name, adapter, ...), the prompt fingerprint, the
question text, the candidate id and its serialised document, so a changed graph or prompt
misses instead of returning a stale score.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphs.errors import ArkError


class RerankCacheError(ArkError):
    """The cache file cannot be opened (the message names it and how to recover)."""


@dataclass
class CacheStats:
    """Lookups since the cache was opened."""

    hits: int = 0
    misses: int = 0

    @property
    def hit_rate(self) -> float:
        """Share of lookups answered from disk (0 when none)."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


def cache_key(model: str, prompt: str, question: str, candidate: str, document: str) -> str:
    """The key of one score."""
    payload = json.dumps([model, prompt, question, candidate, document], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ScoreCache:
    """Score lookups and inserts; use as a context manager or call `close`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.stats = CacheStats()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path)
            self._db.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, score REAL)")
        except sqlite3.DatabaseError as error:
            raise RerankCacheError(
                f"cannot use {self.path} as the reranker cache ({error}); delete it or pass "
                "another --cache file"
            ) from error

    def get_many(self, keys: Sequence[str]) -> dict[str, float]:
        """Cached scores of `keys` (missing keys are absent); updates the hit counts."""
        found: dict[str, float] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT key, score FROM scores WHERE key IN ({marks})", chunk)
            found.update({key: float(score) for key, score in rows})
        self.stats.hits += len(found)
        self.stats.misses += len(keys) - len(found)
        return found

    def put_many(self, items: Iterable[tuple[str, float]]) -> None:
        """Store scores durably (one transaction)."""
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?)", list(items))

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> ScoreCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
