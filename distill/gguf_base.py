"""GGUF base models for training: the agent's one GGUF cache, with distill's error type."""

from __future__ import annotations

from pathlib import Path

from agent.models.hf import gguf
from agent.models.hf.gguf import SOURCE_RECORD, checkpoint_dir, default_cache_dir
from distill.errors import BaseModelError
from graphs.cache_dir import CACHE_ENV_VAR

__all__ = [
    "CACHE_ENV_VAR",
    "SOURCE_RECORD",
    "checkpoint_dir",
    "default_cache_dir",
    "dequantised_base",
    "find_gguf",
]


def find_gguf(path: Path) -> Path | None:
    """The GGUF file `path` names (see `agent.models.hf.gguf.find_gguf`).

    Raises:
        BaseModelError: A directory holds several GGUF files and no config.json.
    """
    try:
        return gguf.find_gguf(path)
    except gguf.GGUFError as error:
        raise BaseModelError(str(error)) from error


def dequantised_base(gguf_file: Path, cache_dir: Path) -> Path:
    """`gguf_file` dequantised once into `cache_dir`, the cache `-m hf:FILE.gguf` uses too.

    Raises:
        BaseModelError: The `gguf` package is missing or the file cannot be read as a model.
    """
    try:
        return gguf.dequantised_base(gguf_file, cache_dir)
    except gguf.GGUFError as error:
        raise BaseModelError(str(error)) from error
