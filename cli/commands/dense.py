"""`ark baseline dense`: GME's dense strategies scored like an agent run."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from cli.flags.groups import with_flags
from cli.flags.local_models import EncoderOpt
from cli.flags.paths import SnapshotArg
from cli.flags.run import RunFlags
from cli.guards import user_errors
from cli.output.run_progress import run_with_progress


@with_flags()
def baseline_dense(
    snapshot: SnapshotArg,
    *,
    run: RunFlags,
    encoder: EncoderOpt,
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            help="plain | modified | alternate | two-stage | requery | chained-requery.",
        ),
    ] = "chained-requery",
    variant: Annotated[
        str,
        typer.Option(
            "--variant", help="Graph-modified embeddings: hop1 | hop2 | convex | walk | louvain."
        ),
    ] = "walk",
    control: Annotated[
        str,
        typer.Option(
            "--control",
            help="none | alpha0 (fusion weight 0) | original (fuse in the original space): "
            "the controls without graph conditioning, for the multi-stage strategies.",
        ),
    ] = "none",
    budget: Annotated[
        int, typer.Option("--budget", min=1, help="Nodes returned (paper: 40).")
    ] = 40,
) -> None:
    """Score a dense retriever over `ark graph embed`'s embeddings (no graph at query time)."""
    from graphs.dense.encoder import TextEncoder
    from rank.baselines.dense import run_dense_baseline
    from rank.baselines.dense_strategies import StrategyConfig

    with user_errors(Console(stderr=True), ValueError):
        request = run.request(snapshot)
        config = StrategyConfig(
            strategy=strategy,  # type: ignore[arg-type]  # checked in __post_init__
            variant=variant,
            control=control,  # type: ignore[arg-type]
            budget=budget,
        )
        model = TextEncoder.load(encoder)
    run_with_progress(
        Console(),
        run.out,
        as_json=run.as_json,
        label=config.label,
        execute=lambda **handlers: run_dense_baseline(request, config, model, **handlers),
    )
