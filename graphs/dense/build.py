"""`ark graph embed`: encode every node (resumable, in chunks), then build the GME variants."""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphs.dense.ann import AnnParams
from graphs.dense.ann_build import build_ann_indexes
from graphs.dense.embeddings import (
    PLAIN,
    EmbeddingManifest,
    Embeddings,
    EmbeddingsError,
    VariantInfo,
    embed_dir,
    read_embedding_manifest,
    write_embedding_manifest,
)
from graphs.dense.gme import VARIANT_FUNCTIONS, VARIANTS, GMEParams, normalised
from graphs.dense.gme_graph import SimpleGraph
from graphs.errors import ConfigError
from graphs.layout import CSR_DIR
from graphs.layout import EMBED_PROGRESS_FILE as PROGRESS_FILE
from graphs.snapshot.csr import CSR

if TYPE_CHECKING:
    from graphs.dense.encoder import TextEncoder
    from graphs.snapshot import Snapshot

logger = logging.getLogger(__name__)

ProgressHandler = Callable[[str, int, int], None]
"""Called as (phase, done, total): phase "encode" counts nodes, a variant name counts 0..1,
"ann VARIANT" counts the nodes inserted into that matrix's HNSW index."""


@dataclass(frozen=True, kw_only=True)
class EmbedRequest:
    """One `ark graph embed` run.

    Attributes:
        variants: Graph-modified variants to build besides plain (any of gme.VARIANTS).
        chunk_rows: Nodes encoded between two progress checkpoints (the resume granularity).
        overwrite: Drop existing embeddings (and any partial encoding) first.
        params: The variants' settings (paper defaults).
        ann: Also build an HNSW index of every matrix with these settings (None: none).
    """

    variants: Sequence[str] = VARIANTS
    chunk_rows: int = 2_048
    overwrite: bool = False
    params: GMEParams = field(default_factory=GMEParams)
    ann: AnnParams | None = None

    def __post_init__(self) -> None:
        unknown = [name for name in self.variants if name not in VARIANTS]
        if unknown:
            raise ConfigError(
                f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}"
            )
        if self.chunk_rows < 1:
            raise ConfigError(f"chunk_rows must be >= 1, got {self.chunk_rows}")


def node_text(snapshot: Snapshot, node: int) -> str:
    """What is encoded for a node: its name, then its text when that says more than the name."""
    name, text = snapshot.name(node), snapshot.text(node)
    return name if text == name else f"{name}\n{text}"


def embed_snapshot(
    snapshot: Snapshot,
    encoder: TextEncoder,
    request: EmbedRequest,
    *,
    on_progress: ProgressHandler | None = None,
) -> EmbeddingManifest:
    """Encode `snapshot`'s nodes with `encoder` and build the requested variants.

    Interrupted runs resume: the plain matrix is filled chunk by chunk and progress.json
    records how many rows are done (and with which encoder); the manifest is written only
    when a matrix is complete, so readers never see a partial one. Variants already built
    with the same encoder and settings are kept.

    Raises:
        EmbeddingsError: existing embeddings were made by another encoder (pass overwrite).
    """
    directory = embed_dir(snapshot.path)
    if request.overwrite and directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(exist_ok=True)
    manifest = read_embedding_manifest(snapshot.path)
    if manifest is not None and (
        manifest.encoder_hash != encoder.fingerprint
        or manifest.snapshot_hash != snapshot.manifest.content_hash
    ):
        raise EmbeddingsError(
            f"{directory} holds embeddings from encoder {manifest.encoder_name} "
            f"({manifest.encoder_hash[:12]}) for content {manifest.snapshot_hash[:12]}; "
            "pass --overwrite to replace them"
        )
    if manifest is None:
        seconds = _encode_plain(snapshot, encoder, request.chunk_rows, on_progress)
        manifest = EmbeddingManifest(
            snapshot_hash=snapshot.manifest.content_hash,
            num_nodes=snapshot.num_nodes,
            dim=encoder.dim,
            encoder_name=encoder.name,
            encoder_hash=encoder.fingerprint,
            variants={PLAIN: VariantInfo(file=f"{PLAIN}.npy", seconds=seconds)},
        )
        write_embedding_manifest(snapshot.path, manifest)
        (directory / PROGRESS_FILE).unlink(missing_ok=True)
    manifest = _build_variants(snapshot, manifest, request, on_progress)
    if request.ann is None:
        return manifest
    return build_ann_indexes(
        Embeddings(snapshot.path, manifest), request.ann, on_progress=on_progress
    )


