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
from graphs.postings import PostingsBuilder
from graphs.tokenize import DEFAULT_ANALYZER, LEGACY_ANALYZER, Tokenizer

logger = logging.getLogger(__name__)

INDEX_FORMAT_VERSION = 2
"""Version 2: one ``text`` field holding name + text, analyzer recorded; version 1 (still
read): ``name`` ×2 and ``text`` fields scored apart, :data:`LEGACY_ANALYZER`."""
READABLE_VERSIONS = (1, 2)
META_FILE = "meta.json"
TANTIVY_DIR = "tantivy"
TYPES_FILE = "types.npy"
FIELD = "text"
BOOSTS: dict[str, float] = {FIELD: 1.0}
LEGACY_BOOSTS: dict[str, float] = {"name": 2.0, "text": 1.0}
_CHUNK_DOCS = 65_536
_WRITER_HEAP_BYTES = 512_000_000


def index_schema(tokenizer: Tokenizer) -> tantivy.Schema:
    """The tantivy schema: the document (term frequencies), node_id and type (u64, fast)."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(
        FIELD, stored=False, tokenizer_name=tokenizer.tantivy_name, index_option="freq"
    )
    builder.add_unsigned_field("node_id", stored=True, indexed=True, fast=True)
    builder.add_unsigned_field("type", indexed=True, fast=True)
    return builder.build()


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
    segment_docs: int | None = None,
    analyzer: str = DEFAULT_ANALYZER,
) -> None:
    """Build the BM25 index of a snapshot's nodes in ``index_dir``.

    Node ``i`` (its internal id) has ``names[i]``, ``texts[i]`` and ``type_codes[i]``; its
    document is :func:`document_text` of its name and text, one BM25 field (the paper's
    "inverted index of node textual attributes"; STaRK's documents hold the name too). Writes
    a tantivy index (``index_dir/tantivy``), numpy postings and ``meta.json``.

    Args:
        index_dir: Directory to create; it must not exist or be empty.
        names: Node names (a list or object array of ``str``).
        texts: Node texts.
        type_codes: Integer node type codes (int16), one per node, used by type filters.
        meta: Strings stored verbatim in ``meta.json`` and exposed as :attr:`BM25Index.meta`.
        segment_docs: Commit every this many documents (more segments; for tests). Default:
            one commit, then merges.
        analyzer: One of :data:`graphs.tokenize.ANALYZERS`; recorded in ``meta.json`` and
            used for every query of this index.

    Raises:
        GraphError: On inconsistent lengths, a name or text that is not a ``str``, type codes
            outside ``[0, 32767]``, an unknown analyzer or a non-empty ``index_dir``.
    """
    started = time.perf_counter()
    codes = np.asarray(type_codes)
    tokenizer = Tokenizer(analyzer)
    _check_inputs(index_dir, names, texts, codes)
    documents = [document_text(name, text) for name, text in zip(names, texts, strict=True)]
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / TANTIVY_DIR).mkdir()
    _write_tantivy(index_dir / TANTIVY_DIR, documents, codes, tokenizer, segment_docs)
    builder = PostingsBuilder((FIELD,))
    for start in range(0, len(documents), _CHUNK_DOCS):
        stop = min(start + _CHUNK_DOCS, len(documents))
        builder.add_chunk(FIELD, start, tokenizer.tokenize_many(documents[start:stop]))
    totals = builder.write(index_dir)
    np.save(index_dir / TYPES_FILE, codes.astype(np.int16))
    info = {
        "format_version": INDEX_FORMAT_VERSION,
        "num_docs": len(names),
        "total_tokens": totals,
        "boosts": BOOSTS,
        "analyzer": analyzer,
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


def index_analyzer(info: Mapping[str, object]) -> str:
    """The analyzer an index's ``meta.json`` records (:data:`LEGACY_ANALYZER` when absent)."""
    name = info.get("analyzer", LEGACY_ANALYZER)
    return str(name)


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
    documents: Sequence[str],
    codes: np.ndarray,
    tokenizer: Tokenizer,
    segment_docs: int | None,
) -> None:
    schema = index_schema(tokenizer)
    index = tantivy.Index(schema, path=str(path))
    index.register_tokenizer(tokenizer.tantivy_name, tokenizer.tantivy_analyzer())
    writer = index.writer(_WRITER_HEAP_BYTES, 1 if segment_docs else 0)
    from_dict = tantivy.Document.from_dict
    for node, (document, code) in enumerate(zip(documents, codes.tolist(), strict=True)):
        # from_dict types node_id as the schema's u64; Document(node_id=...) would write an i64
        doc = {FIELD: document, "node_id": node, "type": code}
        writer.add_document(from_dict(doc, schema))
        if segment_docs and (node + 1) % segment_docs == 0:
            writer.commit()
    writer.commit()
    writer.wait_merging_threads()
