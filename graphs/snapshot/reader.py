"""The read-only, memory-mapped graph snapshot: id lookup, node text and typed neighbourhoods."""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphs.bm25.index import BM25Index
from graphs.errors import GraphError, SnapshotError, UnknownNodeError
from graphs.layout import (
    CSR_DIR,
    IDS_DIR,
    INDEX_DIR,
    META_FILE,
    NAMES_DIR,
    NODES_FILE,
    STORE_FILE,
)
from graphs.manifest import Manifest, file_hash, read_manifest
from graphs.snapshot.checksums import check_checksums
from graphs.snapshot.csr import CSR, Neighborhood, check_csr
from graphs.snapshot.idmap import IdMap
from graphs.snapshot.names import NameIndex, snapshot_names
from graphs.snapshot.nodestore import NodeStore
from graphs.snapshot.schema_words import relation_stems, type_stems, whole_type_stems

__all__ = ["Neighborhood", "Snapshot"]

logger = logging.getLogger(__name__)
REBUILD = "rebuild it with `ark graph import ...` (--overwrite)"


class Snapshot:
    """A graph snapshot opened read-only; opening maps files and never rebuilds anything."""

    def __init__(self, path: Path, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest
        self.num_nodes = manifest.num_nodes
        self.num_edges = manifest.num_edges
        self.node_type_names: list[str] = list(manifest.node_types)
        self.relation_names: list[str] = list(manifest.relations)
        self._type_codes = {name: code for code, name in enumerate(self.node_type_names)}
        self._relation_codes = {name: code for code, name in enumerate(self.relation_names)}
        self._csr = CSR(path / CSR_DIR, len(self.node_type_names))
        self._ids = IdMap(path / IDS_DIR)
        self._store = NodeStore(path / STORE_FILE)
        self.node_type_codes: np.ndarray = self._csr.node_types
        self.index = BM25Index.open(path / INDEX_DIR)
        if self.index.analyzer != manifest.analyzer:
            raise SnapshotError(
                f"snapshot {path}: its BM25 index was built with analyzer "
                f"{self.index.analyzer!r}, the manifest says {manifest.analyzer!r}; {REBUILD}"
            )

    @classmethod
    def open(cls, path: str | Path, *, verify: bool = False) -> Snapshot:
        """Open the snapshot directory at `path`.

        Args:
            path: A directory written by `build_snapshot` (e.g. via `ark graph import`).
            verify: Also re-hash nodes.parquet and edges.parquet (reads them fully);
                `ark graph verify` (graphs/verify.py) checks everything.

        Every array's structure (offsets, ids and codes in range) is checked before anything
        reads it, so a damaged file is a SnapshotError here, never a crash later. Every file
        changed since the last open that checked it (its size, time or inode differ) is
        hashed against the checksum the build recorded (graphs/snapshot/checksums.py): a value
        changed in place, even one still in range, is an error at the next open.

        Raises:
            SnapshotError: a file is missing or damaged, or the format version, recorded file
                sizes or content hashes do not match.
        """
        path = Path(path)
        manifest = read_manifest(path)
        _check_sizes(path, manifest)
        for part in (CSR_DIR, IDS_DIR):
            _check_part_hash(path, part, manifest.content_hash)
        check_checksums(path, manifest.file_checksums, REBUILD)
        if verify:
            actual = file_hash(path)
            if actual != manifest.content_hash:
                raise SnapshotError(
                    f"snapshot {path}: nodes.parquet/edges.parquet hash {actual[:12]}... differs "
                    f"from the manifest's {manifest.content_hash[:12]}...; {REBUILD}"
                )
        try:
            snapshot = cls(path, manifest)
            snapshot._check_consistent()
            snapshot.check(full=False)
        except SnapshotError:
            raise
        except (OSError, ValueError, IndexError, TypeError) as exc:
            raise SnapshotError(
                f"snapshot {path}: a part cannot be read ({exc}); {REBUILD}"
            ) from exc
        return snapshot

    def with_candidate_types(self, types: Sequence[str]) -> Snapshot:
        """This snapshot with other candidate (answer) types: the same files, another view.

        Raises:
            GraphError: a type the snapshot does not have (the message lists its types).
        """
        unknown = [name for name in types if name not in self.manifest.node_types]
        if unknown:
            raise GraphError(
                f"no node type {unknown[0]!r} in snapshot {self.path.name}; its types are: "
                f"{', '.join(self.manifest.node_types)}"
            )
        view = copy.copy(self)
        view.manifest = self.manifest.model_copy(update={"candidate_types": list(types)})
        return view

    def check(self, *, full: bool = False) -> None:
        """Check the structural invariants of the CSR, id map and node store.

        Cheap (vectorised, O(nodes + edges)) unless `full`, which adds order and permutation
        checks and Arrow's full validation. The BM25 index checks its own at open.

        Raises:
            SnapshotError: an invariant does not hold (the message names the file).
        """
        try:
            check_csr(self._csr, self.num_nodes, len(self.relation_names), full=full)
            self._ids.check(self.num_nodes, full=full)
            self._store.check(full=full)
        except SnapshotError as error:
            raise SnapshotError(f"snapshot {self.path}: {error}") from error
        if not np.array_equal(self.node_type_codes, self.index.node_types):
            raise SnapshotError(
                f"snapshot {self.path}: csr/node_types.npy and index/types.npy disagree (a file "
                f"is damaged); {REBUILD}"
            )

    def _check_consistent(self) -> None:
        found = {
            "nodes.arrow content hash": self._store.content_hash,
            "index content hash": self.index.meta.get("content_hash", ""),
        }
        for what, value in found.items():
            if value != self.manifest.content_hash:
                raise SnapshotError(
                    f"snapshot {self.path}: {what} {value[:12]!r} does not match the manifest's "
                    f"{self.manifest.content_hash[:12]!r} (parts from different builds); {REBUILD}"
                )
        rows = {
            "csr": self._csr.num_nodes,
            "ids": len(self._ids),
            "nodes.arrow": self._store.num_rows,
            "index": self.index.num_docs,
        }
        for what, count in rows.items():
            if count != self.num_nodes:
                raise SnapshotError(
                    f"snapshot {self.path}: {what} holds {count} nodes, the "
                    f"manifest {self.num_nodes}; {REBUILD}"
                )

    def internal_id(self, external_id: str) -> int:
        """Internal id of the node with `external_id`.

        Raises:
            UnknownNodeError: no node has this id.
        """
        node = self._ids.lookup(external_id)
        if node < 0:
            raise UnknownNodeError(external_id)
        return node

    def find_internal_ids(self, external_ids: Sequence[str]) -> np.ndarray:
        """Internal ids (int64) of many external ids at once; -1 for each unknown id."""
        return self._ids.lookup_many(external_ids)

    def external_id(self, node: int) -> str:
        """External id of internal node `node`."""
        return self._store.get("id", self._checked(node))

    def name(self, node: int) -> str:
        """Name of internal node `node`."""
        return self._store.get("name", self._checked(node))

    def text(self, node: int) -> str:
        """Searchable text of internal node `node` (its name if the input text was empty)."""
        return self._store.get("text", self._checked(node))

    def type_name(self, node: int) -> str:
        """Node type name of internal node `node`."""
        return self.node_type_names[int(self.node_type_codes[self._checked(node)])]

    def texts(self, nodes: np.ndarray) -> list[str]:
        """Searchable texts of many internal nodes at once, aligned with `nodes`."""
        return self._store.get_many("text", self._checked_many(nodes))

    def labels(self, nodes: np.ndarray) -> tuple[list[str], list[str], list[str]]:
        """External ids, names and type names of many internal nodes (one range check)."""
        nodes = self._checked_many(nodes)
        codes = self.node_type_codes[nodes].tolist()
        return (
            self._store.get_many("id", nodes),
            self._store.get_many("name", nodes),
            [self.node_type_names[code] for code in codes],
        )

    def node_columns(self, columns: Sequence[str]) -> dict[str, list[Any]]:
        """Whole columns of the node table (nodes.parquet), the import's extra ones included.

        The memory-mapped store holds ids, names and texts; an importer's other columns (a
        document snapshot's `document` and a fact's relation `label`) are read from the table
        here, once per call.

        Raises:
            SnapshotError: a column the table lacks (the message lists the ones it has).
        """
        path = self.path / NODES_FILE
        try:
            present = pq.read_schema(path).names
        except (OSError, pa.ArrowInvalid) as error:
            raise SnapshotError(f"cannot read {path} ({error}); {REBUILD}") from error
        missing = [column for column in columns if column not in present]
        if missing:
            raise SnapshotError(
                f"{path} has no column {', '.join(missing)} (it has {', '.join(present)}): "
                "the snapshot was not built by the importer that writes it"
            )
        return pq.read_table(path, columns=list(columns)).to_pydict()

    def type_code(self, name: str) -> int:
        """Code of node type `name`.

        Raises:
            GraphError: unknown type; the message lists the valid ones.
        """
        return _code(self._type_codes, name, "node type")

    def relation_code(self, name: str) -> int:
        """Code of relation `name`.

        Raises:
            GraphError: unknown relation; the message lists the valid ones.
        """
        return _code(self._relation_codes, name, "relation")

    @cached_property
    def names(self) -> NameIndex:
        """The name index (graphs/snapshot/names.py): which nodes a run of a question's words names.

        Read from names/, or built in memory once per process for a snapshot written before
        it (`snapshot_names`).

        Raises:
            SnapshotError: names/ is damaged or from another build.
        """
        manifest = self.manifest
        return snapshot_names(
            self.path / NAMES_DIR,
            self.path,
            manifest.analyzer,
            manifest.content_hash,
            self._store.column("name"),
        )

    @cached_property
    def type_name_stems(self) -> frozenset[tuple[str, ...]]:
        """The stemmed word runs that name a node type (graphs/snapshot/schema_words.py)."""
        return type_stems(self.names.name_forms, self.manifest.node_types)

    @cached_property
    def type_whole_stems(self) -> frozenset[tuple[str, ...]]:
        """The stemmed words of each node type's whole name (graphs/snapshot/schema_words.py)."""
        return whole_type_stems(self.names.name_forms, self.manifest.node_types)

    @cached_property
    def relation_name_stems(self) -> frozenset[tuple[str, ...]]:
        """The stemmed word runs that name a relation (graphs/snapshot/schema_words.py)."""
        forms = self.names.name_forms
        return relation_stems(forms, self.manifest.relations, self.type_name_stems)

    @cached_property
    def degrees(self) -> np.ndarray:
        """int64[num_nodes]: edges at each node, both directions counted."""
        return np.diff(self._csr.indptr)

    def text_lengths(self) -> np.ndarray:
        """UTF-8 byte length of every node's text."""
        return self._store.byte_lengths("text")

    def neighbors(
        self,
        node: int,
        *,
        node_types: Sequence[int] | None = None,
        relations: Sequence[int] | None = None,
    ) -> Neighborhood:
        """Neighbours of internal node `node` in both directions.

        Args:
            node: Internal node id.
            node_types: Keep only neighbours of these type codes.
            relations: Keep only edges of these relation codes.
        """
        _check_codes(node_types, self.node_type_names, "node type")
        _check_codes(relations, self.relation_names, "relation")
        return self._csr.neighbors_of(
            self._checked(node), node_types=node_types, relations=relations
        )

    def _checked(self, node: int) -> int:
        if not 0 <= node < self.num_nodes:
            raise self._out_of_range(node)
        return int(node)

    def _checked_many(self, nodes: np.ndarray) -> np.ndarray:
        nodes = np.asarray(nodes)
        if nodes.ndim != 1 or (nodes.size and not np.issubdtype(nodes.dtype, np.integer)):
            raise GraphError(
                f"internal node ids must be a 1-D integer array, got {nodes.dtype} "
                f"with shape {nodes.shape}"
            )
        if nodes.size and (nodes.min() < 0 or nodes.max() >= self.num_nodes):
            raise self._out_of_range(int(nodes[(nodes < 0) | (nodes >= self.num_nodes)][0]))
        return nodes.astype(np.int64, copy=False)

    def _out_of_range(self, node: int) -> GraphError:
        return GraphError(
            f"internal node id {node} is out of range (0..{self.num_nodes - 1}); "
            "map external ids with Snapshot.internal_id"
        )

    def __repr__(self) -> str:
        return f"Snapshot({self.manifest.name!r}, {self.num_nodes} nodes, {self.num_edges} edges)"


def _code(codes: dict[str, int], name: str, what: str) -> int:
    try:
        return codes[name]
    except KeyError:
        raise GraphError(
            f"unknown {what} {name!r}; valid {what}s: {', '.join(codes) or '(none)'}"
        ) from None


def _check_codes(codes: Sequence[int] | None, names: list[str], what: str) -> None:
    if codes is None:
        return
    for code in codes:
        if not 0 <= code < len(names):
            valid = ", ".join(f"{index}={name}" for index, name in enumerate(names))
            raise GraphError(f"unknown {what} code {code}; valid {what} codes: {valid}")


def _check_sizes(path: Path, manifest: Manifest) -> None:
    for relative, size in manifest.file_sizes.items():
        file = path / relative
        if not file.is_file():
            raise SnapshotError(f"snapshot {path} is missing {relative}; {REBUILD}")
        actual = file.stat().st_size
        if actual != size:
            raise SnapshotError(
                f"snapshot {path}: {relative} has {actual} bytes, the manifest recorded {size} "
                f"(changed after the build); {REBUILD}"
            )


def _check_part_hash(path: Path, part: str, content_hash: str) -> None:
    meta = path / part / META_FILE
    try:
        recorded = json.loads(meta.read_text()).get("content_hash")
    except (OSError, ValueError, AttributeError) as error:
        raise SnapshotError(
            f"snapshot {path}: cannot read {part}/{META_FILE}; {REBUILD}"
        ) from error
    if recorded != content_hash:
        raise SnapshotError(
            f"snapshot {path}: {part}/ was built from content {str(recorded)[:12]!r}, the "
            f"manifest says {content_hash[:12]!r}; {REBUILD}"
        )
