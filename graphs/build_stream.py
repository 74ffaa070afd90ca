"""Build a snapshot in bounded memory: staged inputs, SQL validation, streamed snapshot files."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from graphs.build_checks import check_candidates, warn_about_rows
from graphs.build_dir import check_target, new_temp, replace_dir, write_part_meta
from graphs.build_options import BuildOptions
from graphs.checksums import file_checksums
from graphs.layout import (
    CSR_DIR,
    EDGES_FILE,
    IDS_DIR,
    INDEX_DIR,
    NAMES_DIR,
    NODES_FILE,
    REPORT_FILE,
    STORE_FILE,
)
from graphs.manifest import (
    FORMAT_VERSION,
    MANIFEST_FILE,
    Manifest,
    RelationSignature,
    file_hash,
    recorded_sizes,
    write_manifest,
)
from graphs.names import write_name_index
from graphs.problems import count_problems, raise_for_problems, write_report
from graphs.stream.budget import MemoryBudget, default_memory_limit, format_size, peak_rss
from graphs.stream.checks import CheckedGraph, check_graph
from graphs.stream.csr_out import EdgeCounts, write_csr, write_node_types
from graphs.stream.engine import arrow_reader, open_engine
from graphs.stream.idmap_out import write_id_map_sorted
from graphs.stream.index_out import write_index
from graphs.stream.parquet_out import kept_batches, kept_rows_bitmap, write_parquet
from graphs.stream.progress import Progress, no_progress
from graphs.stream.stage import Staged, TableSource, stage_edges, stage_nodes
from graphs.stream.store_out import write_node_store_streamed

logger = logging.getLogger(__name__)

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
    """Validate and write a snapshot like graphs.build.build_snapshot, in bounded memory.

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
    out = Path(out)
    check_target(out, options.overwrite)
    budget = MemoryBudget(limit=options.memory_limit or default_memory_limit())
    timings: dict[str, float] = {}
    temp = new_temp(out)
    work = temp / WORK_DIR
    engine = None
    try:
        work.mkdir()
        with _timed(timings, "stage"):
            staged_nodes = stage_nodes(
                nodes,
                work / "nodes.parquet",
                allow_empty_text=options.allow_empty_text,
                progress=progress,
            )
            staged_edges = stage_edges(edges, work / "edges.parquet", progress=progress)
        engine = open_engine(budget, work / "spill")
        with _timed(timings, "validate"):
            progress("validate", 0, None, "rows")
            graph = check_graph(
                engine,
                staged_nodes,
                staged_edges,
                nodes_file=nodes.label,
                edges_file=edges.label,
                strict=options.strict,
            )
            progress(
                "validate",
                staged_nodes.num_rows + staged_edges.num_rows,
                staged_nodes.num_rows + staged_edges.num_rows,
                "rows",
            )
        check_candidates(candidate_types, graph.type_names)
        skipped = _handle_problems(graph, temp, out, options, nodes.label, edges.label)
        manifest = _write_parts(
            engine,
            temp,
            work,
            graph,
            (staged_nodes, staged_edges),
            budget,
            timings,
            options.analyzer,
            progress,
        )
        engine.close()
        engine = None
        shutil.rmtree(work)
        manifest = manifest.model_copy(
            update={
                "name": name,
                "candidate_types": list(candidate_types),
                "sources": [str(source) for source in sources],
                "skipped_rows": skipped,
                "file_sizes": recorded_sizes(temp),
                "file_checksums": file_checksums(temp, skip=[MANIFEST_FILE]),
            }
        )
        write_manifest(manifest, temp)
        replace_dir(temp, out)
    except BaseException:
        if engine is not None:
            engine.close()
        shutil.rmtree(temp, ignore_errors=True)
        raise
    logger.info(
        "snapshot %s: %d nodes, %d edges (%s)",
        out,
        manifest.num_nodes,
        manifest.num_edges,
        ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()),
    )
    return out


