"""Build a snapshot directory from node and edge tables in memory (the skeleton: skeleton.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.bm25.build import build_index
from graphs.build.directory import write_part_meta
from graphs.build.options import BuildOptions, use_streaming
from graphs.build.skeleton import (
    BuildRun,
    SnapshotLabels,
    building,
    counts_by_name,
    relation_signatures,
)
from graphs.build.stream.parquet_out import write_parquet
from graphs.build.stream.stage import table_source
from graphs.build.validate import ValidGraph, validate_graph
from graphs.layout import (
    CSR_DIR,
    EDGES_FILE,
    IDS_DIR,
    INDEX_DIR,
    NAMES_DIR,
    NODES_FILE,
    STORE_FILE,
)
from graphs.manifest import FORMAT_VERSION, Manifest, RelationSignature, file_hash
from graphs.snapshot.csr import build_csr
from graphs.snapshot.idmap import write_id_map
from graphs.snapshot.name_store import write_name_index
from graphs.snapshot.nodestore import write_node_store
from graphs.snapshot.phrases import phrases_of


def build_snapshot(
    nodes: pa.Table,
    edges: pa.Table,
    out: Path,
    *,
    name: str,
    candidate_types: Sequence[str] = (),
    sources: Sequence[str] = (),
    options: BuildOptions | None = None,
    nodes_file: str = "nodes",
    edges_file: str = "edges",
    unreadable_nodes: np.ndarray | None = None,
    unreadable_edges: np.ndarray | None = None,
) -> Path:
    """Validate `nodes` and `edges` and write a snapshot directory at `out`.

    Args:
        nodes: Columns id, type, name, text (strings) plus any extra columns, kept as is.
            A node with empty text is invalid unless `options.allow_empty_text`.
        edges: Columns src, dst (external node ids) and relation. An exact duplicate edge is
            collapsed and a self-loop kept (both counted in the manifest) unless
            `options.strict`, which makes them invalid rows.
        out: The snapshot directory to create.
        name: The snapshot's name, recorded in the manifest.
        candidate_types: Node types that can be answers ([] = all types).
        sources: Input files, recorded in the manifest.
        options: Overwrite, invalid-row, empty-text and strictness settings (default
            `BuildOptions()`).
        nodes_file: Name of the nodes input, used in error messages and the report.
        edges_file: Name of the edges input, used in error messages and the report.
        unreadable_nodes: Rows of `nodes` whose bytes were not UTF-8 (blanked by the reader;
            invalid rows, skipped with `options.skip_invalid`).
        unreadable_edges: The same for `edges`.

    Returns:
        The snapshot directory.

    Raises:
        GraphImportError: `out` exists without `options.overwrite`, a column is missing, a
            candidate type is unknown, or (without `options.skip_invalid`) rows are invalid.
    """
    options = options or BuildOptions()
    out = Path(out)
    if use_streaming(options, edges.num_rows):
        # Imported here: DuckDB loads only for the builds that use it.
        from graphs.build.stream.writer import build_snapshot_streaming

        return build_snapshot_streaming(
            table_source(nodes, unreadable_nodes, nodes_file),
            table_source(edges, unreadable_edges, edges_file),
            out,
            name=name,
            candidate_types=candidate_types,
            sources=sources,
            options=options,
            progress=options.progress,
        )
    labels = SnapshotLabels(name=name, candidate_types=candidate_types, sources=sources)
    with building(out, options, labels) as run:
        with run.timed("validate"):
            graph = validate_graph(
                nodes,
                edges,
                nodes_file=nodes_file,
                edges_file=edges_file,
                allow_empty_text=options.allow_empty_text,
                strict=options.strict,
                unreadable_nodes=unreadable_nodes,
                unreadable_edges=unreadable_edges,
            )
        skipped = run.settle_rows(graph, nodes_file, edges_file)
        return run.finish(_write_parts(run, graph), skipped=skipped)


def _write_parts(run: BuildRun, graph: ValidGraph) -> Manifest:
    temp, analyzer = run.temp, run.options.analyzer
    with run.timed("write_parquet"):
        write_parquet(temp / NODES_FILE, graph.nodes.schema, graph.nodes.to_batches())
        write_parquet(temp / EDGES_FILE, graph.edges.schema, graph.edges.to_batches())
        content_hash = file_hash(temp)
    with run.timed("node_store"):
        write_node_store(temp / STORE_FILE, graph.nodes, content_hash)
        write_id_map(temp / IDS_DIR, graph.nodes.column("id"))
        write_part_meta(temp / IDS_DIR, content_hash)
    with run.timed("csr"):
        build_csr(
            temp / CSR_DIR,
            graph.src,
            graph.dst,
            graph.relation_codes,
            graph.type_codes,
            len(graph.relation_names),
        )
        write_part_meta(temp / CSR_DIR, content_hash)
    with run.timed("index"):
        build_index(
            temp / INDEX_DIR,
            graph.nodes.column("name").to_pylist(),
            graph.nodes.column("text").to_pylist(),
            graph.type_codes,
            meta={"content_hash": content_hash},
            analyzer=analyzer,
        )
    with run.timed("names"):
        write_name_index(
            temp / NAMES_DIR, temp / STORE_FILE, analyzer, content_hash, temp / NODES_FILE
        )
    with run.timed("phrases"):
        phrases = phrases_of(temp, graph.relation_names, len(graph.type_names), analyzer)
    return Manifest(
        format_version=FORMAT_VERSION,
        name="",
        num_nodes=graph.nodes.num_rows,
        num_edges=graph.edges.num_rows,
        node_types=counts_by_name(graph.type_names, graph.type_codes),
        relations=counts_by_name(graph.relation_names, graph.relation_codes),
        signatures=_signatures(graph),
        candidate_types=[],
        sources=[],
        analyzer=analyzer,
        relation_phrases=phrases,
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        content_hash=content_hash,
        extra_columns=graph.nodes.column_names[4:],
        duplicate_edges=graph.duplicate_edges,
        self_loops=graph.self_loops,
    )


def _signatures(graph: ValidGraph) -> list[RelationSignature]:
    num_types = max(len(graph.type_names), 1)
    source = graph.type_codes[graph.src].astype(np.int64)
    target = graph.type_codes[graph.dst].astype(np.int64)
    key = (graph.relation_codes.astype(np.int64) * num_types + source) * num_types + target
    keys, counts = np.unique(key, return_counts=True)
    return relation_signatures(keys, counts, graph.relation_names, graph.type_names)
