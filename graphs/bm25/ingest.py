"""Batches of nodes -> tokenised chunks (in worker processes) -> spilled segments and lengths."""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.bm25.chunks import ChunkPostings, tokenize_chunk
from graphs.bm25.segments import SegmentBuffer, SegmentFiles
from graphs.bm25.tokenize import Tokenizer
from graphs.build.stream.npyfile import NpyAppender
from graphs.errors import GraphError

Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``, called as a long build advances."""
Batch = tuple[Sequence[str], Sequence[str]]
"""One batch of consecutive nodes: their names and their texts."""

CHUNK_DOCS = 16_384
"""Most docs tokenised per task (a worker's unit of work)."""
CHUNK_CHARS = 1 << 21
"""Most characters of names and texts per task (but one doc at least): a chunk's token lists
take ~10 bytes a character, so long texts make smaller chunks, not larger worker memory."""
POOL_MIN_DOCS = 50_000
"""Fewer docs than this are tokenised in the calling process (a pool costs ~1 s to start)."""


@dataclass(frozen=True)
class Ingested:
    """What the tokenising pass leaves: spilled segments and document-length totals."""

    segments: list[SegmentFiles]
    total_tokens: int


def _chunks(batches: Iterable[Batch]) -> Iterator[tuple[int, Sequence[str], Sequence[str]]]:
    first = 0
    for names, texts in batches:
        if len(names) != len(texts):
            raise GraphError(
                f"a batch of nodes from {first} has {len(names)} names and {len(texts)} "
                "texts; give one name and one text per node"
            )
        start = 0
        for stop in _chunk_ends(names, texts):
            yield first + start, names[start:stop], texts[start:stop]
            start = stop
        first += len(names)


def _chunk_ends(names: Sequence[str], texts: Sequence[str]) -> list[int]:
    """Where one batch's chunks end: at most CHUNK_DOCS docs and CHUNK_CHARS characters each."""
    try:
        sizes = np.fromiter(map(len, names), np.int64, len(names))
        sizes += np.fromiter(map(len, texts), np.int64, len(texts))
    except TypeError:  # not a string: tokenize_chunk reports it with its node id
        sizes = np.zeros(len(names), np.int64)
    ends, position, cuts = np.cumsum(sizes), 0, []
    while position < len(names):
        before = int(ends[position - 1]) if position else 0
        stop = int(np.searchsorted(ends, before + CHUNK_CHARS, side="right"))
        position = min(max(stop, position + 1), position + CHUNK_DOCS, len(names))
        cuts.append(position)
    return cuts


def _tokenized(
    batches: Iterable[Batch], tokenizer: Tokenizer, workers: int
) -> Iterator[ChunkPostings]:
    """Chunks' postings in doc order; ``workers`` processes tokenise ahead when above 1."""
    if workers <= 1:
        for first, names, texts in _chunks(batches):
            yield tokenize_chunk(tokenizer, first, names, texts)
        return
    pool = ProcessPoolExecutor(
        workers, mp_context=_worker_context(), initializer=_ignore_interrupts
    )
    pending: deque[Future[ChunkPostings]] = deque()
    try:
        for first, names, texts in _chunks(batches):
            pending.append(pool.submit(tokenize_chunk, tokenizer, first, names, texts))
            if len(pending) > 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BaseException:  # Ctrl-C or an error: drop queued chunks, wait for no worker
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _worker_context() -> multiprocessing.context.BaseContext:
    """Workers forked from a small server process that imported only the tokeniser.

    Not `fork` (a copy of a large parent), not `spawn` (each worker would re-import the
    parent's main module: the `ark` command, its CLI and the agent's libraries, seconds and
    hundreds of MB each, and every import a place for Ctrl-C to land).
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([tokenize_chunk.__module__])
    return context


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (no traceback from each)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ingest(
    batches: Iterable[Batch],
    tokenizer: Tokenizer,
    lengths: NpyAppender,
    scratch: Path,
    *,
    segment_budget: int,
    workers: int,
    progress: Progress | None,
) -> Ingested:
    """Tokenise every batch, append doc lengths to ``lengths`` and spill segments to ``scratch``.

    A segment is spilled once its estimated memory reaches ``segment_budget`` bytes.

    Raises:
        GraphError: The batches hold more or fewer nodes than ``lengths`` expects, or a name
            or text is not a string.
    """
    expected = lengths.length
    workers = workers if expected >= POOL_MIN_DOCS else 1
    buffer, total_tokens, done = SegmentBuffer(), 0, 0
    segments: list[SegmentFiles] = []
    for chunk in _tokenized(batches, tokenizer, workers):
        done += chunk.lengths.size
        if done > expected:
            raise GraphError(
                f"the batches hold more nodes than the {expected} type codes given; "
                "give one type code per node"
            )
        lengths.append(chunk.lengths.astype(np.uint32))
        total_tokens += int(chunk.lengths.sum())
        buffer.add(chunk)
        if buffer.estimated_bytes() >= segment_budget:
            segments.append(buffer.spill(scratch / f"segment{len(segments):05d}"))
        if progress is not None:
            progress("tokenize", done, expected)
    if done != expected:
        raise GraphError(
            f"the batches hold {done} nodes but {expected} type codes were given; "
            "give one name, text and type code per node"
        )
    if len(buffer):
        segments.append(buffer.spill(scratch / f"segment{len(segments):05d}"))
    return Ingested(segments, total_tokens)
