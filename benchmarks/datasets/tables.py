"""A benchmark graph from its node and edge tables: the tables kept beside the snapshot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions


def write_graph(
    out: Path, nodes: pa.Table, edges: pa.Table, *, name: str, source: str, questions: Path
) -> Path:
    """Build the snapshot at `out` (replacing it) with every node type a candidate answer.

    The tables are written to out.tables/ (nodes.parquet, edges.parquet: what the question
    checks read) and the question files (*.jsonl) of `questions` copied to out/qa/.
    """
    tables = out.with_name(out.name + ".tables")
    tables.mkdir(parents=True, exist_ok=True)
    pq.write_table(nodes, tables / "nodes.parquet")
    pq.write_table(edges, tables / "edges.parquet")
    build_snapshot(
        nodes,
        edges,
        out,
        name=name,
        candidate_types=sorted(set(nodes.column("type").to_pylist())),
        sources=[source],
        options=BuildOptions(overwrite=True),
    )
    (out / "qa").mkdir(exist_ok=True)
    for found in sorted(questions.glob("*.jsonl")):
        shutil.copyfile(found, out / "qa" / found.name)
    return out
