"""The BM25 index of a streamed build: node names and texts read back from nodes.parquet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from graphs.bm25.build import build_index_streaming
from graphs.build.stream.budget import MemoryBudget
from graphs.build.stream.progress import Progress


def write_index(
    index_dir: Path,
    nodes_parquet: Path,
    type_codes: np.ndarray,
    *,
    content_hash: str,
    analyzer: str,
    budget: MemoryBudget,
    spill_dir: Path,
    progress: Progress,
) -> None:
    """Build the same index as graphs.bm25.build.build_index, within ``budget``."""

    def report(phase: str, done: int, total: int) -> None:
        progress(f"index {phase}", done, total, "nodes" if phase == "tokenize" else "postings")

    spill_dir.mkdir(parents=True, exist_ok=True)
    build_index_streaming(
        index_dir,
        _names_and_texts(nodes_parquet, budget.batch_rows),
        type_codes,
        meta={"content_hash": content_hash},
        analyzer=analyzer,
        memory_limit_bytes=budget.engine_bytes,
        spill_dir=spill_dir,
        workers=budget.threads,
        progress=report,
    )


def _names_and_texts(nodes_parquet: Path, batch_rows: int) -> Iterator[tuple[list, list]]:
    parquet = pq.ParquetFile(nodes_parquet, pre_buffer=False)  # pre-buffering piles up
    for batch in parquet.iter_batches(batch_size=batch_rows, columns=["name", "text"]):
        yield batch.column(0).to_pylist(), batch.column(1).to_pylist()
