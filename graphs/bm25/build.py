"""Writes the BM25 index of a snapshot: numpy postings, per-term score bounds and metadata."""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from graphs.bm25 import kernels as bm25_kernels
from graphs.bm25.chunks import document_text
from graphs.bm25.ingest import Batch, Progress, ingest
from graphs.bm25.merge import write_merged
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings, PostingsBuilder
from graphs.bm25.tokenize import DEFAULT_ANALYZER, Tokenizer
from graphs.build.stream.npyfile import NpyAppender, NpyReader
from graphs.errors import GraphError
from graphs.layout import (
    IMPACTS_SUFFIX,
    INDEX_FORMAT_VERSION,
    MAXIMA_SUFFIX,
    META_FILE,
    TYPES_FILE,
    posting_file,
)
from graphs.layout import INDEX_FIELD as FIELD

logger = logging.getLogger(__name__)

BOOSTS: dict[str, float] = {FIELD: 1.0}
_CHUNK_DOCS = 65_536

__all__ = ["BOOSTS", "build_index", "build_index_streaming", "document_text", "index_info"]


def build_index(
    index_dir: Path,
    names: Sequence[str],
    texts: Sequence[str],
    type_codes: np.ndarray,
    *,
    meta: Mapping[str, str] | None = None,
    analyzer: str = DEFAULT_ANALYZER,
    params: BM25Params | None = None,
) -> None:
    """Build the BM25 index of a snapshot's nodes in ``index_dir``.

    Node ``i`` (its internal id) has ``names[i]``, ``texts[i]`` and ``type_codes[i]``; its
    document is :func:`document_text` of its name and text, one BM25 field (the paper's
    "inverted index of node textual attributes"; STaRK's documents hold the name too). Writes
    numpy postings with exact document lengths, each term's largest possible BM25 gain (for
    pruning) and ``meta.json``.

    Args:
        index_dir: Directory to create; it must not exist or be empty.
        names: Node names (a list or object array of ``str``).
        texts: Node texts.
        type_codes: Integer node type codes (int16), one per node, used by type filters.
        meta: Strings stored verbatim in ``meta.json`` and exposed as :attr:`BM25Index.meta`.
        analyzer: One of :data:`graphs.bm25.tokenize.ANALYZERS`; recorded in ``meta.json`` and
            used for every query of this index.
        params: The BM25 formula, recorded in ``meta.json``; default :class:`BM25Params`
            (Okapi idf, k1 0.9, b 0.4).

    Raises:
        GraphError: On inconsistent lengths, a name or text that is not a ``str``, type codes
            outside ``[0, 32767]``, an unknown analyzer or a non-empty ``index_dir``.
    """
    started = time.perf_counter()
    codes = np.asarray(type_codes)
    tokenizer = Tokenizer(analyzer)
    _check_inputs(index_dir, names, texts, codes)
    documents = [document_text(name, text) for name, text in zip(names, texts, strict=True)]
    params = params or BM25Params()
    index_dir.mkdir(parents=True, exist_ok=True)
    builder = PostingsBuilder((FIELD,))
    for start in range(0, len(documents), _CHUNK_DOCS):
        stop = min(start + _CHUNK_DOCS, len(documents))
        builder.add_chunk(FIELD, start, tokenizer.tokenize_many(documents[start:stop]))
    totals = builder.write(index_dir)
    _write_impacts(index_dir, totals[FIELD], len(names), params)
    np.save(index_dir / TYPES_FILE, codes.astype(np.int16))
    type_counts = np.bincount(codes.astype(np.int64)).tolist() if codes.size else []
    info = index_info(len(names), totals[FIELD], type_counts, analyzer, params, meta)
    (index_dir / META_FILE).write_text(json.dumps(info, indent=2, sort_keys=True))
    logger.info(
        "BM25 index of %d nodes (analyzer %s) built in %.1f s",
        len(names),
        analyzer,
        time.perf_counter() - started,
    )


