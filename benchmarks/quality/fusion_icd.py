"""Stage-2 fusion on a real public graph: ICD-10-CM (PyPI `simple-icd-10-cm`).

Nodes are the classification's chapters, blocks, categories and subcategories, named by
their description, with their inclusion terms / includes / notes as text; edges link each
item to its parent (`parent_of`). Two question families are written from the data:

* known_item: a run of 6-20 words of an item's inclusion terms (never its name);
* under_parent: the same, scoped by the parent's name ("Under <parent>, which entry ...").

Rule-policy agents and BM25 run on val and test; `ark fuse --grid` (static, dynamic) is
tuned on val and applied to test, as in bench_fusion.py.

    .venv/bin/python -m benchmarks.quality.fusion_icd --work /tmp/fusion-icd \
        --out bench-out/fusion_icd.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from benchmarks.harness import ark
from benchmarks.run_tables import heatmap, subset_summary, table
from evals.metrics import PROTOCOL_TITLES, PROTOCOLS
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

SECTIONS = ("get_inclusion_term", "get_includes", "get_notes")


def icd_tables() -> tuple[pa.Table, pa.Table]:
    """Nodes (id, type, name, text) and parent_of edges of ICD-10-CM."""
    import simple_icd_10_cm as icd

    nodes, edges = [], []
    for code in dict.fromkeys(icd.get_all_codes(with_dots=True)):
        kind = next(
            (
                k
                for k in ("chapter", "block", "category", "subcategory")
                if getattr(icd, f"is_{k}")(code)
            ),
            "code",
        )
        lines = []
        for getter in SECTIONS:
            values = getattr(icd, getter)(code) or []
            values = [values] if isinstance(values, str) else values
            if values:
                lines.append("; ".join(values))
        name = icd.get_description(code)
        nodes.append((code, kind, name, "\n".join(lines) or name))
        parent = icd.get_parent(code)
        if parent and parent != code:
            edges.append((parent, code, "parent_of"))
    node_table = pa.table(
        {k: [n[i] for n in nodes] for i, k in enumerate(("id", "type", "name", "text"))}
    )
    edge_table = pa.table(
        {k: [e[i] for e in edges] for i, k in enumerate(("src", "dst", "relation"))}
    )
    return node_table, edge_table


def write_questions(nodes: pa.Table, edges: pa.Table, qa: Path, per_split: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    names = dict(zip(nodes.column("id").to_pylist(), nodes.column("name").to_pylist(), strict=True))
    parent = dict(
        zip(edges.column("dst").to_pylist(), edges.column("src").to_pylist(), strict=True)
    )
    pool = [
        (code, text.split())
        for code, text, name in zip(
            nodes.column("id").to_pylist(), nodes.column("text").to_pylist(),
            nodes.column("name").to_pylist(), strict=True,
        )
        if text != name and len(text.split()) >= 6 and code in parent
    ]  # fmt: skip
    order = rng.permutation(len(pool)).tolist()
    rows = []
    for index in order[: 2 * per_split]:
        code, words = pool[index]
        size = int(rng.integers(6, min(len(words), 20) + 1))
        start = int(rng.integers(0, len(words) - size + 1))
        body = " ".join(words[start : start + size]).strip(" ;,")
        if len(rows) % 2 == 0:
            query, family = f"Which diagnosis code covers {body}?", "known_item"
        else:
            query = f"Under {names[parent[code]]}, which entry is used for {body}?"
            family = "under_parent"
        rows.append({"id": f"icd-{len(rows):05d}", "query": query, "answer_ids": [code],
                     "family": family})  # fmt: skip
    qa.mkdir(parents=True, exist_ok=True)
    half = len(rows) // 2
    for split, part in (("val", rows[:half]), ("test", rows[half:])):
        (qa / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in part))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/fusion-icd"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/fusion_icd.md"))
    parser.add_argument("--questions", type=int, default=150, help="Per split.")
    args = parser.parse_args()
    began = time.perf_counter()
    graph, log = args.work / "icd10cm", args.work / "commands.log"
    args.work.mkdir(parents=True, exist_ok=True)
    if not (graph / "manifest.json").is_file():
        nodes, edges = icd_tables()
        build_snapshot(
            nodes, edges, graph, name="icd10cm", options=BuildOptions(allow_empty_text=True)
        )
        write_questions(nodes, edges, graph / "qa", args.questions, seed=0)
    runs = args.work / "runs"
    for split in ("val", "test"):
        ark("eval", graph, "--qa", graph / "qa", "--split", split, "--out",
            runs / f"rules-{split}", "--json", log=log)  # fmt: skip
        ark("baseline", "bm25", graph, "--qa", graph / "qa", "--split", split, "--out",
            runs / f"bm25-{split}", "--json", log=log)  # fmt: skip
    sources = [f"{runs}/{name}-val,{runs}/{name}-test" for name in ("rules", "bm25")]
    for mode in ("static", "dynamic"):
        ark("fuse", *sources, "--qa", graph / "qa", "--out", runs / f"fused-{mode}", "--grid",
            "--mode", mode, log=log)  # fmt: skip
    rows = [
        subset_summary(runs / "rules-test", None, "agents (rules, n=3)"),
        subset_summary(runs / "bm25-test", None, "BM25 alone"),
        subset_summary(runs / "fused-static", None, "+ BM25, static RRF"),
        subset_summary(runs / "fused-dynamic", None, "+ BM25, dynamic RRF"),
    ]
    lines = ["# Fusion on ICD-10-CM (real public data)", "", f"Command: `{' '.join(sys.argv)}`"]
    for mode in ("static", "dynamic"):
        spec = json.loads((runs / f"fused-{mode}" / "fusion.json").read_text())
        lines.append(f"- `--mode {mode}` froze `{json.dumps(spec['spec'])}`")
    for protocol in PROTOCOLS:
        lines += [f"\n## Test split, {PROTOCOL_TITLES[protocol]} protocol\n", table(rows, protocol)]
    lines += ["\n## Static RRF validation Hit@1 over (w, k)\n",
              heatmap(runs / "fused-static" / "fusion.json")]  # fmt: skip
    lines.append(f"\nTotal wall time {time.perf_counter() - began:.0f}s; commands in {log}.")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
