"""The extractor interface every extractor (offline spaCy, LLM) implements, and its errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from graphs.errors import GraphError
from graphs.importers.documents.model import Extraction, ExtractionFailure


class ExtractorDownError(GraphError):
    """The extractor cannot work at all (endpoint unreachable, pipeline missing).

    The build stops before writing a snapshot; everything extracted so far stays in the cache,
    so the same command resumes where it stopped once the cause is fixed.

    Attributes:
        finished: The results of the stopped batch that did finish, aligned with its texts
            (None for the rest); they are cached before the build stops.
    """

    def __init__(
        self, message: str, *, finished: Sequence[Extraction | ExtractionFailure | None] = ()
    ) -> None:
        super().__init__(message)
        self.finished = list(finished)


class ExtractionFailedError(GraphError):
    """Extraction failed for more passages than the build accepts (`max_failed_share`).

    Nothing is written (a snapshot already at the output stays as it was); every passage that
    was extracted stays in the cache, so rerunning once the cause is fixed resumes.
    """


class Extractor(Protocol):
    """Reads entities and relation triples from passages.

    Attributes:
        name: Extractor family (`spacy`, `llm`), part of the cache key.
        model: The model it runs (spaCy package and version, or the served model id).
        prompt_version: Version of whatever shapes its output (prompt hash, rule version).
        batch_size: Passages handed to one `extract` call (the cache is written after each).
    """

    name: str
    model: str
    prompt_version: str
    batch_size: int

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        """One result per text, in order; a passage that fails becomes an ExtractionFailure.

        Raises:
            ExtractorDownError: Nothing can be extracted at all (stop the build).
        """
        ...