def build_index_streaming(
    index_dir: Path,
    batches: Iterable[Batch],
    type_codes: np.ndarray,
    *,
    meta: Mapping[str, str] | None = None,
    analyzer: str = DEFAULT_ANALYZER,
    params: BM25Params | None = None,
    memory_limit_bytes: int,
    spill_dir: Path,
    workers: int = 2,
    progress: Progress | None = None,
) -> None:
    """Build the same index as :func:`build_index`, byte for byte, in bounded memory.

    Nodes arrive in batches; their postings are held until ``memory_limit_bytes`` says, then
    spilled to ``spill_dir`` as a segment (its vocabulary sorted, postings by term), and the
    segments are merged term range by term range into the final files, impacts and per-term
    maxima computed on the way. Memory grows with the budget, not the graph, except for
    4 bytes per node (every doc's BM25 length factor, needed by every posting).

    Args:
        index_dir: Directory to create; it must not exist or be empty. On an error it is left
            incomplete (no ``meta.json``): remove it before building again.
        batches: ``(names, texts)`` pairs of equal-length sequences of ``str``, nodes in
            internal-id order (the first batch starts at node 0); any batch size works.
        type_codes: One int16 type code per node (an array or a read-only memory map); its
            length is the number of nodes the batches must hold.
        meta: Strings stored verbatim in ``meta.json``.
        analyzer: One of :data:`graphs.bm25.tokenize.ANALYZERS`.
        params: The BM25 formula (default :class:`BM25Params`).
        memory_limit_bytes: The builder's working memory: segment buffers, merge buffers and
            tokenisation in flight (not the caller's batch, nor the interpreter's ~100 MB).
        spill_dir: Existing directory for segment files (about the index's size); a private
            subdirectory is made there and removed at the end, also on errors.
        workers: Processes that tokenise (from 50,000 nodes; 1 tokenises in this process).
        progress: Called as ``progress(phase, done, total)``: ``("tokenize", nodes, N)``
            then ``("merge", postings, P)``.

    Raises:
        GraphError: As :func:`build_index` does, and when the batches hold more or fewer
            nodes than ``type_codes``, or the memory limit is not positive.
    """
    started = time.perf_counter()
    tokenizer = Tokenizer(analyzer)
    params = params or BM25Params()
    if memory_limit_bytes <= 0:
        raise GraphError(f"the memory limit must be positive, not {memory_limit_bytes} bytes")
    codes = np.asarray(type_codes)
    type_counts = _check_codes(codes)
    _check_empty(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    _write_types(index_dir / TYPES_FILE, codes)
    scratch = Path(tempfile.mkdtemp(prefix="bm25-segments-", dir=spill_dir))
    try:
        lengths_path = posting_file(index_dir, FIELD, "lengths")
        with NpyAppender(lengths_path, np.uint32, codes.size) as lengths:
            ingested = ingest(
                batches,
                tokenizer,
                lengths,
                scratch,
                segment_budget=memory_limit_bytes // 2,  # spill and what is in flight fit
                workers=workers,
                progress=progress,
            )
        factors = _length_factors(lengths_path, ingested.total_tokens, codes.size, params)
        write_merged(index_dir, scratch, ingested.segments, factors, memory_limit_bytes, progress)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    info = index_info(codes.size, ingested.total_tokens, type_counts, analyzer, params, meta)
    (index_dir / META_FILE).write_text(json.dumps(info, indent=2, sort_keys=True))
    logger.info(
        "BM25 index of %d nodes (analyzer %s) built in %.1f s from %d segments",
        codes.size,
        analyzer,
        time.perf_counter() - started,
        len(ingested.segments),
    )


def _length_factors(
    lengths_path: Path, total_tokens: int, num_docs: int, params: BM25Params
) -> np.ndarray:
    """Every doc's BM25 length factor, computed chunk by chunk from the written lengths."""
    factors = np.empty(num_docs, np.float32)
    reader = NpyReader(lengths_path)
    for start in range(0, num_docs, _CHUNK_DOCS * 16):
        chunk = reader.read(_CHUNK_DOCS * 16)
        factors[start : start + chunk.size] = params.length_factors(chunk, total_tokens, num_docs)
    return factors


def _write_types(path: Path, codes: np.ndarray) -> None:
    with NpyAppender(path, np.int16, codes.size) as types:
        for start in range(0, codes.size, _CHUNK_DOCS * 16):
            types.append(codes[start : start + _CHUNK_DOCS * 16].astype(np.int16))


def _check_codes(codes: np.ndarray) -> list[int]:
    """The count of each type code (as ``meta.json`` stores them), checking their range."""
    if codes.ndim != 1 or (codes.size and not np.issubdtype(codes.dtype, np.integer)):
        raise GraphError("node type codes must be integers in [0, 32767]")
    counts = np.zeros(0, np.int64)
    for start in range(0, codes.size, _CHUNK_DOCS * 16):
        chunk = codes[start : start + _CHUNK_DOCS * 16].astype(np.int64)
        if chunk.min() < 0 or chunk.max() > np.iinfo(np.int16).max:
            raise GraphError("node type codes must be integers in [0, 32767]")
        chunk_counts = np.bincount(chunk)
        if chunk_counts.size > counts.size:
            chunk_counts[: counts.size] += counts
            counts = chunk_counts
        else:
            counts[: chunk_counts.size] += chunk_counts
    return counts.tolist()


def _check_empty(index_dir: Path) -> None:
    if index_dir.exists() and any(index_dir.iterdir()):
        raise GraphError(
            f"BM25 index directory {index_dir} is not empty; remove it or pick another"
        )


def _check_inputs(
    index_dir: Path, names: Sequence[str], texts: Sequence[str], codes: np.ndarray
) -> None:
    if not len(names) == len(texts) == len(codes):
        raise GraphError(
            f"BM25 index needs one name, text and type code per node; got {len(names)} names, "
            f"{len(texts)} texts and {len(codes)} type codes"
        )
    for label, values in (("name", names), ("text", texts)):
        bad = next((i for i, value in enumerate(values) if not isinstance(value, str)), None)
        if bad is not None:
            raise GraphError(
                f"node {bad} has a {type(values[bad]).__name__} {label}, not a string; "
                "use an empty string for a missing name or text"
            )
    if codes.size and (
        not np.issubdtype(codes.dtype, np.integer)
        or codes.min() < 0
        or codes.max() > np.iinfo(np.int16).max
    ):
        raise GraphError("node type codes must be integers in [0, 32767]")
    if index_dir.exists() and any(index_dir.iterdir()):
        raise GraphError(
            f"BM25 index directory {index_dir} is not empty; remove it or pick another"
        )


def _write_impacts(index_dir: Path, total_tokens: int, num_docs: int, params: BM25Params) -> None:
    """Every posting's impact and every term's largest one, for this index's formula."""
    postings = FieldPostings.load(index_dir, FIELD, total_tokens)
    factors = params.length_factors(postings.lengths, total_tokens, num_docs)
    impacts = bm25_kernels.posting_impacts(postings.docs, postings.tf, factors)
    np.save(index_dir / f"{FIELD}{IMPACTS_SUFFIX}", impacts)
    np.save(
        index_dir / f"{FIELD}{MAXIMA_SUFFIX}", bm25_kernels.term_maxima(postings.indptr, impacts)
    )


def index_info(
    num_docs: int,
    total_tokens: int,
    type_counts: list[int],
    analyzer: str,
    params: BM25Params,
    meta: Mapping[str, str] | None,
) -> dict[str, object]:
    """The content of an index's ``meta.json``."""
    return {
        "format_version": INDEX_FORMAT_VERSION,
        "num_docs": num_docs,
        "total_tokens": {FIELD: total_tokens},
        "boosts": BOOSTS,
        "analyzer": analyzer,
        "bm25": params.to_meta(),
        "type_counts": type_counts,
        "meta": dict(meta or {}),
    }
