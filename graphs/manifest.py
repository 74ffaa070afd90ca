"""The snapshot manifest (manifest.json): format version, counts, types, signatures and hashes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphs.errors import SnapshotError
from graphs.layout import (
    CSR_DIR,
    DOCUMENT_SUFFIXES,
    EDGES_FILE,
    IDS_DIR,
    MANIFEST_FILE,
    NODES_FILE,
    STORE_FILE,
)

FORMAT_VERSION = 1


class RelationSignature(BaseModel):
    """How often a relation links a source node type to a target node type."""

    model_config = ConfigDict(frozen=True)

    relation: str
    source_type: str
    target_type: str
    count: int


class Manifest(BaseModel):
    """Everything a reader needs to know about a snapshot without touching its arrays."""

    model_config = ConfigDict(frozen=True)

    format_version: int = Field(description="Snapshot layout version; must equal FORMAT_VERSION.")
    name: str
    num_nodes: int
    num_edges: int
    node_types: dict[str, int] = Field(description="Type name -> count, in type-code order.")
    relations: dict[str, int] = Field(description="Relation name -> count, in code order.")
    signatures: list[RelationSignature]
    candidate_types: list[str] = Field(description="Node types that can be answers; [] = all.")
    sources: list[str]
    built_at: str
    content_hash: str = Field(description="sha256 of nodes.parquet followed by edges.parquet.")
    extra_columns: list[str]
    file_sizes: dict[str, int] = Field(
        default_factory=dict, description="Byte size of every file the snapshot holds."
    )
    file_checksums: dict[str, str] = Field(
        default_factory=dict,
        description="xxh3-128 of every file the build wrote (graphs/snapshot/checksums.py); "
        "{} for a snapshot built before they were recorded.",
    )
    skipped_rows: int = Field(default=0, description="Invalid input rows skipped at import.")
    duplicate_edges: int = Field(
        default=0, description="Exact repeats of an edge collapsed into one at import."
    )
    self_loops: int = Field(default=0, description="Edges whose source is their target (kept).")
    build_seconds: dict[str, float] = Field(
        default_factory=dict, description="Wall time of each build phase."
    )
    analyzer: str = Field(
        description="Text analyzer of the BM25 index (graphs.bm25.tokenize.ANALYZERS)."
    )
    relation_phrases: dict[str, dict[str, Literal["out", "in"]]] = Field(
        default_factory=dict,
        description="Relation -> the words the graph's texts write for it before a "
        "neighbour's name ('kind' of 'a kind of glass'), stemmed, each with the direction its "
        "text's node has on the edge (graphs/snapshot/phrases.py); {} for a snapshot built "
        "before they were mined.",
    )

    def schema_summary(self) -> dict[str, Any]:
        """The graph's schema as clients are shown it (MCP's schema resource, `ark serve`)."""
        return {
            "name": self.name,
            "num_nodes": self.num_nodes,
            "num_edges": self.num_edges,
            "node_types": dict(self.node_types),
            "relations": dict(self.relations),
            "signatures": [signature.model_dump() for signature in self.signatures],
            "candidate_types": list(self.candidate_types) or list(self.node_types),
        }


def write_manifest(manifest: Manifest, directory: Path) -> None:
    """Write `manifest.json` into `directory`."""
    (directory / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")


def _holds_documents(directory: Path, look_at: int = 200) -> bool:
    """Whether a folder (its first `look_at` entries, recursively) holds document files."""
    for number, file in enumerate(directory.rglob("*")):
        if number >= look_at:
            return False
        if file.suffix.lower() in DOCUMENT_SUFFIXES and file.is_file():
            return True
    return False


def read_manifest(directory: Path) -> Manifest:
    """Read and check `manifest.json` of a snapshot directory.

    Raises:
        SnapshotError: the directory or manifest is missing, unreadable, or of another
            format version.
    """
    path = directory / MANIFEST_FILE
    if directory.exists() and not directory.is_dir():
        raise SnapshotError(
            f"{directory} is a file, not a snapshot directory; pass the directory that "
            "`ark graph import ...` wrote"
        )
    if not directory.is_dir():
        raise SnapshotError(
            f"{directory} is not a snapshot directory (it does not exist); "
            "build one with `ark graph import ...`"
        )
    if not path.is_file():
        if _holds_documents(directory):
            raise SnapshotError(
                f"{directory} holds documents, not a snapshot; build one from them with "
                f"`ark graph extract {directory} --out SNAPSHOT`, then pass SNAPSHOT"
            )
        raise SnapshotError(
            f"{directory} is not a snapshot: {MANIFEST_FILE} is missing "
            "(an interrupted import leaves none); rebuild it with `ark graph import ...`"
        )
    try:
        manifest = Manifest.model_validate_json(path.read_bytes())
    except ValidationError as error:
        version = _raw_version(path)
        if version is not None and version != FORMAT_VERSION:
            raise _version_error(directory, version) from error
        raise SnapshotError(
            f"{path} is not a valid manifest ({error.error_count()} problems, first: "
            f"{error.errors()[0]['msg']}); rebuild the snapshot with `ark graph import ...`"
        ) from error
    if manifest.format_version != FORMAT_VERSION:
        raise _version_error(directory, manifest.format_version)
    return manifest


def _raw_version(path: Path) -> int | None:
    try:
        value = json.loads(path.read_bytes()).get("format_version")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None


def _version_error(directory: Path, version: int) -> SnapshotError:
    return SnapshotError(
        f"snapshot {directory} has format version {version}, this ARK reads version "
        f"{FORMAT_VERSION}; rebuild it with `ark graph import ...`"
    )


def file_hash(directory: Path) -> str:
    """sha256 over nodes.parquet then edges.parquet of a snapshot directory (its content hash)."""
    digest = hashlib.sha256()
    for file in (NODES_FILE, EDGES_FILE):
        with (directory / file).open("rb") as handle:
            while block := handle.read(1 << 22):
                digest.update(block)
    return digest.hexdigest()


def recorded_sizes(directory: Path) -> dict[str, int]:
    """Byte size of every file whose size the manifest records (all but the BM25 index)."""
    files = [directory / NODES_FILE, directory / EDGES_FILE, directory / STORE_FILE]
    files += sorted((directory / CSR_DIR).glob("*")) + sorted((directory / IDS_DIR).glob("*"))
    return {file.relative_to(directory).as_posix(): file.stat().st_size for file in files}
