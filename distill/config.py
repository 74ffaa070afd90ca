"""TrainConfig: the distillation run's settings (paper defaults), a pydantic model read from YAML.

Every value is validated by pydantic against the field's type: integers must be integers,
booleans booleans, numbers finite (``nan`` and ``inf`` are refused); PyYAML reads ``1e-5``
(no dot) as a string, so number fields accept numeric strings. A bad value raises
`TrainConfigError` naming the field, the value given and the type expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

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


def _no_bool(value: Any) -> Any:
    """A YAML `true` is not a number (pydantic would read it as 1.0)."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return value


Number = Annotated[float, BeforeValidator(_no_bool)]
"""A finite float; numeric strings such as "1e-5" are read as numbers."""

EXPECTED_BY_ERROR = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number (not nan or inf)",
    "value_error": "a number",
    "bool_type": "a boolean (true/false)",
    "string_type": "a string",
    "tuple_type": "a list of strings",
    "too_short": "a list of at least one string",
    "model_type": "a mapping of settings",
    "dict_type": "a mapping of settings",
}
"""pydantic error type -> the value the field expects, in words."""


class _Settings(BaseModel):
    """Frozen, keyword-only, unknown keys refused; errors become `TrainConfigError`."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise TrainConfigError(_describe(error, type(self))) from None


Modules = Annotated[tuple[StrictStr, ...], Field(min_length=1)]


class LoraSettings(_Settings):
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

    r: StrictInt = 32
    alpha: StrictInt = 64
    dropout: Number = 0.05
    target_modules: Modules = ATTENTION_MLP_PROJECTIONS
    train_embeddings: StrictBool = False

    @model_validator(mode="after")
    def _check(self) -> LoraSettings:
        if self.r < 1 or self.alpha < 1:
            raise ValueError(f"lora.r and lora.alpha must be >= 1, got {self.r}, {self.alpha}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"lora.dropout must be in [0, 1), got {self.dropout}")
        return self


class TrainConfig(_Settings):
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
        gradient_checkpointing: Recompute each layer in the backward pass instead of keeping
            its activations (one more forward, ~30% more time); None = on with a GPU, and on
            a CPU when the run would not fit `memory_limit_gb` without it.
        attn_implementation: transformers attention kernel; None = `sdpa` (PyTorch's flash
            kernel, O(L) memory on CPUs too); `eager` keeps every head's L x L probabilities
            for the backward (9 GB at 2,048 tokens on SmolLM2-135M).
        memory_limit_gb: On a CPU, refuse to start (naming the memory needed) when the
            estimated peak of a step on rows of `max_length` tokens is above this many GB
            (`distill.memory`); None = 90% of the memory available when training starts.
        return_freed_memory: Have glibc return freed blocks of 256 KB or more to the OS at
            once (`mallopt`), so the process holds its live tensors rather than gigabytes of
            freed activations in the allocator's arenas.
        lora: The adapter's settings.
    """

    learning_rate: Number = 1e-5
    num_train_epochs: Number = 1.0
    max_steps: StrictInt | None = None
    max_minutes: Number | None = None
    max_length: StrictInt = 16384
    batch_size: StrictInt = 1
    gradient_accumulation_steps: StrictInt = 8
    optimizer: StrictStr = "adamw_torch"
    weight_decay: Number = 0.0
    lr_scheduler: StrictStr = "linear"
    warmup_steps: StrictInt = 0
    eval_steps: StrictInt = 50
    logging_steps: StrictInt = 10
    save_total_limit: StrictInt = 2
    seed: StrictInt = 0
    chat_template: StrictStr = "qwen"
    assistant_only_loss: StrictBool = True
    bf16: StrictBool | None = None
    gradient_checkpointing: StrictBool | None = None
    attn_implementation: StrictStr | None = None
    memory_limit_gb: Number | None = None
    return_freed_memory: StrictBool = True
    lora: LoraSettings = Field(default_factory=LoraSettings)

    @model_validator(mode="after")
    def _check(self) -> TrainConfig:
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
                raise ValueError(f"{name} must be > 0, got {value}")
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise ValueError(f"max_minutes must be > 0 or unset, got {self.max_minutes}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError(f"max_steps must be >= 1 or unset, got {self.max_steps}")
        if self.memory_limit_gb is not None and self.memory_limit_gb <= 0:
            raise ValueError(f"memory_limit_gb must be > 0 or unset, got {self.memory_limit_gb}")
        if self.warmup_steps < 0:
            raise ValueError(f"warmup_steps must be >= 0, got {self.warmup_steps}")
        return self

    def replace(self, **changes: Any) -> TrainConfig:
        """A validated copy with `changes` applied (None values are ignored, as unset flags)."""
        kept = {key: value for key, value in changes.items() if value is not None}
        return TrainConfig(**{**dict(self), **kept})

    def to_record(self) -> dict[str, Any]:
        """Plain-dict (JSON-ready) form, saved next to the adapter."""
        return self.model_dump(mode="json")


def _describe(error: ValidationError, model: type[BaseModel]) -> str:
    """One clause per problem: the field, the value given and what was expected."""
    clauses = []
    for problem in error.errors(include_url=False):
        location = [str(part) for part in problem["loc"] if not isinstance(part, int)]
        kind = problem["type"]
        if kind == "value_error" and not location:  # a range check of a whole section
            clauses.append(str(problem["msg"]).removeprefix("Value error, "))
            continue
        name = location[-1] if location else "?"
        nested = len(location) > 1
        where = " in the lora section" if nested else ""
        if kind == "extra_forbidden":
            valid = ", ".join(sorted((LoraSettings if nested else model).model_fields))
            clauses.append(f"unknown key {name!r}{where}; valid keys: {valid}")
            continue
        expected = EXPECTED_BY_ERROR.get(kind, str(problem["msg"]))
        field = None if nested else model.model_fields.get(name)
        if field is not None and field.default is None:
            expected += " or null (unset)"
        value = problem.get("input")
        clauses.append(
            f"bad value for {name}{where}: expected {expected}, got {value!r} "
            f"({type(value).__name__}); fix the value in the YAML file"
        )
    return "; ".join(dict.fromkeys(clauses))


def config_from_dict(values: dict[str, Any]) -> TrainConfig:
    """Build a TrainConfig from a plain dict (a nested `lora` mapping is allowed).

    Raises:
        TrainConfigError: Unknown keys or invalid values (naming the field, value and type).
    """
    lora = values.get("lora")
    if lora is not None and not isinstance(lora, dict | LoraSettings):
        raise TrainConfigError(f"`lora` must be a mapping, got {type(lora).__name__}")
    return TrainConfig(**values)


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
