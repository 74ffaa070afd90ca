"""The one loader of local causal LMs: a model directory, a PEFT adapter, or a GGUF file.

The agent (`hf:PATH`), the reranker and distillation all load local models through
`load_causal_lm`, so a path means the same thing everywhere and a GGUF file is dequantised
once into the cache training uses (agent/models/hf/gguf.py).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.models.base import ModelError
from agent.models.hf.chat_template import supply_template
from agent.models.hf.gguf import default_cache_dir, dequantised_base, find_gguf

logger = logging.getLogger(__name__)

INSTALL_HINT = "local hf: models need the distill extra: pip install 'ark-kg[distill]'"
ADAPTER_CONFIG = "adapter_config.json"


class LocalModelError(ModelError):
    """A local model path is missing, of an unknown shape, or cannot be loaded."""


@dataclass(frozen=True)
class LocalModel:
    """A loaded causal LM.

    Attributes:
        tokenizer: Its tokenizer (from the adapter directory when saved there).
        model: The transformers model, adapter merged, in eval mode on `device`.
        base: The checkpoint directory the weights came from (a GGUF file's cache entry).
        device: The torch device it sits on.
    """

    tokenizer: Any
    model: Any
    base: str
    device: str


def model_kind(path: Path) -> str:
    """What `path` holds: `gguf`, `adapter` or `model`.

    Raises:
        LocalModelError: `path` is none of them (the message says what each needs).
        GGUFError: A directory holds several GGUF files.
    """
    if path.is_dir() and (path / ADAPTER_CONFIG).is_file():
        return "adapter"
    if path.is_dir() and (path / "config.json").is_file():
        return "model"
    if find_gguf(path) is not None:
        return "gguf"
    raise LocalModelError(
        f"{path}: not a local model: no config.json (a transformers model), "
        "adapter_config.json (a PEFT adapter) or .gguf file there; point hf:PATH at one of "
        "those directories or at a .gguf file"
    )


def load_causal_lm(
    path: str | Path,
    *,
    base: str | None = None,
    device: str | None = None,
    dtype: Any = None,
    gguf_cache: Path | None = None,
    chat_template: str | Path | None = None,
) -> LocalModel:
    """Load the causal LM at `path`: a model directory, a PEFT adapter (merged) or a GGUF file.

    Args:
        path: Model directory, adapter directory or `.gguf` file (or a folder with one).
        base: An adapter's base model, overriding its adapter_config.json (a directory or GGUF).
        device: torch device; None picks cuda when available, else cpu.
        dtype: torch dtype; None is bfloat16 on cuda, float32 on cpu.
        gguf_cache: Where GGUF files are dequantised (default: `default_cache_dir()`).
        chat_template: A Jinja chat template file replacing the tokenizer's own; None keeps
            it, or takes one kept beside the model (agent/models/hf/chat_template.py).

    Returns:
        The loaded model and its tokenizer.

    Raises:
        LocalModelError: The path is not a model, the distill extra is missing, or loading
            fails (the message says what the directory must hold).
        ChatTemplateError: The chat template file cannot be read as a template.
    """
    path = Path(path).expanduser()
    kind = model_kind(path)
    torch, transformers = _import_backend()
    adapter = path if kind == "adapter" else None
    weights = _checkpoint(path, kind, base, gguf_cache)
    tokenizer_source = (
        adapter if adapter and (adapter / "tokenizer_config.json").is_file() else weights
    )
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype = dtype or (torch.bfloat16 if device.startswith("cuda") else torch.float32)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(tokenizer_source))
        supply_template(tokenizer, path, chat_template)
        model = transformers.AutoModelForCausalLM.from_pretrained(str(weights), dtype=dtype)
        if adapter is not None:
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    except (OSError, ValueError, KeyError) as exc:
        raise LocalModelError(
            f"{path}: cannot load the model ({exc}); the directory must hold a transformers "
            "model (config.json + weights + tokenizer) or a PEFT adapter whose "
            "base_model_name_or_path is a local model directory or .gguf file"
        ) from exc
    model.to(device).eval()
    logger.info("loaded %s on %s (weights %s)", path, device, weights)
    return LocalModel(tokenizer=tokenizer, model=model, base=str(weights), device=device)


def load_tokenizer(
    path: str | Path,
    *,
    base: str | None = None,
    gguf_cache: Path | None = None,
    chat_template: str | Path | None = None,
) -> Any:
    """The tokenizer `load_causal_lm(path)` would return, without loading the weights.

    Raises:
        LocalModelError: The path is not a model, the distill extra is missing, or the
            tokenizer cannot be loaded.
        ChatTemplateError: The chat template file cannot be read as a template.
    """
    path = Path(path).expanduser()
    kind = model_kind(path)
    _, transformers = _import_backend()
    weights = _checkpoint(path, kind, base, gguf_cache)
    adapter_tokenizer = kind == "adapter" and (path / "tokenizer_config.json").is_file()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            str(path if adapter_tokenizer else weights)
        )
    except (OSError, ValueError, KeyError) as exc:
        raise LocalModelError(f"{path}: cannot load its tokenizer ({exc})") from exc
    supply_template(tokenizer, path, chat_template)
    return tokenizer


def _checkpoint(path: Path, kind: str, base: str | None, gguf_cache: Path | None) -> Path:
    """The transformers checkpoint directory holding the weights to load."""
    if kind == "model":
        return path
    if kind == "gguf":
        return _dequantised(path, gguf_cache)
    named = base or adapter_base(path / ADAPTER_CONFIG)
    source = Path(named).expanduser()
    if not source.exists() and (path / named).exists():
        source = path / named  # a base given relative to the adapter directory
    if not source.exists():
        raise LocalModelError(
            f"{path}: the adapter's base model {named!r} is not a local directory or .gguf "
            "file; set base_model_name_or_path in adapter_config.json, or merge the adapter "
            "(ark distill merge)"
        )
    base_kind = model_kind(source)
    if base_kind == "adapter":
        raise LocalModelError(f"{path}: the adapter's base {source} is itself an adapter")
    return _checkpoint(source, base_kind, None, gguf_cache)


def _dequantised(path: Path, gguf_cache: Path | None) -> Path:
    gguf_file = find_gguf(path)
    if gguf_file is None:
        raise LocalModelError(f"{path}: no .gguf file there")
    return dequantised_base(gguf_file, gguf_cache or default_cache_dir())


def adapter_base(adapter_config: Path) -> str:
    """The base model an adapter directory names in its adapter_config.json.

    Raises:
        LocalModelError: The file is unreadable or names no base.
    """
    try:
        named = json.loads(adapter_config.read_text()).get("base_model_name_or_path")
    except (OSError, ValueError) as exc:
        raise LocalModelError(f"{adapter_config}: unreadable adapter config ({exc})") from exc
    if not isinstance(named, str) or not named:
        raise LocalModelError(
            f"{adapter_config} does not name its base model; set base_model_name_or_path "
            "to the base model directory, or merge the adapter (ark distill merge)"
        )
    return named


def _import_backend() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise LocalModelError(f"{INSTALL_HINT} ({exc})") from exc
    return torch, transformers
