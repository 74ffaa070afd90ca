"""Checks before training starts: the base model exists, truncation leaves rows to learn from."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from distill.config import TrainConfig
from distill.errors import BaseModelError, EmptyTrainingSetError
from distill.gguf_base import default_cache_dir, dequantised_base, find_gguf

logger = logging.getLogger(__name__)


def resolve_base_model(base_model: str, *, gguf_cache: Path | None = None) -> str:
    """`base_model` as an absolute directory, or unchanged when it is a hub name.

    A GGUF file (or a directory holding one and no config.json) is dequantised once into a
    transformers checkpoint under `gguf_cache` (see `distill.gguf_base`), whose directory is
    returned. A path-like value (absolute, `./`, `../`, `~`, a backslash, or more than one
    `/`; a hub name is `name` or `org/name`) must be an existing directory or GGUF file.

    Args:
        base_model: Hub name, model directory, GGUF file or directory holding one.
        gguf_cache: Cache of dequantised GGUF checkpoints (default: `default_cache_dir()`).

    Raises:
        BaseModelError: A path-like value that is neither, or an unreadable GGUF file.
    """
    path = Path(base_model).expanduser()
    gguf_file = find_gguf(path)
    if gguf_file is not None:
        return str(dequantised_base(gguf_file, gguf_cache or default_cache_dir()).resolve())
    if path.is_dir():
        return str(path.resolve())
    path_like = (
        path.is_absolute()
        or base_model.startswith(("./", "../", "~"))
        or base_model in (".", "..")
        or "\\" in base_model
        or base_model.count("/") > 1
    )
    if path_like:
        raise BaseModelError(
            f"no such directory or GGUF file: {base_model} (pass a local model directory, a "
            "`.gguf` file or a hub model name)"
        )
    return base_model


def check_truncation(trainer: Any, data: dict[str, Any], config: TrainConfig) -> None:
    """Report conversations TRL dropped because truncation left them no assistant token.

    TRL drops, after cutting each conversation to `max_length` tokens from its start, those
    with no assistant token left. A val split emptied that way is switched off (a warning),
    since evaluating it would fail; partial drops are logged.

    Args:
        trainer: The SFTTrainer built on `data` (its datasets already prepared).
        data: The splits as loaded by `load_sft_dataset`.
        config: The run's settings.

    Raises:
        EmptyTrainingSetError: Nothing is left of the train split.
    """
    given, kept = len(data["train"]), len(trainer.train_dataset)
    advice = (
        f"raise max_length (now {config.max_length}) in the training config (truncation keeps "
        "the start of each conversation, so the system prompt, tool schemas and question must "
        "fit with room for an assistant turn)"
    )
    if kept == 0:
        raise EmptyTrainingSetError(
            f"all {given} training conversations were dropped: truncated to max_length="
            f"{config.max_length} tokens, none keeps an assistant token to learn from; {advice}"
        )
    if kept < given:
        logger.warning(
            "truncation to max_length=%d dropped %d of %d training conversations (no assistant "
            "token left); %s",
            config.max_length,
            given - kept,
            given,
            advice,
        )
    if data["val"] is None:
        return
    val_given, val_kept = len(data["val"]), len(trainer.eval_dataset)
    if val_kept == 0:
        logger.warning(
            "truncation to max_length=%d dropped all %d val conversations; training without "
            "validation (no best-checkpoint selection); %s",
            config.max_length,
            val_given,
            advice,
        )
        from transformers.trainer_utils import IntervalStrategy

        trainer.eval_dataset = None
        # Edited in place: new TrainingArguments would reset the accelerator the trainer holds.
        trainer.args.eval_strategy = IntervalStrategy.NO
        trainer.args.load_best_model_at_end = False
    elif val_kept < val_given:
        logger.warning(
            "truncation to max_length=%d dropped %d of %d val conversations",
            config.max_length,
            val_given - val_kept,
            val_given,
        )
