"""`ark graph verify`: every content hash, every structural invariant, every part vs its source.

Opening a snapshot checks sizes, build markers and the cheap invariants; this reads every file:
the sha256 of nodes.parquet and edges.parquet against the manifest's content hash, each part's
recorded content hash, the full invariants (orders, permutations, UTF-8, stored BM25 impacts
recomputed), and the derived parts against the hashed tables (node store, id map and type
codes against nodes.parquet, the CSR against edges.parquet, counts against the manifest).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graphs.dense.embeddings import Embeddings, read_embedding_manifest
from graphs.errors import GraphError, SnapshotError
from graphs.layout import CSR_DIR, EDGES_FILE, IDS_DIR, META_FILE, NODES_FILE, STORE_FILE
from graphs.manifest import Manifest, file_hash, read_manifest
from graphs.snapshot import Snapshot
from graphs.snapshot.aliases import read_aliases
from graphs.snapshot.checksums import checksum
from graphs.snapshot.csr import CSR, csr_edges
from graphs.snapshot.idmap import IdMap
from graphs.snapshot.name_store import NameArrays
from graphs.snapshot.names import NameIndex
from graphs.snapshot.nodestore import NodeStore, write_node_store

REBUILD = "rebuild the snapshot with `ark graph import ...` (--overwrite)"


@dataclass(frozen=True)
class Check:
    """One verification step and its outcome.

    Attributes:
        name: What was checked (e.g. "content hash").
        problem: What is wrong, None when the check passed.
        seconds: Wall time of the check.
    """

    name: str
    problem: str | None
    seconds: float


class _Steps:
    """Runs named checks, recording each outcome instead of stopping at the first failure."""

    def __init__(self) -> None:
        self.checks: list[Check] = []

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        problem = None
        try:
            yield
        except GraphError as error:
            problem = str(error)
        except (OSError, pa.ArrowException) as error:  # a missing or unreadable table
            problem = f"{error} ({type(error).__name__}); {REBUILD}"
        self.checks.append(Check(name, problem, round(time.perf_counter() - started, 3)))

    @property
    def failed(self) -> bool:
        return any(check.problem for check in self.checks)


def verify_snapshot(path: str | Path) -> list[Check]:
    """Check everything about the snapshot at `path`; never raises on a damaged snapshot.

    Returns:
        One :class:`Check` per step, in order; a failed step is recorded and the steps that
        need it are skipped (a snapshot that cannot be opened gets no deep checks).
    """
    path = Path(path)
    steps = _Steps()
    with steps.step("manifest"):
        manifest = read_manifest(path)
    if steps.failed:
        return steps.checks
    with steps.step("content hash (nodes.parquet, edges.parquet)"):
        actual = file_hash(path)
        if actual != manifest.content_hash:
            raise SnapshotError(
                f"content hash {actual[:12]}... differs from the manifest's "
                f"{manifest.content_hash[:12]}... (a table changed after the build); {REBUILD}"
            )
    with steps.step("checksums (every file the build wrote)"):
        for relative, expected in manifest.file_checksums.items():
            file = path / relative
            if not file.is_file():
                raise SnapshotError(f"{relative} is missing; {REBUILD}")
            if checksum(file) != expected:
                raise SnapshotError(f"{relative} differs from the build's checksum; {REBUILD}")
    with steps.step("build markers"):
        for part in (CSR_DIR, IDS_DIR):
            _check_marker(path / part / META_FILE, manifest.content_hash)
    with steps.step("open (sizes, cheap invariants)"):
        snapshot = Snapshot.open(path)
    if steps.failed:
        return steps.checks
    deep: list[tuple[str, Callable[[], None]]] = [
        ("full invariants (CSR, ids, nodes.arrow)", lambda: snapshot.check(full=True)),
        ("full invariants (BM25 index)", snapshot.index.check_fully),
        ("nodes against nodes.parquet", lambda: _check_nodes(snapshot, manifest)),
        ("edges against edges.parquet", lambda: _check_edges(snapshot, manifest)),
        ("name index against the names", lambda: _check_names(snapshot)),
    ]
    for name, check in deep:
        with steps.step(name):
            check()
    if read_embedding_manifest(path) is not None:
        with steps.step("embeddings"):
            _check_embeddings(path, manifest)
    return steps.checks


def _check_names(snapshot: Snapshot) -> None:
    """names/ equals the index rebuilt from nodes.arrow's names and nodes.parquet's aliases."""
    stored = snapshot.names
    names = [snapshot.name(node) for node in range(snapshot.num_nodes)]
    aliases = read_aliases(snapshot.path / NODES_FILE)
    built = NameIndex.from_names(names, snapshot.manifest.analyzer, aliases)
    same = all(
        np.array_equal(np.asarray(getattr(stored.arrays, name)), getattr(built.arrays, name))
        for name in NameArrays.FILES
    )
    if not same:
        raise SnapshotError(
            "names/ differs from the names in nodes.arrow and the aliases in nodes.parquet; "
            "rebuild the snapshot"
        )


def _check_marker(meta: Path, content_hash: str) -> None:
    try:
        recorded = json.loads(meta.read_text()).get("content_hash")
    except (OSError, ValueError, AttributeError) as error:
        raise SnapshotError(f"cannot read {meta} ({error}); {REBUILD}") from error
    if recorded != content_hash:
        raise SnapshotError(f"{meta} names another build's content; {REBUILD}")


def _check_nodes(snapshot: Snapshot, manifest: Manifest) -> None:
    table = pq.read_table(snapshot.path / NODES_FILE, columns=["id", "type", "name", "text"])
    store = NodeStore(snapshot.path / STORE_FILE)
    for column in ("id", "name", "text"):
        stored = store.column(column)
        if not stored.equals(table.column(column).combine_chunks().cast(stored.type)):
            raise SnapshotError(f"nodes.arrow column {column} differs from {NODES_FILE}; {REBUILD}")
    with tempfile.TemporaryDirectory() as temp:
        rebuilt = Path(temp) / STORE_FILE
        write_node_store(rebuilt, table, manifest.content_hash)
        if rebuilt.read_bytes() != (snapshot.path / STORE_FILE).read_bytes():
            raise SnapshotError(
                f"{STORE_FILE} differs from the store rebuilt from {NODES_FILE}; {REBUILD}"
            )
    by_node = IdMap(snapshot.path / IDS_DIR).ids_by_node()
    expected = np.asarray(table.column("id").cast(pa.binary()).to_numpy(zero_copy_only=False))
    if not np.array_equal(by_node, expected.astype(by_node.dtype)):
        raise SnapshotError(f"ids/ does not map every id to its row of {NODES_FILE}; {REBUILD}")
    type_names = pa.array(list(manifest.node_types), pa.string())
    types = _positions(table.column("type"), type_names)
    if not np.array_equal(types, snapshot.node_type_codes):
        raise SnapshotError(f"csr/node_types.npy differs from the types in {NODES_FILE}; {REBUILD}")
    counts = np.bincount(types, minlength=len(type_names)).tolist()
    if counts != list(manifest.node_types.values()):
        raise SnapshotError(f"the manifest's node type counts differ from the nodes; {REBUILD}")


def _check_edges(snapshot: Snapshot, manifest: Manifest) -> None:
    table = pq.read_table(snapshot.path / EDGES_FILE, columns=["src", "dst", "relation"])
    node_ids = pq.read_table(snapshot.path / NODES_FILE, columns=["id"]).column("id")
    src, dst = (_positions(table.column(end), node_ids) for end in ("src", "dst"))
    relation_names = pa.array(list(manifest.relations), pa.string())
    relations = _positions(table.column("relation"), relation_names)
    csr = CSR(snapshot.path / CSR_DIR, len(manifest.node_types))
    stored = csr_edges(csr)
    spans = (snapshot.num_nodes, len(relation_names))
    expected = _edge_keys(src, relations, dst, *spans)
    if not np.array_equal(expected, _edge_keys(stored[:, 0], stored[:, 1], stored[:, 2], *spans)):
        raise SnapshotError(f"the CSR's edges differ from {EDGES_FILE}; {REBUILD}")
    incoming = csr.directions < 0
    anchors = np.repeat(np.arange(csr.num_nodes, dtype=np.int64), np.diff(csr.indptr))
    mirrored = _edge_keys(
        csr.neighbors[incoming].astype(np.int64),
        csr.relations[incoming].astype(np.int64),
        anchors[incoming],
        *spans,
    )
    if not np.array_equal(mirrored, expected):
        raise SnapshotError(f"the CSR's incoming entries differ from its outgoing ones; {REBUILD}")
    counts = np.bincount(relations, minlength=len(relation_names)).tolist()
    if counts != list(manifest.relations.values()) or len(stored) != manifest.num_edges:
        raise SnapshotError(f"the manifest's edge counts differ from the edges; {REBUILD}")


def _positions(values: pa.ChunkedArray, universe: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Index of each value in `universe` (int64); a value not in it is an error."""
    found = pc.index_in(values, value_set=universe)
    if found.null_count:
        raise SnapshotError(
            f"{found.null_count} ids, types or relations in the tables are unknown to the "
            f"snapshot's parts; {REBUILD}"
        )
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int64)


def _edge_keys(
    src: np.ndarray, relation: np.ndarray, dst: np.ndarray, num_nodes: int, num_relations: int
) -> np.ndarray:
    """One sortable key per edge, sorted (a packed int64 when it fits, else row order)."""
    span, kinds = max(num_nodes, 1), max(num_relations, 1)
    if span * span * kinds < 2**62:
        return np.sort((src * kinds + relation) * span + dst)
    rows = np.stack((src, relation, dst), axis=1)
    return rows[np.lexsort(rows.T[::-1])].ravel()


def _check_embeddings(path: Path, manifest: Manifest) -> None:
    embeddings = Embeddings.open(path, content_hash=manifest.content_hash)
    for variant in embeddings.variants:
        matrix = embeddings.matrix(variant)
        if not bool(np.isfinite(matrix).all()):
            raise SnapshotError(f"embeddings/{variant}: a value is not finite; rebuild them")
