"""GGUF models: dequantise a `.gguf` file once into a cached transformers checkpoint."""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import shutil
from pathlib import Path

from agent.models.base import ModelError
from graphs.cache_dir import cache_path

logger = logging.getLogger(__name__)

GGUF_SUFFIX = ".gguf"
SOURCE_RECORD = "ark_gguf_source.json"

GGUF_INSTALL_HINT = (
    "reading a GGUF model needs the `gguf` package: pip install 'ark-kg[distill]' "
    "(or pip install gguf)"
)


class GGUFError(ModelError):
    """A GGUF file cannot be found, chosen or read as a transformers model."""


def default_cache_dir(environ: dict[str, str] | None = None) -> Path:
    """The directory holding dequantised GGUF checkpoints.

    `$ARK_CACHE_DIR/gguf` when set, else `$XDG_CACHE_HOME/ark/gguf`, else `~/.cache/ark/gguf`.
    """
    return cache_path("gguf", environ)


def find_gguf(path: Path) -> Path | None:
    """The GGUF file `path` names: the file itself, or the only `.gguf` in a directory.

    Returns None for a directory that holds a transformers checkpoint (config.json) or
    no GGUF file, and for a path that is neither.

    Raises:
        GGUFError: A directory holds several GGUF files and no config.json.
    """
    if path.is_file():
        return path if path.suffix.lower() == GGUF_SUFFIX else None
    if not path.is_dir() or (path / "config.json").is_file():
        return None
    files = sorted(p for p in path.iterdir() if p.suffix.lower() == GGUF_SUFFIX)
    if len(files) > 1:
        names = ", ".join(p.name for p in files)
        raise GGUFError(
            f"{path} holds several GGUF files ({names}); name the one to use "
            "(-m hf:FILE.gguf, --base-model FILE.gguf)"
        )
    return files[0] if files else None


def checkpoint_dir(gguf_file: Path, cache_dir: Path) -> Path:
    """Where `gguf_file`'s dequantised checkpoint lives: keyed by its path, size and mtime."""
    stat = gguf_file.stat()
    key = f"{gguf_file.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return cache_dir / f"{gguf_file.stem}-{digest}"


def dequantised_base(gguf_file: Path, cache_dir: Path) -> Path:
    """A transformers checkpoint of `gguf_file`, dequantised on first use and cached.

    transformers loads a GGUF model dequantised to float32 but refuses to save it; the weights
    are copied into a fresh model built from the same config, which saves like any other. The
    tokenizer (vocabulary, merges, special tokens) is read from the GGUF metadata too. The
    checkpoint is written to a temporary directory and renamed, so an interrupted conversion
    leaves nothing that looks complete.

    Args:
        gguf_file: The `.gguf` file.
        cache_dir: Parent directory of the cached checkpoints.

    Returns:
        The checkpoint directory (config.json, weights, tokenizer).

    Raises:
        GGUFError: The `gguf` package is missing or the file cannot be read as a model.
    """
    target = checkpoint_dir(gguf_file, cache_dir)
    if (target / SOURCE_RECORD).is_file():
        logger.info("using the cached dequantised checkpoint %s of %s", target, gguf_file)
        return target
    try:
        import gguf  # noqa: F401
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as error:
        raise GGUFError(f"{GGUF_INSTALL_HINT} ({error})") from error

    folder, name = str(gguf_file.parent), gguf_file.name
    logger.info("dequantising %s into %s (once; later runs reuse it)", gguf_file, target)
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        raise GGUFError(
            f"cannot read {gguf_file} as a transformers model ({error}); transformers "
            "dequantises GGUF files of the architectures it supports (llama, qwen2, qwen3, "
            "gemma3, ...): check the file, or convert it yourself and pass the directory"
        ) from error
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # else trainers refuse the model as GGUF-quantised
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    model.save_pretrained(str(partial))
    tokenizer.save_pretrained(str(partial))
    record = {"gguf_file": str(gguf_file.resolve()), "size": gguf_file.stat().st_size}
    (partial / SOURCE_RECORD).write_text(json.dumps(record, indent=2) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target