class _timed:
    def __init__(self, timings: dict[str, float], phase: str) -> None:
        self._timings, self._phase = timings, phase

    def __enter__(self) -> None:
        self._started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self._timings[self._phase] = round(time.perf_counter() - self._started, 3)
        logger.info(
            "phase %s: %.1f s, peak memory so far %s",
            self._phase,
            self._timings[self._phase],
            format_size(peak_rss()),
        )


def _handle_problems(
    graph: CheckedGraph,
    temp: Path,
    out: Path,
    options: BuildOptions,
    nodes_file: str,
    edges_file: str,
) -> int:
    skipped = count_problems(graph.problems)
    if not options.skip_invalid:
        raise_for_problems(graph.problems)
    warn_about_rows(
        nodes_file,
        edges_file,
        graph.name_as_text,
        graph.num_nodes,
        graph.duplicate_edges,
        graph.self_loops,
    )
    if skipped:
        report = options.report_path or temp / REPORT_FILE
        write_report(graph.problems, report)
        logger.info(
            "skipped %d invalid rows; every one is listed in %s",
            skipped,
            out / REPORT_FILE if options.report_path is None else report,
        )
    return skipped


def _write_parts(
    engine: Any,
    temp: Path,
    work: Path,
    graph: CheckedGraph,
    staged: tuple[Staged, Staged],
    budget: MemoryBudget,
    timings: dict[str, float],
    analyzer: str,
    progress: Progress,
) -> Manifest:
    rows = budget.batch_rows
    with _timed(timings, "write_parquet"):
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
    with _timed(timings, "node_store"):
        write_node_store_streamed(
            temp / STORE_FILE, temp / NODES_FILE, content_hash, work / "store", rows
        )
        write_id_map_sorted(engine, temp / IDS_DIR, graph.num_nodes, rows)
        write_part_meta(temp / IDS_DIR, content_hash)
        progress("node store and id map", 1, 1, "files")
    with _timed(timings, "csr"):
        node_types = write_node_types(engine, temp / CSR_DIR, graph.num_nodes, rows)
        shape = (graph.num_nodes, graph.num_edges, len(graph.relation_names), len(graph.type_names))
        counts = write_csr(engine, temp / CSR_DIR, node_types, shape, rows, progress)
        write_part_meta(temp / CSR_DIR, content_hash)
    engine.close()  # its tables would sit beside the index build's memory
    with _timed(timings, "index"):
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
    with _timed(timings, "names"):
        write_name_index(temp / NAMES_DIR, temp / STORE_FILE, analyzer, content_hash)
        progress("name index", 1, 1, "files")
    type_counts = np.bincount(np.asarray(node_types), minlength=len(graph.type_names))
    return Manifest(
        format_version=FORMAT_VERSION,
        name="",
        num_nodes=graph.num_nodes,
        num_edges=graph.num_edges,
        node_types=dict(zip(graph.type_names, map(int, type_counts), strict=True)),
        relations=dict(zip(graph.relation_names, map(int, counts.relations), strict=True)),
        signatures=_signatures(counts, graph),
        candidate_types=[],
        sources=[],
        analyzer=analyzer,
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        content_hash=content_hash,
        extra_columns=staged[0].schema.names[4:],
        duplicate_edges=graph.duplicate_edges,
        self_loops=graph.self_loops,
        build_seconds=timings,
    )


def _signatures(counts: EdgeCounts, graph: CheckedGraph) -> list[RelationSignature]:
    types = max(len(graph.type_names), 1)
    signatures = []
    for key in np.flatnonzero(counts.signatures).tolist():
        rest, target = divmod(key, types)
        relation, source = divmod(rest, types)
        signatures.append(
            RelationSignature(
                relation=graph.relation_names[relation],
                source_type=graph.type_names[source],
                target_type=graph.type_names[target],
                count=int(counts.signatures[key]),
            )
        )
    return signatures
