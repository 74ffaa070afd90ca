"""Writes the BM25 index of a snapshot: tantivy documents, numpy postings and metadata."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import tantivy

from graphs.errors import GraphError
from graphs.postings import FIELDS, PostingsBuilder
from graphs.tokenize import Tokenizer

logger = logging.getLogger(__name__)

INDEX_FORMAT_VERSION = 1
META_FILE = "meta.json"
TANTIVY_DIR = "tantivy"
TYPES_FILE = "types.npy"
BOOSTS: dict[str, float] = {"name": 2.0, "text": 1.0}
_CHUNK_DOCS = 65_536
_WRITER_HEAP_BYTES = 512_000_000


def index_schema() -> tantivy.Schema:
    """The tantivy schema: name and text (term frequencies), node_id and type (u64, fast)."""
    builder = tantivy.SchemaBuilder()
    for field in FIELDS:
        builder.add_text_field(field, stored=False, tokenizer_name="default", index_option="freq")
    builder.add_unsigned_field("node_id", stored=True, indexed=True, fast=True)
    builder.add_unsigned_field("type", indexed=True, fast=True)
    return builder.build()


def build_index(
    index_dir: Path,
    names: Sequence[str],
    texts: Sequence[str],
    type_codes: np.ndarray,
    *,
    meta: Mapping[str, str] | None = None,
    segment_docs: int | None = None,
) -> None:
    """Build the BM25 index of a snapshot's nodes in ``index_dir``.

    Node ``i`` (its internal id) has ``names[i]``, ``texts[i]`` and ``type_codes[i]``. Writes
    a tantivy index (``index_dir/tantivy``), numpy postings and ``meta.json``.

    Args:
        index_dir: Directory to create; it must not exist or be empty.
        names: Node names (a list or object array of ``str``), indexed in the ``name``
            field (boosted ×2 at query time).
        texts: Node texts, indexed in the ``text`` field.
        type_codes: Integer node type codes (int16), one per node, used by type filters.
        meta: Strings stored verbatim in ``meta.json`` and exposed as :attr:`BM25Index.meta`.
        segment_docs: Commit every this many documents (more segments; for tests). Default:
            one commit, then merges.

    Raises:
        GraphError: On inconsistent lengths, a name or text that is not a ``str``, type codes
            outside ``[0, 32767]`` or a non-empty ``index_dir``.
    """
    started = time.perf_counter()
    codes = np.asarray(type_codes)
    _check_inputs(index_dir, names, texts, codes)
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / TANTIVY_DIR).mkdir()
    _write_tantivy(index_dir / TANTIVY_DIR, names, texts, codes, segment_docs)
    builder, tokenizer = PostingsBuilder(), Tokenizer()
    for start in range(0, len(names), _CHUNK_DOCS):
        stop = min(start + _CHUNK_DOCS, len(names))
        builder.add_chunk("name", start, tokenizer.tokenize_many(names[start:stop]))
        builder.add_chunk("text", start, tokenizer.tokenize_many(texts[start:stop]))
    totals = builder.write(index_dir)
    np.save(index_dir / TYPES_FILE, codes.astype(np.int16))
    info = {
        "format_version": INDEX_FORMAT_VERSION,
        "num_docs": len(names),
        "total_tokens": totals,
        "boosts": BOOSTS,
        "type_counts": np.bincount(codes.astype(np.int64)).tolist() if codes.size else [],
        "meta": dict(meta or {}),
    }
    (index_dir / META_FILE).write_text(json.dumps(info, indent=2, sort_keys=True))
    logger.info("BM25 index of %d nodes built in %.1f s", len(names), time.perf_counter() - started)


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


def _write_tantivy(
    path: Path,
    names: Sequence[str],
    texts: Sequence[str],
    codes: np.ndarray,
    segment_docs: int | None,
) -> None:
    schema = index_schema()
    index = tantivy.Index(schema, path=str(path))
    writer = index.writer(_WRITER_HEAP_BYTES, 1 if segment_docs else 0)
    from_dict = tantivy.Document.from_dict
    for node, (name, text, code) in enumerate(zip(names, texts, codes.tolist(), strict=True)):
        # from_dict types node_id as the schema's u64; Document(node_id=...) would write an i64
        doc = {"name": name, "text": text, "node_id": node, "type": code}
        writer.add_document(from_dict(doc, schema))
        if segment_docs and (node + 1) % segment_docs == 0:
            writer.commit()
    writer.commit()
    writer.wait_merging_threads()
