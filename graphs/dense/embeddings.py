"""The embeddings add-on of a snapshot: a sidecar manifest and memory-mapped float16 matrices.

Layout, beside the snapshot's own files (a snapshot without it keeps working)::

    SNAPSHOT/embeddings/manifest.json   EmbeddingManifest (written last, after every matrix)
    SNAPSHOT/embeddings/plain.npy       float16[num_nodes, dim], rows L2-normalised
    SNAPSHOT/embeddings/<variant>.npy   one per graph-modified variant (hop1, walk, ...)
    SNAPSHOT/embeddings/progress.json   only while `ark graph embed` is resumable mid-way
    SNAPSHOT/embeddings/<variant>.ann   an HNSW index of a matrix (`ark graph embed --ann`)
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphs.errors import GraphError
from graphs.invariants import LOAD_ERRORS
from graphs.layout import EMBED_DIR, EMBED_MANIFEST

__all__ = [
    "EMBED_DIR",
    "EMBED_MANIFEST",
    "AnnInfo",
    "EmbeddingManifest",
    "Embeddings",
    "EmbeddingsError",
]

EMBED_FORMAT_VERSION = 1
PLAIN = "plain"


class EmbeddingsError(GraphError):
    """The embeddings add-on is missing, incomplete, or built for other content."""


class VariantInfo(BaseModel):
    """How one matrix was made."""

    model_config = ConfigDict(frozen=True)

    file: str
    params: dict[str, Any] = Field(default_factory=dict)
    seconds: float = 0.0
    stats: dict[str, Any] = Field(
        default_factory=dict, description="Solver facts (sweeps, communities, pool sizes)."
    )


class AnnInfo(BaseModel):
    """How one matrix's HNSW index was made (graphs/dense/ann.py reads it)."""

    model_config = ConfigDict(frozen=True)

    file: str
    params: dict[str, Any] = Field(description="AnnParams.record(): library, M, ef, storage.")
    checksum: str = Field(description="xxh3-128 of the index file (graphs/snapshot/checksums.py).")
    bytes: int = Field(description="Size of the index file.")
    seconds: float = 0.0


class EmbeddingManifest(BaseModel):
    """What the embeddings add-on holds and what it was built from."""

    model_config = ConfigDict(frozen=True)

    format_version: int = EMBED_FORMAT_VERSION
    snapshot_hash: str = Field(description="The snapshot manifest's content_hash.")
    num_nodes: int
    dim: int
    encoder_name: str
    encoder_hash: str = Field(description="sha256 of the encoder directory's files.")
    variants: dict[str, VariantInfo] = Field(description="Variant name -> matrix; plain first.")
    ann: dict[str, AnnInfo] = Field(
        default_factory=dict, description="Variant name -> its HNSW index, when built."
    )
    built_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


def embed_dir(snapshot_path: Path) -> Path:
    """The add-on's directory inside a snapshot."""
    return Path(snapshot_path) / EMBED_DIR


def read_embedding_manifest(snapshot_path: Path) -> EmbeddingManifest | None:
    """The sidecar manifest, or None when the snapshot has no finished embeddings.

    Raises:
        EmbeddingsError: the manifest exists but cannot be read.
    """
    path = embed_dir(snapshot_path) / EMBED_MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = EmbeddingManifest.model_validate_json(path.read_bytes())
    except ValidationError as error:
        raise EmbeddingsError(
            f"{path} is not a valid embeddings manifest ({error.errors()[0]['msg']}); "
            f"rebuild it with `ark graph embed {snapshot_path} --encoder PATH`"
        ) from error
    if manifest.format_version != EMBED_FORMAT_VERSION:
        raise EmbeddingsError(
            f"{path} has embeddings format {manifest.format_version}, this ARK reads "
            f"{EMBED_FORMAT_VERSION}; rebuild with `ark graph embed {snapshot_path} --encoder PATH`"
        )
    return manifest


def write_embedding_manifest(snapshot_path: Path, manifest: EmbeddingManifest) -> None:
    """Replace the sidecar manifest atomically (temp file, rename)."""
    directory = embed_dir(snapshot_path)
    temp = directory / (EMBED_MANIFEST + ".tmp")
    temp.write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
    temp.replace(directory / EMBED_MANIFEST)


class Embeddings:
    """The finished embedding matrices of one snapshot, memory-mapped read-only.

    Opening reads only the small manifest and maps the files; rows are paged in when touched.
    """

    def __init__(self, snapshot_path: Path, manifest: EmbeddingManifest) -> None:
        self.snapshot_path = Path(snapshot_path)
        self.manifest = manifest
        self._matrices: dict[str, np.ndarray] = {}

    @classmethod
    def open(cls, snapshot_path: str | Path, *, content_hash: str) -> Embeddings:
        """Open the add-on of the snapshot at `snapshot_path`.

        Args:
            snapshot_path: The snapshot directory.
            content_hash: The snapshot manifest's content_hash; the add-on must match it.

        Raises:
            EmbeddingsError: no finished embeddings, or they were built for other content.
        """
        path = Path(snapshot_path)
        manifest = read_embedding_manifest(path)
        if manifest is None:
            raise EmbeddingsError(
                f"snapshot {path} has no embeddings; build them with "
                f"`ark graph embed {path} --encoder PATH`"
            )
        if manifest.snapshot_hash != content_hash:
            raise EmbeddingsError(
                f"the embeddings in {embed_dir(path)} were built for other snapshot content "
                f"({manifest.snapshot_hash[:12]} vs {content_hash[:12]}); rebuild them with "
                f"`ark graph embed {path} --encoder PATH --overwrite`"
            )
        return cls(path, manifest)

    @property
    def variants(self) -> list[str]:
        """Names of the matrices held (plain first)."""
        return list(self.manifest.variants)

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return self.manifest.dim

    def matrix(self, variant: str = PLAIN) -> np.ndarray:
        """float16[num_nodes, dim] of `variant`, memory-mapped (copy-on-write, never written).

        Raises:
            EmbeddingsError: the variant was not built; the message lists the ones that were.
        """
        if variant not in self._matrices:
            info = self.manifest.variants.get(variant)
            if info is None:
                raise EmbeddingsError(
                    f"no {variant!r} embeddings in {embed_dir(self.snapshot_path)} (built: "
                    f"{', '.join(self.variants)}); add it with `ark graph embed "
                    f"{self.snapshot_path} --encoder PATH --variants {variant}`"
                )
            file = embed_dir(self.snapshot_path) / info.file
            try:
                # "c" maps copy-on-write: writable views for torch without touching the file
                matrix = np.load(file, mmap_mode="c", allow_pickle=False)
            except LOAD_ERRORS as error:
                raise EmbeddingsError(
                    f"cannot read {file} ({error}); rebuild with `ark graph embed "
                    f"{self.snapshot_path} --encoder PATH --overwrite`"
                ) from error
            expected = (self.manifest.num_nodes, self.manifest.dim)
            if matrix.shape != expected or matrix.dtype != np.float16:
                raise EmbeddingsError(
                    f"{file} holds {matrix.dtype}{list(matrix.shape)}, expected "
                    f"float16{list(expected)}; rebuild with `ark graph embed ... --overwrite`"
                )
            self._matrices[variant] = matrix
        return self._matrices[variant]
