"""`ark distill reranker`: build listwise training data from a fused pool and LoRA-train on it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cli.flags.groups import with_flags
from cli.flags.paths import out_dir
from cli.flags.rerank import RerankDocFlags
from cli.guards import fail


@with_flags()
def reranker(
    source: Annotated[
        str,
        typer.Argument(
            help="The stage-2 ranking over the training split (e.g. `ark fuse ... --split "
            "train --spec fusion.json`): a run dir or JSONL."
        ),
    ],
    qa: Annotated[Path, typer.Option("--qa", help="Questions (gold answers, splits).")],
    base_model: Annotated[
        str,
        typer.Option(
            "--base-model", help="Causal LM to fine-tune: a transformers dir or name, or a .gguf."
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Adapter directory to write.", parser=out_dir)
    ],
    *,
    doc: RerankDocFlags,
    split: Annotated[str, typer.Option("--split", help="Split to train on.")] = "train",
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N questions.")
    ] = None,
    snapshot: Annotated[
        Path | None, typer.Option("--snapshot", help="Snapshot (default: the source's).")
    ] = None,
    depth: Annotated[int, typer.Option("--depth", min=1, help="Pool depth (GRASP: 100).")] = 100,
    hard_negatives: Annotated[
        int, typer.Option("--hard-negatives", min=1, help="Negatives stored per question (30).")
    ] = 30,
    group_size: Annotated[
        int | None, typer.Option("--group-size", min=2, help="Chats per group (GRASP: 24).")
    ] = None,
    grad_accum: Annotated[
        int | None,
        typer.Option("--grad-accum", min=1, help="Groups per optimizer step (GRASP: 16)."),
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", min=1, help="Stop after N optimizer steps.")
    ] = None,
    max_length: Annotated[
        int | None, typer.Option("--max-length", min=16, help="Tokens per chat (1024).")
    ] = None,
    learning_rate: Annotated[
        float | None, typer.Option("--learning-rate", help="Peak learning rate (3e-5).")
    ] = None,
    epochs: Annotated[float | None, typer.Option("--epochs", help="Epochs (2).")] = None,
    max_minutes: Annotated[
        float | None, typer.Option("--max-minutes", help="Stop after this much wall time.")
    ] = None,
) -> None:
    """Train a listwise LoRA reranker on a fused pool's positives and hard negatives."""
    from agent.models.hf.loader import load_tokenizer
    from distill.reranker_data import RerankDataOptions, build_records, write_data
    from distill.reranker_train import RerankerTrainConfig, train_reranker
    from evals.qa.sets import load_qa
    from graphs.snapshot import Snapshot
    from rank.rankings import read_rankings
    from rank.rerank.doc import RerankPrompt
    from rank.rerank.models import ModelSource

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    err = Console(stderr=True)
    console = Console()
    options = RerankDataOptions(
        pool_depth=depth, hard_negatives=hard_negatives,
        doc=doc.doc(),
    )  # fmt: skip
    config = RerankerTrainConfig().with_overrides(
        group_size=group_size, gradient_accumulation_steps=grad_accum, max_steps=max_steps,
        max_length=max_length, learning_rate=learning_rate, num_train_epochs=epochs,
        max_minutes=max_minutes,
    )  # fmt: skip
    ranking = read_rankings(source)
    snapshot_path = snapshot or ranking.snapshot
    if snapshot_path is None:
        fail("the source names no snapshot; pass --snapshot DIR", err)
    graph = Snapshot.open(snapshot_path)
    items = load_qa(qa, split)[:limit]
    # Text fields are cut in the base model's tokens, as GRASP counts them.
    tokenizer = load_tokenizer(ModelSource.parse(base_model).path)
    records, stats = build_records(ranking, items, graph, options, tokenizer=tokenizer)
    data_dir = write_data(out / "data", records, RerankPrompt.for_snapshot(graph), options)
    console.print(
        f"training data: {stats.kept} questions ({stats.positives} positives, "
        f"{stats.negatives} negatives); skipped {stats.no_positive} without a positive in "
        f"the pool, {stats.no_negative} without a negative, {stats.missing} unranked"
    )
    result = train_reranker(data_dir, base_model, out, config)
    last = (
        f"last loss {result.losses[-1][1]:.4f}"
        if result.losses
        else "no loss logged (no optimizer step ran: too few training groups?)"
    )
    console.print(f"trained {result.global_step} steps; {last}")
    console.print(f"adapter saved to {out}; rerank with `ark rerank ... --model hf:{out}`")
