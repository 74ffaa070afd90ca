"""`ark graph synth`: generate a synthetic benchmark graph with exact gold questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from cli.flags.groups import with_flags
from cli.flags.imports import SYNTH_WITHOUT, ImportFlags
from cli.flags.paths import out_dir
from cli.guards import fail


def register(graph_app: typer.Typer) -> None:
    """Add `synth` to the `graph` command group."""
    graph_app.command("synth")(synth)


@with_flags(without={"import_flags": SYNTH_WITHOUT})
def synth(
    domain: Annotated[str, typer.Option("--domain", help="products, academic or biomed.")],
    out: Annotated[
        Path, typer.Option("--out", help="Snapshot directory to create.", parser=out_dir)
    ],
    seed: Annotated[
        int, typer.Option("--seed", help="Random seed; same seed and size, same output.")
    ] = 0,
    nodes: Annotated[
        int | None,
        typer.Option("--nodes", help="Approximate node count (default: a ~6,000-node demo graph)."),
    ] = None,
    *,
    import_flags: ImportFlags,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Generate a snapshot plus train/val/test questions (OUT/qa/*.jsonl) with exact gold."""
    from graphs.synth.generate import DOMAINS, generate

    if domain not in DOMAINS:
        fail(f"unknown --domain {domain!r}; choose one of: {', '.join(DOMAINS)}")
    result = generate(domain, seed, out, nodes, options=import_flags.options())
    summary = {
        "snapshot": str(result.snapshot),
        "domain": result.domain,
        "nodes": result.num_nodes,
        "edges": result.num_edges,
        "splits": result.split_counts,
        "families": result.family_counts,
        "qa_files": {split: str(path) for split, path in result.qa_files.items()},
    }
    if as_json:
        print(json.dumps(summary))
        return
    print(
        f"wrote {result.domain} snapshot to {result.snapshot}: "
        f"{result.num_nodes:,} nodes, {result.num_edges:,} edges"
    )
    for split, path in result.qa_files.items():
        print(f"  {split:<5} {result.split_counts[split]:>5} questions  {path}")
    print("  families: " + ", ".join(f"{f} {n}" for f, n in result.family_counts.items()))
