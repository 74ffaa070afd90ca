"""The one door to a matrix's top-k: the HNSW index when the snapshot has one, else the scan.

Every dense caller (dense_search, the dense baseline and GME strategies, GRASP's anchor
linking, SARG's dense retriever) opens its index here (`open_snapshot_index`), so `--ann` at
`ark graph embed` speeds them all up and `mode="exact"` gives the exact scan back anywhere
(the reference in tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from graphs.dense.ann import AnnIndex, AnnParams
from graphs.dense.cosine import CosineIndex
from graphs.dense.embeddings import PLAIN, Embeddings, EmbeddingsError, embed_dir
from graphs.errors import SnapshotError
from graphs.snapshot.checksums import check_checksums

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

SearchMode = Literal["auto", "exact", "ann"]
SEARCH_MODES: tuple[SearchMode, ...] = ("auto", "exact", "ann")


class QueryScan(Protocol):
    """Many top-k selections for one query (`VectorIndex.query_scan`)."""

    def top_k(
        self,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """(internal ids, cosines) of the k best, best first."""
        ...


class VectorIndex(Protocol):
    """What dense callers use of an index: `CosineIndex` (exact) and `AnnIndex` are two."""

    @property
    def matrix(self) -> np.ndarray:
        """float16[num_nodes, dim], unit rows."""
        ...

    def top_k(
        self,
        query: np.ndarray,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
        candidates: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(internal ids, cosines) of the k best for unit vector `query`, best first."""
        ...

    def scores_of(self, query: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Exact cosines of the given nodes."""
        ...

    def query_scan(self, query: np.ndarray) -> QueryScan:
        """Selections for one query that share whatever work they can."""
        ...


class EncoderIdentity(Protocol):
    """What the opener checks of a query encoder (graphs.dense.encoder.TextEncoder is one)."""

    name: str
    path: Path
    fingerprint: str


def open_snapshot_index(
    snapshot: Snapshot,
    *,
    encoder: EncoderIdentity | None = None,
    variant: str = PLAIN,
    mode: SearchMode = "auto",
) -> CosineIndex | AnnIndex:
    """The top-k index of `snapshot`'s embeddings: the one opener every dense caller uses.

    Args:
        snapshot: The graph whose embeddings (`ark graph embed`) are searched.
        encoder: The query encoder; when given, it must be the one the embeddings were made
            with (queries and nodes must share one model).
        variant: Which matrix (plain or a graph-modified variant).
        mode: See `open_vector_index`.

    Raises:
        EmbeddingsError: no embeddings, embeddings of other content or another encoder, or
            what `open_vector_index` raises.
    """
    embeddings = Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)
    manifest = embeddings.manifest
    if encoder is not None and manifest.encoder_hash != encoder.fingerprint:
        raise EmbeddingsError(
            f"the embeddings of {snapshot.path} were made by encoder {manifest.encoder_name} "
            f"({manifest.encoder_hash[:12]}), not {encoder.name} "
            f"({encoder.fingerprint[:12]}); pass that encoder, or rebuild with "
            f"`ark graph embed {snapshot.path} --encoder {encoder.path} --overwrite`"
        )
    return open_vector_index(embeddings, snapshot.node_type_codes, variant=variant, mode=mode)


def open_vector_index(
    embeddings: Embeddings,
    node_types: np.ndarray,
    *,
    variant: str = PLAIN,
    mode: SearchMode = "auto",
) -> CosineIndex | AnnIndex:
    """The top-k index of one matrix of `embeddings`.

    Args:
        embeddings: The snapshot's embeddings add-on.
        node_types: int16 type code of every node (the snapshot's node_type_codes).
        variant: Which matrix (plain or a graph-modified variant).
        mode: "auto": the HNSW index when one was built for `variant`, else the exact scan;
            "exact": always the scan; "ann": the HNSW index, an error without one.

    Raises:
        EmbeddingsError: no such variant; mode "ann" without an index; the index file was
            changed after its build (checksum).
    """
    exact = CosineIndex(embeddings.matrix(variant), node_types)
    info = embeddings.manifest.ann.get(variant)
    if mode == "exact" or (mode == "auto" and info is None):
        return exact
    path = embeddings.snapshot_path
    if info is None:
        raise EmbeddingsError(
            f"no ANN index for the {variant} embeddings of {path}; build it with "
            f"`ark graph embed {path} --encoder PATH --ann`, or search exactly"
        )
    directory = embed_dir(path)
    remedy = f"rebuild it with `ark graph embed {path} --encoder PATH --ann`"
    try:
        check_checksums(directory, {info.file: info.checksum}, remedy)
    except SnapshotError as error:
        raise EmbeddingsError(str(error)) from error
    return AnnIndex.load(exact, directory / info.file, AnnParams.from_record(info.params))
