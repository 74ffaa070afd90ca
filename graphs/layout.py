"""The names of a snapshot's files and folders, shared by the code that writes and reads them.

A snapshot directory holds::

    manifest.json            counts, types, signatures, sizes, content hash (graphs/manifest.py)
    nodes.parquet            the validated node table (hashed into the content hash)
    edges.parquet            the validated edge table (hashed into the content hash)
    nodes.arrow              id, name, text in internal order (graphs/snapshot/nodestore.py)
    skipped_rows.csv         invalid input rows, when some were skipped
    ids/                     sorted_ids.npy, order.npy, meta.json (graphs/snapshot/idmap.py)
    csr/                     the CSR_ARRAYS as .npy, meta.json (graphs/snapshot/csr.py)
    index/                   vocab.npy, types.npy, text.*.npy, meta.json (graphs/bm25/)
    names/                   keys, nodes, forms, starts, longest, alias_offsets,
                             alias_bytes .npy, meta.json (graphs/snapshot/name_store.py)
    embeddings/              an optional add-on (graphs/dense/embeddings.py)
"""

from __future__ import annotations

from pathlib import Path

MANIFEST_FILE = "manifest.json"
NODES_FILE = "nodes.parquet"
EDGES_FILE = "edges.parquet"
STORE_FILE = "nodes.arrow"
REPORT_FILE = "skipped_rows.csv"
CSR_DIR = "csr"
IDS_DIR = "ids"
INDEX_DIR = "index"
NAMES_DIR = "names"
EMBED_DIR = "embeddings"
META_FILE = "meta.json"
"""In csr/, ids/ and index/: the content hash of the build that wrote the part (and, in
index/, the index's format, analyzer, BM25 parameters and counts)."""

CSR_ARRAYS = ("indptr", "neighbors", "neighbor_types", "relations", "directions", "node_types")
"""The CSR's arrays, each stored as csr/NAME.npy."""
SORTED_IDS_FILE = "sorted_ids.npy"
ID_ORDER_FILE = "order.npy"

INDEX_FORMAT_VERSION = 3
"""The BM25 index format written and read: one field, exact document lengths, the BM25
parameters and every posting's impact and every term's largest impact stored. Older formats
(tantivy's quantised lengths, two fields) are not read: such snapshots must be rebuilt."""
VOCAB_FILE = "vocab.npy"
TYPES_FILE = "types.npy"
INDEX_FIELD = "text"
"""The one BM25 field (a node's name and text)."""
POSTING_ARRAYS = ("indptr", "docs", "tf", "lengths", "impacts", "maxima")
"""The arrays of a BM25 field, each stored as index/FIELD.NAME.npy."""
IMPACTS_SUFFIX = ".impacts.npy"
MAXIMA_SUFFIX = ".maxima.npy"

EMBED_MANIFEST = "manifest.json"
EMBED_PROGRESS_FILE = "progress.json"


def csr_file(directory: Path, name: str) -> Path:
    """The file of CSR array `name` (one of :data:`CSR_ARRAYS`) in a csr/ directory."""
    return directory / f"{name}.npy"


def posting_file(index_dir: Path, field: str, name: str) -> Path:
    """The file of posting array `name` (one of :data:`POSTING_ARRAYS`) of `field`."""
    return index_dir / f"{field}.{name}.npy"


DOCUMENT_SUFFIXES = (".txt", ".md", ".jsonl", ".pdf")
"""The files `ark graph extract` reads (graphs/importers/documents/reader.py); a snapshot path
holding them is pointed at that command (graphs/manifest.py)."""
