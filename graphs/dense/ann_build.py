"""Building the HNSW indexes of a snapshot's embedding matrices (`ark graph embed --ann`).

Rows are read from the memory-mapped float16 matrix `chunk_rows` at a time, converted to
float32 and inserted, so the build holds the index plus one chunk. The index is written to a
temporary file and renamed; the manifest names it (with its parameters and checksum) only
once it is complete, so an interrupted build leaves no index a reader would open.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from graphs.dense.ann import AnnParams, ann_file
from graphs.dense.ann_backends import create_backend
from graphs.dense.embeddings import (
    AnnInfo,
    EmbeddingManifest,
    Embeddings,
    embed_dir,
    write_embedding_manifest,
)
from graphs.snapshot.checksums import checksum

logger = logging.getLogger(__name__)

ProgressHandler = Callable[[str, int, int], None]


def build_ann_index(
    matrix: np.ndarray,
    path: Path,
    params: AnnParams,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> float:
    """Build the HNSW index of `matrix` (float16[n, dim], unit rows) into file `path`.

    Labels are row numbers. Returns the build's wall seconds.
    """
    started = time.perf_counter()
    rows, dim = matrix.shape
    backend = create_backend(
        params.library,
        dim,
        rows,
        m=params.m,
        ef_construction=params.ef_construction,
        seed=params.seed,
        storage=params.storage,
    )
    threads = params.threads or os.cpu_count() or 1
    for start in range(0, rows, params.chunk_rows):
        stop = min(rows, start + params.chunk_rows)
        chunk = np.asarray(matrix[start:stop], dtype=np.float32)
        backend.add(chunk, np.arange(start, stop, dtype=np.int64), threads)
        if on_progress:
            on_progress(stop, rows)
    temp = path.with_name(path.name + ".tmp")
    backend.save(temp)
    temp.replace(path)
    return time.perf_counter() - started


def build_ann_indexes(
    embeddings: Embeddings,
    params: AnnParams,
    *,
    variants: Sequence[str] | None = None,
    on_progress: ProgressHandler | None = None,
) -> EmbeddingManifest:
    """Index every matrix of `embeddings` (or only `variants`) lacking an index with `params`.

    Returns:
        The manifest, written after each index.
    """
    manifest = embeddings.manifest
    directory = embed_dir(embeddings.snapshot_path)
    for name in variants if variants is not None else embeddings.variants:
        path = directory / ann_file(name)
        if _current(manifest.ann.get(name), path, params):
            continue
        phase = f"ann {name}"

        def report(done: int, total: int, phase: str = phase) -> None:
            if on_progress:
                on_progress(phase, done, total)

        seconds = build_ann_index(embeddings.matrix(name), path, params, on_progress=report)
        info = AnnInfo(
            file=path.name,
            params=params.record(),
            checksum=checksum(path),
            bytes=path.stat().st_size,
            seconds=seconds,
        )
        manifest = manifest.model_copy(update={"ann": {**manifest.ann, name: info}})
        write_embedding_manifest(embeddings.snapshot_path, manifest)
        logger.info("built the %s ANN index in %.1fs (%d bytes)", name, seconds, info.bytes)
    return manifest


def _current(info: AnnInfo | None, path: Path, params: AnnParams) -> bool:
    """Whether the recorded index was built with `params` and its file is intact."""
    return (
        info is not None
        and info.params == params.record()
        and path.is_file()
        and checksum(path) == info.checksum
    )
