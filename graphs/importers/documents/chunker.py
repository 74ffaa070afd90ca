"""Token-aware chunking: documents into sentence-aligned passages with a token overlap."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from graphs.errors import GraphImportError
from graphs.importers.documents.model import Document, Passage

_TOKEN = re.compile(r"\w+|[^\w\s]")
# A sentence ends at . ! ? (and closing quotes/brackets) before whitespace and a capital,
# digit or quote, or at a blank line. Segmentation only: extraction never reads this.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n")


@dataclass(frozen=True, kw_only=True)
class ChunkConfig:
    """How documents are cut into passages.

    Attributes:
        max_tokens: Most tokens (words and punctuation marks) in a passage (--chunk-tokens).
            200 keeps a passage near one Wikipedia-style paragraph (HotpotQA's paragraphs
            average ~90 words, DPR's passages are 100 words), small enough for BM25 to rank
            it on topic and for a 4k-context local model to read it with a few-shot prompt.
        overlap_tokens: Tokens of whole trailing sentences repeated at the start of the next
            passage (--chunk-overlap), so a relation split across a boundary is still read
            once; 30 (15%) is about one sentence.
    """

    max_tokens: int = 200
    overlap_tokens: int = 30

    def __post_init__(self) -> None:
        if self.max_tokens < 8:
            raise GraphImportError(f"--chunk-tokens must be >= 8, got {self.max_tokens}")
        if not 0 <= self.overlap_tokens < self.max_tokens // 2:
            raise GraphImportError(
                f"--chunk-overlap must be >= 0 and below half of --chunk-tokens "
                f"({self.max_tokens // 2}), got {self.overlap_tokens}"
            )


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`, whitespace trimmed."""
    spans = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [_trim(text, a, b) for a, b in spans if text[a:b].strip()]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def chunk_document(document: Document, config: ChunkConfig | None = None) -> list[Passage]:
    """Cut `document` into passages of at most `config.max_tokens` tokens.

    Passages are verbatim slices of the text ending at sentence boundaries; a sentence longer
    than a passage is cut at token boundaries. Consecutive passages share up to
    `config.overlap_tokens` tokens of whole sentences (or of tokens, inside a long sentence).
    """
    config = config or ChunkConfig()
    passages = []
    for index, (start, end) in enumerate(_windows(document.text, config)):
        passages.append(
            Passage(
                passage_id=f"{document.doc_id}#{index}",
                doc_id=document.doc_id,
                index=index,
                text=document.text[start:end],
                start=start,
            )
        )
    return passages


def _units(text: str, config: ChunkConfig) -> Iterator[list[tuple[int, int]]]:
    """Token spans per sentence; a sentence over max_tokens is split into pieces."""
    step = config.max_tokens - config.overlap_tokens
    for start, end in sentence_spans(text):
        tokens = [m.span() for m in _TOKEN.finditer(text, start, end)]
        if len(tokens) <= config.max_tokens:
            yield tokens
            continue
        for first in range(0, len(tokens), step):
            yield tokens[first : first + config.max_tokens]
            if first + config.max_tokens >= len(tokens):
                break


def _windows(text: str, config: ChunkConfig) -> Iterator[tuple[int, int]]:
    window: list[list[tuple[int, int]]] = []
    size = 0
    for unit in _units(text, config):
        if not unit:
            continue
        if window and size + len(unit) > config.max_tokens:
            yield window[0][0][0], window[-1][-1][1]
            window, size = _overlap(window, config.overlap_tokens)
            if size + len(unit) > config.max_tokens:
                window, size = [], 0
        window.append(unit)
        size += len(unit)
    if window:
        yield window[0][0][0], window[-1][-1][1]


def _overlap(
    window: list[list[tuple[int, int]]], overlap_tokens: int
) -> tuple[list[list[tuple[int, int]]], int]:
    kept: list[list[tuple[int, int]]] = []
    size = 0
    for unit in reversed(window):
        if size + len(unit) > overlap_tokens:
            break
        kept.insert(0, unit)
        size += len(unit)
    return kept, size
