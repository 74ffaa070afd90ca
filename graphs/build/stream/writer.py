"""Build a snapshot in bounded memory: staged inputs, SQL validation, streamed snapshot files."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from graphs.build.directory import write_part_meta
from graphs.build.options import BuildOptions
from graphs.build.skeleton import (
    BuildRun,
    SnapshotLabels,
    building,
    counts_by_name,
    relation_signatures,
)
from graphs.build.stream.budget import MemoryBudget, default_memory_limit
from graphs.build.stream.checks import CheckedGraph, check_graph
from graphs.build.stream.csr_out import EdgeCounts, write_csr, write_node_types
from graphs.build.stream.engine import arrow_reader, open_engine
from graphs.build.stream.idmap_out import write_id_map_sorted
from graphs.build.stream.index_out import write_index
from graphs.build.stream.parquet_out import kept_batches, kept_rows_bitmap, write_parquet
from graphs.build.stream.progress import Progress, no_progress
from graphs.build.stream.stage import Staged, TableSource, stage_edges, stage_nodes
from graphs.build.stream.store_out import write_node_store_streamed
from graphs.layout import (
    CSR_DIR,
    EDGES_FILE,
    IDS_DIR,
    INDEX_DIR,
    NAMES_DIR,
    NODES_FILE,
    STORE_FILE,
)
from graphs.manifest import (
    FORMAT_VERSION,
    Manifest,
    RelationSignature,
    file_hash,
)
from graphs.snapshot.name_store import write_name_index
from graphs.snapshot.phrases import phrases_of

WORK_DIR = ".work"
"""Scratch inside the temp dir (staged inputs, DuckDB spills, spooled columns); removed."""


def build_snapshot_streaming(
    nodes: TableSource,
    edges: TableSource,
    out: Path,
    *,
    name: str,
    candidate_types: Sequence[str] = (),
    sources: Sequence[str] = (),
    options: BuildOptions | None = None,
    progress: Progress = no_progress,
) -> Path:
    """Validate and write a snapshot like graphs.build.memory.build_snapshot, in bounded memory.

    The same files come out (byte for byte, but for the manifest's build time and timings).
    Peak memory follows ``options.memory_limit`` (default: 25% of the machine's memory,
    capped at 16 GiB), not the graph: inputs are staged to Parquet batch by batch, checked
    and sorted by DuckDB (spilling to disk beyond its share), and every snapshot file is
    written in chunks. Nothing under ``out`` opens until the last step renames it into place;
    an interrupted build leaves only a temp dir that the next build removes.

    Raises:
        GraphImportError: As build_snapshot does.
    """
    options = options or BuildOptions()
    labels = SnapshotLabels(name=name, candidate_types=candidate_types, sources=sources)
    with building(Path(out), options, labels) as run:
        budget = MemoryBudget(limit=options.memory_limit or default_memory_limit())
        work = run.temp / WORK_DIR
        work.mkdir()
        with run.timed("stage"):
            staged_nodes = stage_nodes(
                nodes,
                work / "nodes.parquet",
                allow_empty_text=options.allow_empty_text,
                progress=progress,
            )
            staged_edges = stage_edges(edges, work / "edges.parquet", progress=progress)
        engine = open_engine(budget, work / "spill")
        try:
            with run.timed("validate"):
                progress("validate", 0, None, "rows")
                graph = check_graph(
                    engine,
                    staged_nodes,
                    staged_edges,
                    nodes_file=nodes.label,
                    edges_file=edges.label,
                    strict=options.strict,
                )
                rows = staged_nodes.num_rows + staged_edges.num_rows
                progress("validate", rows, rows, "rows")
            skipped = run.settle_rows(graph, nodes.label, edges.label)
            staged = (staged_nodes, staged_edges)
            manifest = _write_parts(engine, run, work, graph, staged, budget, progress)
        finally:
            engine.close()  # closing twice is harmless: _write_parts closes it before the index
        shutil.rmtree(work)
        return run.finish(manifest, skipped=skipped)


def _write_parts(
    engine: Any,
    run: BuildRun,
    work: Path,
    graph: CheckedGraph,
    staged: tuple[Staged, Staged],
    budget: MemoryBudget,
    progress: Progress,
) -> Manifest:
    temp, analyzer = run.temp, run.options.analyzer
    rows = budget.batch_rows
    with run.timed("write_parquet"):
        for part, file, table in zip(
            staged, (NODES_FILE, EDGES_FILE), ("node_index", "edges_ok"), strict=True
        ):
            reader = arrow_reader(engine, f"SELECT row FROM {table}", rows)
            kept = kept_rows_bitmap(reader, part.num_rows)
            write_parquet(
                temp / file, part.schema, kept_batches(part.path, part.schema, kept, rows)
            )
            progress(f"write {file}", 1, 1, "files")
        content_hash = file_hash(temp)
    with run.timed("node_store"):
        write_node_store_streamed(
            temp / STORE_FILE, temp / NODES_FILE, content_hash, work / "store", rows
        )
        write_id_map_sorted(engine, temp / IDS_DIR, graph.num_nodes, rows)
        write_part_meta(temp / IDS_DIR, content_hash)
        progress("node store and id map", 1, 1, "files")
    with run.timed("csr"):
        node_types = write_node_types(engine, temp / CSR_DIR, graph.num_nodes, rows)
        shape = (graph.num_nodes, graph.num_edges, len(graph.relation_names), len(graph.type_names))
        counts = write_csr(engine, temp / CSR_DIR, node_types, shape, rows, progress)
        write_part_meta(temp / CSR_DIR, content_hash)
    engine.close()  # its tables would sit beside the index build's memory
    with run.timed("index"):
        write_index(
            temp / INDEX_DIR,
            temp / NODES_FILE,
            node_types,
            content_hash=content_hash,
            analyzer=analyzer,
            budget=budget,
            spill_dir=work,
            progress=progress,
        )
    with run.timed("names"):
        write_name_index(
            temp / NAMES_DIR, temp / STORE_FILE, analyzer, content_hash, temp / NODES_FILE
        )
        progress("name index", 1, 1, "files")
    with run.timed("phrases"):
        phrases = phrases_of(temp, graph.relation_names, len(graph.type_names), analyzer)
    return Manifest(
        format_version=FORMAT_VERSION,
        name="",
        num_nodes=graph.num_nodes,
        num_edges=graph.num_edges,
        node_types=counts_by_name(graph.type_names, np.asarray(node_types)),
        relations=dict(zip(graph.relation_names, map(int, counts.relations), strict=True)),
        signatures=_signatures(counts, graph),
        candidate_types=[],
        sources=[],
        analyzer=analyzer,
        relation_phrases=phrases,
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        content_hash=content_hash,
        extra_columns=staged[0].schema.names[4:],
        duplicate_edges=graph.duplicate_edges,
        self_loops=graph.self_loops,
    )


def _signatures(counts: EdgeCounts, graph: CheckedGraph) -> list[RelationSignature]:
    keys = np.flatnonzero(counts.signatures)
    return relation_signatures(
        keys, counts.signatures[keys], graph.relation_names, graph.type_names
    )
