"""BM25 index of a snapshot: tantivy for global search, numpy postings to score any node set."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from graphs.errors import GraphError, SnapshotError
from graphs.postings import FIELDS, PostingsBuilder, PostingsScorer
from graphs.tokenize import Tokenizer

logger = logging.getLogger(__name__)

INDEX_FORMAT_VERSION = 1
META_FILE = "meta.json"
TANTIVY_DIR = "tantivy"
BOOSTS: dict[str, float] = {"name": 2.0, "text": 1.0}
MAX_QUERY_TERMS = 256
"""Queries keep at most this many distinct indexed terms (the rest are logged and ignored)."""
_CHUNK_DOCS = 65_536
_WRITER_HEAP_BYTES = 512_000_000


def _schema() -> tantivy.Schema:
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
        names: Node names, indexed in the ``name`` field (boosted ×2 at query time).
        texts: Node texts, indexed in the ``text`` field.
        type_codes: Integer node type codes (int16), one per node, used by type filters.
        meta: Strings stored verbatim in ``meta.json`` and exposed as :attr:`BM25Index.meta`.
        segment_docs: Commit every this many documents (more segments; for tests). Default:
            one commit, then merges.

    Raises:
        GraphError: On inconsistent lengths, negative type codes or a non-empty ``index_dir``.
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
    info = {
        "format_version": INDEX_FORMAT_VERSION,
        "num_docs": len(names),
        "total_tokens": totals,
        "boosts": BOOSTS,
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
    if codes.size and (not np.issubdtype(codes.dtype, np.integer) or codes.min() < 0):
        raise GraphError("node type codes must be non-negative integers")
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
    schema = _schema()
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


class BM25Index:
    """A read-only BM25 index over node names and texts.

    ``search`` ranks all nodes with tantivy; ``score_nodes`` scores a given node set from numpy
    postings with the same statistics (document count, document frequencies, average field
    lengths, quantised field lengths), so both give the same score to a node.
    """

    def __init__(self, index_dir: Path, info: dict[str, Any]) -> None:
        self.path = index_dir
        self.num_docs: int = info["num_docs"]
        self.meta: dict[str, str] = info["meta"]
        self._tokenizer = Tokenizer()
        self._index = tantivy.Index.open(str(index_dir / TANTIVY_DIR))
        self._schema = self._index.schema
        self._searcher = self._index.searcher()
        self._postings = PostingsScorer.load(index_dir, info["total_tokens"], self.num_docs)

    @classmethod
    def open(cls, index_dir: Path) -> BM25Index:
        """Open an index written by :func:`build_index`; never rebuilds anything.

        Raises:
            SnapshotError: If the directory is not a BM25 index of this format version.
        """
        meta_path = Path(index_dir) / META_FILE
        try:
            info = json.loads(meta_path.read_text())
        except (OSError, ValueError) as error:
            raise SnapshotError(
                f"cannot read BM25 index metadata {meta_path} ({error}); rebuild the snapshot"
            ) from error
        if info.get("format_version") != INDEX_FORMAT_VERSION:
            raise SnapshotError(
                f"BM25 index {index_dir} has format version {info.get('format_version')}, "
                f"this ARK reads version {INDEX_FORMAT_VERSION}; rebuild the snapshot"
            )
        try:
            return cls(Path(index_dir), info)
        except (OSError, ValueError, KeyError) as error:
            raise SnapshotError(
                f"BM25 index {index_dir} is incomplete or corrupt ({error}); rebuild the snapshot"
            ) from error

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` exactly as the index sees them (lower-cased, duplicates kept)."""
        return self._tokenizer.tokenize(text)

    def matched_terms(self, query: str) -> list[str]:
        """Distinct query tokens that occur in some node's name or text, in query order."""
        return [token for token, _ in self._query_terms(query)]

    def _query_terms(self, query: str) -> list[tuple[str, int]]:
        terms = []
        for token in self._tokenizer.query_tokens(query):
            term = self._postings.term_id(token)
            if term is not None:
                terms.append((token, term))
        if len(terms) > MAX_QUERY_TERMS:
            logger.warning(
                "query has %d distinct indexed terms; only the first %d are used",
                len(terms),
                MAX_QUERY_TERMS,
            )
            terms = terms[:MAX_QUERY_TERMS]
        return terms

    def search(
        self, query: str, k: int, *, node_types: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rank all nodes by BM25 of ``query`` and return the top ``k``.

        The query is tokenised like the indexed text (never parsed as query syntax), repeated
        tokens count once, and a node scores ``2 × BM25(name) + BM25(text)`` summed over tokens.

        Args:
            query: Any text; empty or punctuation-only text gives an empty result.
            k: Number of results wanted (0 gives an empty result).
            node_types: Keep only nodes of these type codes; None or empty means all types.

        Returns:
            Internal ids (int64) and scores (float32), best first; equal scores are ordered by
            lower id first.

        Raises:
            GraphError: If ``k`` is negative or a type code is outside ``[0, 32767]``.
        """
        if k < 0:
            raise GraphError(f"k must be >= 0, got {k}")
        terms = self._query_terms(query)
        if not terms or k == 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        tantivy_query = self._tantivy_query(terms, node_types)
        limit = min(k + 16, self.num_docs)
        while True:
            hits = self._searcher.search(tantivy_query, limit, count=False).hits
            scores = np.array([score for score, _ in hits], dtype=np.float32)
            if len(hits) < limit or limit >= self.num_docs or scores[-1] < scores[k - 1]:
                break
            limit = min(limit * 4, self.num_docs)  # ties at the cut: widen until they all fit
        ids = np.array(
            self._searcher.fast_field_values("node_id", [address for _, address in hits]),
            dtype=np.int64,
        )
        order = np.lexsort((ids, -scores))[:k]
        return ids[order], scores[order]

    def _tantivy_query(
        self, terms: list[tuple[str, int]], node_types: Sequence[int] | None
    ) -> tantivy.Query:
        clauses = []
        for token, term in terms:
            for field, boost in BOOSTS.items():
                if self._postings.doc_freq(field, term):
                    clause = tantivy.Query.term_query(self._schema, field, token)
                    if boost != 1.0:
                        clause = tantivy.Query.boost_query(clause, boost)
                    clauses.append((tantivy.Occur.Should, clause))
        query = tantivy.Query.boolean_query(clauses)
        if not node_types:
            return query
        codes = [int(code) for code in node_types]
        if min(codes) < 0 or max(codes) > np.iinfo(np.int16).max:
            raise GraphError(f"node type codes must lie in [0, 32767], got {codes}")
        # a bare filter clause would add 1.0 to every score; the wrapper makes it score 0
        type_filter = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(self._schema, "type", codes), 0.0
        )
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, type_filter), (tantivy.Occur.Must, query)]
        )

    def score_nodes(self, query: str, nodes: np.ndarray) -> np.ndarray:
        """BM25 of ``query`` for each given node, equal to the score :meth:`search` gives it.

        Args:
            query: Any text, tokenised as in :meth:`search`.
            nodes: Internal node ids (any order, repeats allowed).

        Returns:
            float32 scores aligned with ``nodes`` (0 for nodes matching no query token).

        Raises:
            GraphError: If ``nodes`` is not a 1-D integer array or an id is outside
                ``[0, num_docs)``.
        """
        nodes = np.asarray(nodes)
        if nodes.ndim != 1 or (nodes.size and not np.issubdtype(nodes.dtype, np.integer)):
            raise GraphError(
                f"nodes must be a 1-D array of integer internal ids, got {nodes.dtype} "
                f"with shape {nodes.shape}"
            )
        if nodes.size and (nodes.min() < 0 or nodes.max() >= self.num_docs):
            raise GraphError(
                f"node ids must lie in [0, {self.num_docs}); got {nodes.min()}..{nodes.max()}"
            )
        terms = [term for _, term in self._query_terms(query)]
        if not nodes.size or not terms:
            return np.zeros(nodes.size, dtype=np.float32)
        unique, inverse = np.unique(nodes, return_inverse=True)
        return self._postings.score(terms, unique.astype(np.int32), BOOSTS)[inverse]
