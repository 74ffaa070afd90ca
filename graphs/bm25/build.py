"""Writes the BM25 index of a snapshot: numpy postings, per-term score bounds and metadata."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from graphs.bm25 import kernels as bm25_kernels
from graphs.bm25.params import BM25Params
from graphs.bm25.postings import FieldPostings, PostingsBuilder
from graphs.bm25.tokenize import DEFAULT_ANALYZER, Tokenizer
from graphs.errors import GraphError
from graphs.layout import IMPACTS_SUFFIX, INDEX_FORMAT_VERSION, MAXIMA_SUFFIX, META_FILE, TYPES_FILE
from graphs.layout import INDEX_FIELD as FIELD

logger = logging.getLogger(__name__)

BOOSTS: dict[str, float] = {FIELD: 1.0}
_CHUNK_DOCS = 65_536


def document_text(name: str, text: str) -> str:
    """The one document BM25 sees for a node: its name, then its text (once when equal)."""
    if not name or text == name:
        return text
    return f"{name}\n{text}" if text else name


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
    info = {
        "format_version": INDEX_FORMAT_VERSION,
        "num_docs": len(names),
        "total_tokens": totals,
        "boosts": BOOSTS,
        "analyzer": analyzer,
        "bm25": params.to_meta(),
        "type_counts": np.bincount(codes.astype(np.int64)).tolist() if codes.size else [],
        "meta": dict(meta or {}),
    }
    (index_dir / META_FILE).write_text(json.dumps(info, indent=2, sort_keys=True))
    logger.info(
        "BM25 index of %d nodes (analyzer %s) built in %.1f s",
        len(names),
        analyzer,
        time.perf_counter() - started,
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
