"""Merge a trained LoRA adapter into its base: a standalone student model directory."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from distill.errors import AdapterError

logger = logging.getLogger(__name__)


def adapter_base(adapter_dir: Path) -> str:
    """The base model an adapter was trained on (from adapter_config.json).

    Raises:
        AdapterError: `adapter_dir` holds no readable adapter_config.json.
    """
    config = adapter_dir / "adapter_config.json"
    if not config.is_file():
        raise AdapterError(
            f"{config} does not exist; pass the --out directory of `ark distill train`"
        )
    try:
        base = json.loads(config.read_text(encoding="utf-8"))["base_model_name_or_path"]
    except (ValueError, KeyError) as error:
        raise AdapterError(
            f"{config} has no base_model_name_or_path; retrain the adapter"
        ) from error
    return str(base)


def merge_adapter(adapter_dir: str | Path, out: str | Path) -> Path:
    """Fold the LoRA update (and any fully trained modules) into the base and save it.

    Args:
        adapter_dir: Directory written by `train_student`.
        out: Directory for the merged model and the student's tokenizer.

    Returns:
        `out`, loadable with `from_pretrained` and `-m hf:OUT`.

    Raises:
        AdapterError: No adapter in `adapter_dir`, or its base cannot be loaded.
    """
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = Path(adapter_dir)
    base = adapter_base(source)
    try:
        model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    except OSError as error:
        raise AdapterError(
            f"cannot load the adapter's base model {base!r} ({error}); it must still exist "
            "where it was when the adapter was trained"
        ) from error
    merged = PeftModel.from_pretrained(model, str(source)).merge_and_unload()
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    merged.save_pretrained(str(target))
    tokenizer_source = source if (source / "tokenizer_config.json").is_file() else Path(base)
    AutoTokenizer.from_pretrained(str(tokenizer_source)).save_pretrained(str(target))
    logger.info("merged %s into %s and saved it to %s", source, base, target)
    return target
