"""Commands of the `ark` CLI (distill): dataset, train, config, merge (and the registrations)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cli.commands import direction, reranker
from cli.flags.paths import out_dir
from cli.guards import fail

KeepOpt = Annotated[
    str,
    typer.Option(
        "--keep",
        help="all: every trajectory (label-free, the paper's setting); best-recall: per question "
        "the trajectory with the best recall@20 against gold (needs labels).",
    ),
]


def dataset(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories written by `ark eval`.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Dataset directory to write.", parser=out_dir)
    ],
    val_source: Annotated[
        str,
        typer.Option(
            "--val-source",
            help="auto: the question set's official val split when the runs hold its questions "
            "(run the teacher with --split val too), else a random --val-fraction; official: "
            "require it; random: always a random share.",
        ),
    ] = "auto",
    val_fraction: Annotated[
        float,
        typer.Option(
            "--val-fraction", help="Share of questions held out when the split is random."
        ),
    ] = 0.1,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            help="Keep a random N of the training questions (the paper: up to 6,000), seeded "
            "by --seed; with one seed a smaller sample is nested in a larger one.",
        ),
    ] = None,
    keep: KeepOpt = "all",
    system_prompt: Annotated[
        bool,
        typer.Option(
            "--include-system-prompt/--no-system-prompt",
            help="Keep the agent's system prompt in every row.",
        ),
    ] = True,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the random split and of --sample.")
    ] = 0,
    tokenizer: Annotated[
        str | None,
        typer.Option(
            "--tokenizer",
            help="Tokenizer (name or path) for exact token counts; without it tokens are "
            "estimated as characters/4 and labelled approx.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print statistics as JSON.")] = False,
) -> None:
    """Turn teacher trajectories into an SFT dataset (train/val split by question)."""
    from distill.dataset import DatasetOptions, build_sft_dataset

    options = DatasetOptions(
        val_source=val_source,  # type: ignore[arg-type]
        val_fraction=val_fraction,
        sample=sample,
        keep=keep,  # type: ignore[arg-type]
        include_system_prompt=system_prompt,
        seed=seed,
    )
    counter = _load_tokenizer(tokenizer) if tokenizer else None
    stats = build_sft_dataset(run_dirs, out, options, tokenizer=counter)
    if as_json:
        print(json.dumps(stats.to_dict()))
        return
    console = Console()
    for line in stats.lines():
        console.print(line, highlight=False)
    console.print(f"wrote {out}", style="dim")


def _load_tokenizer(name: str) -> object:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(name)
    except OSError as error:
        fail(f"cannot load tokenizer {name!r}: {error}")


def train(
    data_dir: Annotated[Path, typer.Argument(help="Directory written by `ark distill dataset`.")],
    base_model: Annotated[
        str,
        typer.Option(
            "--base-model",
            help="Base model: hub name, local directory, or a GGUF file (or a directory "
            "holding one), dequantised once into the --gguf-cache directory.",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Adapter directory to write.", parser=out_dir)
    ],
    config_file: Annotated[
        Path | None, typer.Option("--config", help="YAML file of TrainConfig settings.")
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", help="Stop after this many optimizer steps.")
    ] = None,
    learning_rate: Annotated[
        float | None, typer.Option("--learning-rate", help="Override the learning rate.")
    ] = None,
    max_length: Annotated[
        int | None,
        typer.Option(
            "--max-length",
            help="Cut conversations to this many tokens (paper: 16,384); memory grows with it.",
        ),
    ] = None,
    memory_limit: Annotated[
        str | None,
        typer.Option(
            "--memory-limit",
            help="Memory the run may use on a CPU, as `ark graph import` takes it (8GB, "
            "7.5GiB; a bare number is GB); it refuses to start, naming the memory needed, when "
            "its estimated peak is higher (default: 90% of the memory available).",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue from the last checkpoint in OUT.")
    ] = False,
    gguf_cache: Annotated[
        Path | None,
        typer.Option(
            "--gguf-cache",
            help="Where dequantised GGUF bases are kept (default: $ARK_CACHE_DIR/gguf, else "
            "~/.cache/ark/gguf).",
        ),
    ] = None,
) -> None:
    """Train a LoRA student with assistant-only loss (paper defaults; see distill/config.py)."""
    from distill.config import load_config
    from distill.train import train_student

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        config = load_config(config_file).replace(
            max_steps=max_steps,
            learning_rate=learning_rate,
            max_length=max_length,
            memory_limit_gb=_gigabytes(memory_limit) if memory_limit is not None else None,
        )
        result = train_student(
            data_dir, base_model, out, config, resume=resume, gguf_cache=gguf_cache
        )
    except OSError as error:
        fail(f"cannot load base model {base_model!r}: {error}")
    console = Console()
    if result.losses:
        step, loss = result.losses[-1]
        console.print(
            f"trained {result.global_step} steps; training loss {loss:.4f} at step {step}"
        )
    else:
        console.print(
            f"trained {result.global_step} steps; no training loss logged (it is logged "
            f"every logging_steps = {config.logging_steps} steps)"
        )
    if result.best_checkpoint:
        console.print(f"best checkpoint (val loss): {result.best_checkpoint}")
    console.print(f"adapter saved to {out}; run it with -m hf:{out}", style="dim")


def config_keys() -> None:
    """Print every key `ark distill train --config` accepts: its default and what it does.

    The output is YAML that loads back to the defaults: save it, edit it, pass it to --config.
    """
    from cli.output.config_doc import commented_yaml
    from distill.config import TrainConfig

    print("# ark distill train --config FILE.yaml: every key, at its default (the paper's).")
    print("# Keys left out keep these values; unknown keys and wrong types are refused.")
    print(commented_yaml(TrainConfig()), end="")


def merge(
    adapter_dir: Annotated[Path, typer.Argument(help="Directory written by `ark distill train`.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Merged model directory to write.", parser=out_dir)
    ],
) -> None:
    """Fold a LoRA adapter into its base model and save the merged student."""
    from distill.merge import merge_adapter

    target = merge_adapter(adapter_dir, out)
    Console().print(f"merged model saved to {target}; run it with -m hf:{target}")


def register(app: typer.Typer) -> None:
    """Add `ark distill dataset|train|config|merge|reranker|direction-labels|direction-head`."""
    distill_app = typer.Typer(
        help="Distil teacher trajectories into a small student model.", no_args_is_help=True
    )
    distill_app.command("dataset")(dataset)
    distill_app.command("train")(train)
    distill_app.command("config")(config_keys)
    distill_app.command("merge")(merge)
    distill_app.command("reranker")(reranker.reranker)
    direction.register(distill_app)
    app.add_typer(distill_app, name="distill")


def _gigabytes(text: str) -> float:
    """GB in a --memory-limit: a size such as 8GB or 7.5GiB, or a bare number of GB."""
    from distill.memory import GB
    from graphs.build.stream.budget import parse_size

    try:
        return float(text)
    except ValueError:
        pass
    return parse_size(text) / GB
