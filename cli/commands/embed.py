"""`ark graph embed`: the dense embeddings add-on of a snapshot (plain + graph-modified)."""

from __future__ import annotations

import json
from collections.abc import Callable
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

from cli.flags.local_models import EncoderOpt
from cli.flags.paths import SnapshotArg
from cli.guards import user_errors


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
    ann: Annotated[
        bool,
        typer.Option(
            "--ann",
            help="Also build an HNSW index of every matrix (needs the ann extra); dense search "
            "then uses it instead of the exact scan.",
        ),
    ] = False,
    ann_library: Annotated[
        str, typer.Option("--ann-library", help="hnswlib, faiss or usearch.")
    ] = "hnswlib",
    ann_m: Annotated[int, typer.Option("--ann-m", min=2, help="HNSW links per node (M).")] = 16,
    ann_ef_construction: Annotated[
        int, typer.Option("--ann-ef-construction", min=1, help="HNSW build candidate list.")
    ] = 128,
    ann_ef_search: Annotated[
        int,
        typer.Option("--ann-ef-search", min=1, help="HNSW query candidate list (recall/speed)."),
    ] = 128,
    ann_storage: Annotated[
        str, typer.Option("--ann-storage", help="f32, or f16 (faiss, usearch).")
    ] = "f32",
    as_json: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON.")] = False,
) -> None:
    """Encode every node's name and text and build graph-modified variants (resumable)."""
    from graphs.dense.ann import AnnParams
    from graphs.dense.build import EmbedRequest, embed_snapshot
    from graphs.dense.encoder import TextEncoder
    from graphs.snapshot import Snapshot

    err = Console(stderr=True)
    with user_errors(err, ValueError):
        ann_params = (
            AnnParams(
                library=ann_library,  # type: ignore[arg-type]  # checked by AnnParams
                m=ann_m,
                ef_construction=ann_ef_construction,
                ef_search=ann_ef_search,
                storage=ann_storage,  # type: ignore[arg-type]
            )
            if ann
            else None
        )
        request = EmbedRequest(
            variants=_variant_list(variants),
            chunk_rows=chunk_rows,
            overwrite=overwrite,
            ann=ann_params,
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
    for name, index in manifest.ann.items():
        params = index.params
        console.print(
            f"  {name:<8} HNSW ({params['library']}, M={params['m']}, "
            f"ef_search={params['ef_search']}) {index.bytes / 1e6:,.1f} MB in {index.seconds:.1f}s",
            highlight=False,
        )


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
            label = (
                "encoding nodes"
                if phase == "encode"
                else f"HNSW index {phase[4:]}"
                if phase.startswith("ann ")
                else f"variant {phase}"
            )
            self._tasks[phase] = self._bar.add_task(label, total=total)
        self._bar.update(self._tasks[phase], completed=done)
