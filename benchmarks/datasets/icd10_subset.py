"""A stated subset of the real ICD-10-CM graph, small enough to embed on two CPU cores.

The full graph (benchmarks/datasets/icd10.py, 98,466 codes) takes hours to encode with MiniLM here.
This keeps whole chapters: every chapter except those named in `excluded` (by default the
three largest, 19 injuries, 20 external causes and 13 musculoskeletal, 74% of the codes, most
of them laterality and encounter variants), with every item below them and their edges. The
known-item questions are written by the same writer as the search benchmark's
(`icd_questions`: 10-30 words of an item's own inclusion terms/notes, never its name) and
stored as the subset's `qa/test.jsonl` (family `known_item`).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

DEFAULT_EXCLUDED = ("13", "19", "20")


def chapter_subset(
    full: Path, out: Path, *, excluded: Collection[str] = DEFAULT_EXCLUDED, questions: int = 300
) -> Path:
    """Write the subset snapshot of `full` (an ICD-10-CM snapshot) at `out`, kept if present."""
    from benchmarks.datasets.icd10 import icd_questions

    if (out / "qa" / "test.jsonl").is_file():
        return out
    nodes = pq.read_table(full / "nodes.parquet", columns=["id", "type", "name", "text"])
    edges = pq.read_table(full / "edges.parquet", columns=["src", "dst", "relation"])
    children: dict[str, list[str]] = {}
    for src, dst in zip(edges["src"].to_pylist(), edges["dst"].to_pylist(), strict=True):
        children.setdefault(src, []).append(dst)
    types = dict(zip(nodes["id"].to_pylist(), nodes["type"].to_pylist(), strict=True))
    keep: set[str] = set()
    stack = [code for code, kind in types.items() if kind == "chapter" and code not in excluded]
    while stack:
        code = stack.pop()
        keep.add(code)
        stack.extend(children.get(code, []))
    ids = pa.array(sorted(keep))
    sub_nodes = nodes.filter(pc.is_in(nodes["id"], value_set=ids))
    sub_edges = edges.filter(pc.is_in(edges["dst"], value_set=ids))
    options = BuildOptions(allow_empty_text=True, analyzer="english", overwrite=True)
    build_snapshot(sub_nodes, sub_edges, out, name="icd10cm-subset", options=options)
    (out / "qa").mkdir(exist_ok=True)
    with (out / "qa" / "test.jsonl").open("w", encoding="utf-8") as handle:
        for index, (query, gold) in enumerate(icd_questions(sub_nodes, questions, seed=0)):
            item = {"id": f"icd-{index}", "query": query, "answer_ids": [gold]}
            handle.write(json.dumps(item | {"family": "known_item"}) + "\n")
    return out
