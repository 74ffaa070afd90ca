"""ARK's user-wide caches: one root, and what lives under it.

`$ARK_CACHE_DIR`, else `$XDG_CACHE_HOME/ark`, else `~/.cache/ark`. Every cache ARK writes is
named here (`CACHES`), so `ark cache info` lists them all and `ark cache clear` can empty
them: removing any of them loses work that is redone on demand, never results.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV_VAR = "ARK_CACHE_DIR"


@dataclass(frozen=True)
class Cache:
    """One cache under the root: its file or folder name and what it holds."""

    name: str
    entry: str
    holds: str


CACHES = (
    Cache("extractions", "extractions.sqlite",
          "passages already extracted by `ark graph extract` (by text, extractor, model, prompt)"),
    Cache("gguf", "gguf", "GGUF models dequantised for `hf:` and `ark distill` (GBs each)"),
    Cache("rerank", "rerank.sqlite", "reranker scores of `ark rerank` (by query and candidate)"),
    Cache("opened", "opened", "each snapshot's file stamps at its last checksum check"),
)  # fmt: skip


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """`$ARK_CACHE_DIR`, else `$XDG_CACHE_HOME/ark`, else `~/.cache/ark`."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_ENV_VAR):
        return Path(env[CACHE_ENV_VAR]).expanduser()
    root = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return root / "ark"


def cache_path(name: str, environ: Mapping[str, str] | None = None) -> Path:
    """Where the cache `name` (one of `CACHES`) lives."""
    entry = {cache.name: cache.entry for cache in CACHES}[name]
    return cache_root(environ) / entry
