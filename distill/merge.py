"""Merge a trained LoRA adapter into its base: a standalone student model directory."""

from __future__ import annotations

import logging
from pathlib import Path

from agent.models.hf.loader import ADAPTER_CONFIG, LocalModelError, load_causal_lm
from distill.errors import AdapterError

logger = logging.getLogger(__name__)


def merge_adapter(adapter_dir: str | Path, out: str | Path) -> Path:
    """Fold the LoRA update (and any fully trained modules) into the base and save it.

    The adapter is loaded through the one local loader (agent/models/hf/loader.py), which
    reads its base from adapter_config.json (a model directory or a GGUF file) and merges it.

    Args:
        adapter_dir: Directory written by `train_student`.
        out: Directory for the merged model and the student's tokenizer.

    Returns:
        `out`, loadable with `from_pretrained` and `-m hf:OUT`.

    Raises:
        AdapterError: No adapter in `adapter_dir`, or its base cannot be loaded.
    """
    import torch

    source = Path(adapter_dir)
    config = source / ADAPTER_CONFIG
    if not config.is_file():
        raise AdapterError(
            f"{config} does not exist; pass the --out directory of `ark distill train`"
        )
    try:
        loaded = load_causal_lm(source, device="cpu", dtype=torch.float32)
    except LocalModelError as error:
        raise AdapterError(
            f"cannot load the adapter with its base model ({error}); the base must still "
            "exist where it was when the adapter was trained"
        ) from error
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    loaded.model.save_pretrained(str(target))
    loaded.tokenizer.save_pretrained(str(target))
    logger.info("merged %s into %s and saved it to %s", source, loaded.base, target)
    return target
