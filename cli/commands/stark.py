"""`ark graph import stark`: build a snapshot from a processed STaRK SKB (prime, mag, amazon)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cli.flags.groups import with_flags
from cli.flags.imports import ImportFlags, memory_line, summary_lines
from cli.flags.paths import out_dir
from graphs.build.stream.budget import current_rss
from graphs.build.stream.progress import RateLines


class StarkDataset(StrEnum):
    """STaRK's three semi-structured knowledge bases."""

    prime = "prime"
    mag = "mag"
    amazon = "amazon"


def register(import_app: typer.Typer) -> None:
    """Add this module's commands to the `ark` application."""
    import_app.command("stark")(import_stark_command)


@with_flags()
def import_stark_command(
    root: Annotated[
        Path,
        typer.Option(
            "--root",
            help="STaRK SKB directory: the one holding processed/ (or processed/ itself, or a "
            "data root holding DATASET/processed/). Its pickles are loaded: use trusted files.",
        ),
    ],
    dataset: Annotated[StarkDataset, typer.Option("--dataset", help="Which SKB it holds.")],
    out: Annotated[
        Path, typer.Option("--out", help="Snapshot directory to create.", parser=out_dir)
    ],
    *,
    import_flags: ImportFlags,
    compact: Annotated[
        bool, typer.Option(help="Compact node text as STaRK's get_doc_info(compact=True).")
    ] = False,
) -> None:
    """Import a STaRK SKB; node text is rendered as STaRK's get_doc_info renders it."""
    from graphs.importers.stark import import_stark
    from graphs.importers.stark_text import StarkTextConfig
    from graphs.manifest import read_manifest

    console = Console(stderr=True)
    options = import_flags.options(progress=RateLines(console.print))
    before = current_rss()
    with console.status(f"importing STaRK {dataset.value} from {root} into {out} ..."):
        path = import_stark(
            root,
            dataset.value,
            out,
            options=options,
            text=StarkTextConfig(compact=compact),
        )
    manifest = read_manifest(path)
    print(
        f"snapshot {path}: {manifest.num_nodes:,} nodes, {manifest.num_edges:,} edges, "
        f"{len(manifest.node_types)} node types, {len(manifest.relations)} relations; "
        f"candidate types: {', '.join(manifest.candidate_types) or 'all'}"
    )
    for line in summary_lines(manifest, path, options):
        print(line)
    print(memory_line(options, before))
