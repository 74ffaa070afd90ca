"""TrainConfig: the distillation run's settings (paper defaults), loadable from YAML."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from distill.errors import TrainConfigError

ATTENTION_MLP_PROJECTIONS = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
)
"""Qwen-family linear layers LoRA adapts by default: attention and MLP projections."""

EMBEDDING_MODULES = ("embed_tokens", "lm_head")
"""Trained in full (not through LoRA) when `LoraSettings.train_embeddings` is on."""


@dataclass(frozen=True, kw_only=True)
class LoraSettings:
    """The PEFT LoRA adapter.

    Attributes:
        r: Rank of the update matrices (default 32).
        alpha: Scaling numerator; the update is scaled by alpha / r (default 64, i.e. 2).
        dropout: Dropout on the LoRA branch.
        target_modules: Linear layers that get adapters (attention + MLP projections).
        train_embeddings: Also train the token embeddings and LM head in full
            (`modules_to_save`). Needed for from-scratch students: LoRA alone on a random
            base barely learns. Requires untied embeddings.
    """

    r: int = 32
    alpha: int = 64
    dropout: float = 0.05
    target_modules: tuple[str, ...] = ATTENTION_MLP_PROJECTIONS
    train_embeddings: bool = False

    def __post_init__(self) -> None:
        if self.r < 1 or self.alpha < 1:
            raise TrainConfigError(
                f"lora.r and lora.alpha must be >= 1, got {self.r}, {self.alpha}"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise TrainConfigError(f"lora.dropout must be in [0, 1), got {self.dropout}")
        if not self.target_modules:
            raise TrainConfigError("lora.target_modules is empty; name at least one linear layer")
        object.__setattr__(self, "target_modules", tuple(self.target_modules))


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """One SFT run of a LoRA student on teacher trajectories (paper defaults).

    Attributes:
        learning_rate: AdamW learning rate (paper: 1e-5).
        num_train_epochs: Passes over the training split (paper: 1).
        max_steps: Stop after this many optimizer steps (None: run the epochs).
        max_minutes: Stop after this much training wall time (None: no limit); the
            adapter as it is then is saved.
        max_length: Longest tokenised conversation (paper: 16,384); longer ones are cut.
        batch_size: Conversations per device per forward pass.
        gradient_accumulation_steps: Forward passes per optimizer step.
        optimizer: transformers optimizer name (AdamW).
        weight_decay: AdamW weight decay.
        lr_scheduler: transformers learning-rate schedule.
        warmup_steps: Linear warm-up steps.
        eval_steps: Evaluate on the val split (and save a checkpoint) every this many steps;
            the best checkpoint by val loss is loaded at the end.
        logging_steps: Log the loss every this many steps.
        save_total_limit: Checkpoints kept on disk (the best one is always kept).
        seed: Seed of data order and adapter initialisation.
        chat_template: `qwen` (ARK's training template from prompts/), `tokenizer` (the base
            tokenizer's own, which must have generation markers) or a path to a Jinja file.
        assistant_only_loss: Train on assistant tokens only (the paper's setting).
        bf16: bfloat16 mixed precision; None = on when a CUDA GPU is present.
        gradient_checkpointing: Trade compute for memory; None = on when a GPU is present
            (both are ~8x slower on CPU, so they stay off there).
        attn_implementation: transformers attention kernel; None = `sdpa` with a GPU and
            `eager` on CPU (measured here: sdpa's CPU backward is ~2x slower at 5k tokens).
        lora: The adapter's settings.
    """

    learning_rate: float = 1e-5
    num_train_epochs: float = 1.0
    max_steps: int | None = None
    max_minutes: float | None = None
    max_length: int = 16384
    batch_size: int = 1
    gradient_accumulation_steps: int = 8
    optimizer: str = "adamw_torch"
    weight_decay: float = 0.0
    lr_scheduler: str = "linear"
    warmup_steps: int = 0
    eval_steps: int = 50
    logging_steps: int = 10
    save_total_limit: int = 2
    seed: int = 0
    chat_template: str = "qwen"
    assistant_only_loss: bool = True
    bf16: bool | None = None
    gradient_checkpointing: bool | None = None
    attn_implementation: str | None = None
    lora: LoraSettings = field(default_factory=LoraSettings)

    def __post_init__(self) -> None:
        positive = {
            "learning_rate": self.learning_rate,
            "num_train_epochs": self.num_train_epochs,
            "max_length": self.max_length,
            "batch_size": self.batch_size,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
            "eval_steps": self.eval_steps,
            "logging_steps": self.logging_steps,
            "save_total_limit": self.save_total_limit,
        }
        for name, value in positive.items():
            if value <= 0:
                raise TrainConfigError(f"{name} must be > 0, got {value}")
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise TrainConfigError(f"max_minutes must be > 0 or unset, got {self.max_minutes}")
        if self.max_steps is not None and self.max_steps < 1:
            raise TrainConfigError(f"max_steps must be >= 1 or unset, got {self.max_steps}")

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with `changes` applied (None values are ignored, as unset CLI flags)."""
        kept = {key: value for key, value in changes.items() if value is not None}
        return dataclasses.replace(self, **kept)

    def to_record(self) -> dict[str, Any]:
        """Plain-dict form, saved next to the adapter."""
        return asdict(self)


_MISMATCH = object()
"""Returned by `_converted` when a value does not fit a type."""


def _build(cls: type[Any], values: dict[str, Any], where: str) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise TrainConfigError(
            f"unknown key(s) {unknown} in {where}; valid keys: {', '.join(sorted(names))}"
        )
    hints = typing.get_type_hints(cls)
    checked = {
        name: _checked(value, hints[name], f"{name} in {where}") for name, value in values.items()
    }
    try:
        return cls(**checked)
    except TypeError as error:
        raise TrainConfigError(f"bad value in {where}: {error}") from error


def _checked(value: Any, hint: Any, where: str) -> Any:
    """`value` converted to the field type `hint`.

    PyYAML reads `1e-5` (no dot) as a string, so number fields accept numeric strings.

    Raises:
        TrainConfigError: Naming the field, the value given and the expected type.
    """
    options = typing.get_args(hint) if typing.get_origin(hint) is types.UnionType else (hint,)
    for option in options:
        converted = _converted(value, option)
        if converted is not _MISMATCH:
            return converted
    expected = " or ".join(_type_name(option) for option in options)
    raise TrainConfigError(
        f"bad value for {where}: expected {expected}, got {value!r} "
        f"({type(value).__name__}); fix the value in the YAML file"
    )


def _converted(value: Any, option: Any) -> Any:
    """`value` as `option` (one member of a field's type), or `_MISMATCH`."""
    if isinstance(value, bool):
        return value if option is bool else _MISMATCH
    if option is type(None):
        return value if value is None else _MISMATCH
    if option is int:
        return value if isinstance(value, int) else _MISMATCH
    if option is float and isinstance(value, int | float | str):
        try:
            return float(value)
        except ValueError:
            return _MISMATCH
    if option is str:
        return value if isinstance(value, str) else _MISMATCH
    if typing.get_origin(option) is tuple and isinstance(value, list | tuple):
        return tuple(value) if all(isinstance(v, str) for v in value) else _MISMATCH
    return value if isinstance(option, type) and isinstance(value, option) else _MISMATCH


def _type_name(hint: Any) -> str:
    if hint is type(None):
        return "null (unset)"
    if typing.get_origin(hint) is tuple:
        return "a list of strings"
    names = {bool: "a boolean (true/false)", int: "an integer", float: "a number", str: "a string"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def config_from_dict(values: dict[str, Any]) -> TrainConfig:
    """Build a TrainConfig from a plain dict (a nested `lora` dict is allowed).

    Raises:
        TrainConfigError: Unknown keys or invalid values.
    """
    values = dict(values)
    lora = values.pop("lora", None) or {}
    if not isinstance(lora, dict):
        raise TrainConfigError(f"`lora` must be a mapping, got {type(lora).__name__}")
    settings = _build(LoraSettings, lora, "the lora section")
    return _build(TrainConfig, {**values, "lora": settings}, "the training config")


def load_config(path: str | Path | None) -> TrainConfig:
    """Read a YAML training config; keys not given keep the paper defaults.

    Args:
        path: YAML file, or None for the defaults.

    Raises:
        TrainConfigError: The file is missing, not YAML, not a mapping, or invalid.
    """
    if path is None:
        return TrainConfig()
    import yaml

    file = Path(path)
    if not file.is_file():
        raise TrainConfigError(f"training config {file} does not exist; pass an existing YAML file")
    try:
        values = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise TrainConfigError(f"{file} is not valid YAML: {error}") from error
    if not isinstance(values, dict):
        raise TrainConfigError(
            f"{file} must hold a mapping of settings, got {type(values).__name__}"
        )
    return config_from_dict(values)