def _encode_plain(
    snapshot: Snapshot,
    encoder: TextEncoder,
    chunk_rows: int,
    on_progress: ProgressHandler | None,
) -> float:
    directory = embed_dir(snapshot.path)
    progress_path, matrix_path = directory / PROGRESS_FILE, directory / f"{PLAIN}.npy"
    state = {
        "encoder_hash": encoder.fingerprint,
        "snapshot_hash": snapshot.manifest.content_hash,
        "dim": encoder.dim,
    }
    done, seconds = _resume_point(progress_path, matrix_path, state)
    n = snapshot.num_nodes
    if done == 0:
        matrix = np.lib.format.open_memmap(
            matrix_path, mode="w+", dtype=np.float16, shape=(n, encoder.dim)
        )
    else:
        matrix = np.load(matrix_path, mmap_mode="r+")
        logger.info("resuming the encoding at node %d of %d", done, n)
    while done < n:
        started = time.perf_counter()
        stop = min(n, done + chunk_rows)
        texts = [node_text(snapshot, node) for node in range(done, stop)]
        matrix[done:stop] = encoder.encode(texts).astype(np.float16)
        matrix.flush()
        done, seconds = stop, seconds + time.perf_counter() - started
        _write_json(progress_path, {**state, "rows_done": done, "seconds": seconds})
        if on_progress:
            on_progress("encode", done, n)
    del matrix
    return seconds


def _resume_point(progress: Path, matrix: Path, state: dict) -> tuple[int, float]:
    if not (progress.is_file() and matrix.is_file()):
        return 0, 0.0
    try:
        recorded = json.loads(progress.read_text())
    except ValueError:
        return 0, 0.0
    if any(recorded.get(key) != value for key, value in state.items()):
        logger.info("partial encoding was made by another encoder or content; starting over")
        return 0, 0.0
    return int(recorded.get("rows_done", 0)), float(recorded.get("seconds", 0.0))


def _build_variants(
    snapshot: Snapshot,
    manifest: EmbeddingManifest,
    request: EmbedRequest,
    on_progress: ProgressHandler | None,
) -> EmbeddingManifest:
    wanted = [
        name
        for name in request.variants
        if name not in manifest.variants
        or manifest.variants[name].params != request.params.for_variant(name)
    ]
    if not wanted:
        return manifest
    directory = embed_dir(snapshot.path)
    x = np.load(directory / f"{PLAIN}.npy").astype(np.float32)
    csr = CSR(snapshot.path / CSR_DIR, len(snapshot.node_type_names))
    graph = SimpleGraph.from_csr(csr.indptr, csr.neighbors)
    for name in wanted:
        if on_progress:
            on_progress(name, 0, 1)
        started = time.perf_counter()
        z, stats = VARIANT_FUNCTIONS[name](x, graph, request.params)
        temp = directory / f"{name}.tmp.npy"
        np.save(temp, normalised(z).astype(np.float16))
        temp.replace(directory / f"{name}.npy")
        info = VariantInfo(
            file=f"{name}.npy",
            params=request.params.for_variant(name),
            seconds=time.perf_counter() - started,
            stats=stats,
        )
        stale = {key: value for key, value in manifest.ann.items() if key != name}
        manifest = manifest.model_copy(
            update={"variants": {**manifest.variants, name: info}, "ann": stale}
        )
        write_embedding_manifest(snapshot.path, manifest)
        logger.info("built %s embeddings in %.1fs (%s)", name, info.seconds, stats)
        if on_progress:
            on_progress(name, 1, 1)
    return manifest


def _write_json(path: Path, value: dict) -> None:
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps(value))
    temp.replace(path)
