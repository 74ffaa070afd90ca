"""Run an extractor over passages through the cache: hits reused, misses extracted in batches."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graphs.importers.documents.cache import CacheKey, ExtractionCache
from graphs.importers.documents.extractor import Extractor, ExtractorDownError
from graphs.importers.documents.model import Extraction, ExtractionFailure, Passage

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""Called with (passages extracted so far, passages to extract) after each batch."""


@dataclass
class ExtractRun:
    """Passage id -> extraction, the failures (passage id -> reason) and the cache counts."""

    extractions: dict[str, Extraction] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    cache_hits: int = 0
    extracted: int = 0


def run_extraction(
    passages: Sequence[Passage],
    extractor: Extractor,
    cache: ExtractionCache,
    *,
    progress: Progress | None = None,
) -> ExtractRun:
    """Extract every passage not in the cache; each batch is stored as soon as it finishes.

    Passages with the same text are extracted once. A failed passage is recorded (not
    cached), so the next run retries it; ExtractorDownError propagates with the cache intact.
    """
    key = CacheKey(extractor.name, extractor.model, extractor.prompt_version)
    cached = cache.get_many((passage.digest for passage in passages), key)
    run = ExtractRun()
    todo: dict[str, str] = {}
    for passage in passages:
        if passage.digest in cached:
            run.extractions[passage.passage_id] = cached[passage.digest]
            run.cache_hits += 1
        else:
            todo.setdefault(passage.digest, passage.text)
    digests = list(todo)
    results: dict[str, Extraction | ExtractionFailure] = {}
    if progress:
        progress(0, len(digests))
    for first in range(0, len(digests), max(extractor.batch_size, 1)):
        batch = digests[first : first + extractor.batch_size]
        try:
            outputs = extractor.extract([todo[digest] for digest in batch])
        except ExtractorDownError as error:  # keep what the stopped batch did finish
            pairs = zip(batch, error.finished, strict=False)  # empty when nothing finished
            kept = {d: r for d, r in pairs if isinstance(r, Extraction)}
            cache.put_many(kept, key)
            raise
        done = dict(zip(batch, outputs, strict=True))
        cache.put_many({d: r for d, r in done.items() if isinstance(r, Extraction)}, key)
        results.update(done)
        if progress:
            progress(min(first + len(batch), len(digests)), len(digests))
    for passage in passages:
        result = results.get(passage.digest)
        if isinstance(result, Extraction):
            run.extractions[passage.passage_id] = result
            run.extracted += 1
        elif isinstance(result, ExtractionFailure):
            run.failures[passage.passage_id] = result.reason
    if run.failures:
        logger.warning("%d passages failed extraction (retried on the next run)", len(run.failures))
    return run
