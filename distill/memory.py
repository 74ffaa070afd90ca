"""Peak memory of a LoRA training run, estimated from the base's shape before any weight loads.

The estimate adds what one optimizer step holds at its peak (`MemoryEstimate.parts`):

- `runtime`: the Python process with torch, transformers, TRL and datasets imported;
- `weights`: the frozen base in the training dtype;
- `adapter`: the LoRA matrices with their gradients and AdamW's two moments;
- `activations`: what the backward pass needs, per token and layer; with gradient
  checkpointing only each layer's input is kept and one layer is recomputed at a time;
- `attention`: `eager` attention keeps every head's `L x L` probabilities for the backward
  (twice 30 layers x 9 heads x L^2 floats on SmolLM2-135M: 9 GB at 2,048 tokens); `sdpa`
  (PyTorch's flash kernel, on CPUs too) keeps a row statistic per head instead;
- `lm_head`: TRL's fused head projects at most 4,096 tokens x 32,768 vocabulary entries at
  a time, never the full `[L x vocabulary]` logits.

The per-token factors were measured on SmolLM2-135M with `benchmarks/studies/train_memory.py`
(BENCHMARKS.md, "Training memory by sequence length"); the estimate is meant to land at or
above the measured peak, never far below it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distill.config import TrainConfig
from distill.errors import TrainMemoryError

GB = 1_000_000_000
FLOAT32 = 4
RUNTIME_BYTES = int(1.0 * GB)
"""Resident memory of the training process before the model loads (imports, tokenizer)."""

ACTIVATION_FLOATS_PER_TOKEN = (14, 14)
"""Floats kept per token and layer for the backward pass: (x hidden size, x MLP width)."""

EAGER_ATTENTION_COPIES = 2
"""L x L float tensors per head eager attention holds at the peak (scores, softmax, grad)."""

LM_HEAD_TOKENS = 4096
LM_HEAD_VOCAB = 32768
LM_HEAD_COPIES = 3
"""TRL's fused-head tile (`trl.kernels.chunked_logprob`) and the copies of it held at once."""


@dataclass(frozen=True, kw_only=True)
class ModelShape:
    """The sizes of a decoder-only transformer that memory depends on.

    Attributes:
        vocab_size: Vocabulary entries (rows of the LM head).
        hidden_size: Width of the residual stream.
        intermediate_size: Width of the MLP.
        layers: Decoder layers.
        heads: Attention (query) heads.
        kv_heads: Key/value heads.
        head_dim: Width of one head.
        tied_embeddings: Whether the LM head shares the input embeddings' weights.
    """

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    tied_embeddings: bool

    @classmethod
    def from_config(cls, config: Any) -> ModelShape:
        """The shape of a transformers model config (Llama, Qwen and Mistral families)."""
        heads = int(config.num_attention_heads)
        hidden = int(config.hidden_size)
        return cls(
            vocab_size=int(config.vocab_size),
            hidden_size=hidden,
            intermediate_size=int(config.intermediate_size),
            layers=int(config.num_hidden_layers),
            heads=heads,
            kv_heads=int(getattr(config, "num_key_value_heads", None) or heads),
            head_dim=int(getattr(config, "head_dim", None) or hidden // heads),
            tied_embeddings=bool(getattr(config, "tie_word_embeddings", False)),
        )

    @property
    def projections(self) -> dict[str, tuple[int, int]]:
        """(inputs, outputs) of each linear layer of one decoder layer, by module name."""
        hidden, query, kv = self.hidden_size, self.heads * self.head_dim, self.kv_heads
        return {
            "q_proj": (hidden, query),
            "k_proj": (hidden, kv * self.head_dim),
            "v_proj": (hidden, kv * self.head_dim),
            "o_proj": (query, hidden),
            "gate_proj": (hidden, self.intermediate_size),
            "up_proj": (hidden, self.intermediate_size),
            "down_proj": (self.intermediate_size, hidden),
        }

    @property
    def parameters(self) -> int:
        """Parameters of the whole model (norms included)."""
        layer = sum(i * o for i, o in self.projections.values()) + 2 * self.hidden_size
        embeddings = self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)
        return embeddings + self.layers * layer + self.hidden_size


@dataclass(frozen=True)
class MemoryEstimate:
    """An estimated peak, in bytes, with what it is made of (see the module docstring)."""

    parts: dict[str, int]

    @property
    def total(self) -> int:
        """The peak in bytes."""
        return sum(self.parts.values())

    @property
    def gb(self) -> float:
        """The peak in GB (10^9 bytes)."""
        return self.total / GB

    def describe(self) -> str:
        """`7.9 GB (weights 0.5, activations 5.1, ...)`: the parts over 0.05 GB, largest first."""
        parts = sorted(self.parts.items(), key=lambda item: -item[1])
        shown = ", ".join(f"{name} {size / GB:.1f}" for name, size in parts if size >= GB / 20)
        return f"{self.gb:.1f} GB ({shown})"


def estimate_peak(
    shape: ModelShape,
    *,
    tokens: int,
    batch_size: int = 1,
    attention: str = "sdpa",
    gradient_checkpointing: bool = True,
    bf16: bool = False,
    lora_rank: int = 32,
    lora_targets: tuple[str, ...] = (),
    train_embeddings: bool = False,
) -> MemoryEstimate:
    """The peak resident memory of one training step on `batch_size` rows of `tokens` tokens.

    Args:
        shape: The base model's sizes.
        tokens: Tokens per row (the longest row of a batch; rows are padded to it).
        batch_size: Rows per forward pass.
        attention: transformers attention implementation (`eager` keeps L x L per head).
        gradient_checkpointing: Whether each layer is recomputed in the backward pass.
        bf16: Weights and activations in bfloat16 (else float32).
        lora_rank: LoRA rank.
        lora_targets: Module names that get adapters (every projection when empty).
        train_embeddings: Embeddings and LM head trained in full (with AdamW's moments).
    """
    element = 2 if bf16 else FLOAT32
    rows_tokens = tokens * batch_size
    targets = lora_targets or tuple(shape.projections)
    adapter = sum(
        lora_rank * (i + o) for name, (i, o) in shape.projections.items() if name in targets
    )
    per_hidden, per_mlp = ACTIVATION_FLOATS_PER_TOKEN
    layer_activations = (
        rows_tokens * (per_hidden * shape.hidden_size + per_mlp * shape.intermediate_size) * element
    )
    eager = attention == "eager"
    layer_attention = (
        batch_size * shape.heads * tokens * tokens * FLOAT32 * EAGER_ATTENTION_COPIES
        if eager
        else 0
    )
    if gradient_checkpointing:
        activations = shape.layers * rows_tokens * shape.hidden_size * element + layer_activations
        attention_bytes = layer_attention
    else:
        activations = shape.layers * layer_activations
        attention_bytes = shape.layers * layer_attention
    head_tile = min(rows_tokens, LM_HEAD_TOKENS) * min(shape.vocab_size, LM_HEAD_VOCAB)
    embeddings = shape.vocab_size * shape.hidden_size * 2 if train_embeddings else 0
    return MemoryEstimate(
        {
            "runtime": RUNTIME_BYTES,
            "weights": shape.parameters * element,
            "adapter": (shape.layers * adapter + embeddings) * FLOAT32 * 4,
            "activations": activations,
            "attention": attention_bytes,
            "lm_head": head_tile * FLOAT32 * LM_HEAD_COPIES,
        }
    )


def read_shape(base_dir: str | Path) -> ModelShape:
    """The shape of the base model in `base_dir` (a hub name works too): its config only."""
    from transformers import AutoConfig

    return ModelShape.from_config(AutoConfig.from_pretrained(str(base_dir)))


def estimate_for_config(
    config: TrainConfig,
    shape: ModelShape,
    *,
    attention: str,
    gradient_checkpointing: bool,
    bf16: bool,
    tokens: int | None = None,
) -> MemoryEstimate:
    """`estimate_peak` for `config`'s batch and rows of `tokens` (default `max_length`)."""
    return estimate_peak(
        shape,
        tokens=tokens or config.max_length,
        batch_size=config.batch_size,
        attention=attention,
        gradient_checkpointing=gradient_checkpointing,
        bf16=bf16,
        lora_rank=config.lora.r,
        lora_targets=tuple(config.lora.target_modules),
        train_embeddings=config.lora.train_embeddings,
    )


M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter: blocks this large or larger are mmapped, and unmapped on free."""
RETURNED_BLOCK_BYTES = 256 * 1024


def return_freed_memory(threshold: int = RETURNED_BLOCK_BYTES) -> bool:
    """Have glibc give blocks of `threshold` bytes or more back to the OS as soon as they are freed.

    By default glibc raises its mmap threshold up to 32 MB as large blocks are freed, and keeps
    freed blocks below it in its arenas: over a training step (activations of every size, freed
    and reallocated by the recompute of each layer) the process then holds gigabytes no tensor
    uses. Measured on SmolLM2-135M (BENCHMARKS.md, "Training memory by sequence length"). The
    setting is the process's allocator's, kept for the rest of the process.

    Returns:
        Whether it was set (False off glibc, e.g. macOS or musl).
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):
        return False


def default_limit_gb() -> float:
    """90% of the memory available now (Linux `MemAvailable`; else of the total), in GB."""
    from graphs.build.stream.budget import total_memory

    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return 0.9 * int(line.split()[1]) * 1024 / GB
    except OSError:
        pass
    return 0.9 * total_memory() / GB


@dataclass(frozen=True)
class MemoryPlan:
    """The memory settings a run trains with, and the peak they are estimated to reach."""

    attention: str
    gradient_checkpointing: bool
    bf16: bool
    estimate: MemoryEstimate
    limit_gb: float


def planned_settings(config: TrainConfig, shape: ModelShape, *, gpu: bool) -> MemoryPlan:
    """Settle attention, checkpointing and dtype, and estimate the peak they reach.

    Unset settings follow the hardware: `sdpa` attention always; bf16 and gradient
    checkpointing with a GPU; on a CPU, checkpointing when the step would not fit
    `memory_limit_gb` without it.
    """
    attention = config.attn_implementation or "sdpa"
    bf16 = gpu if config.bf16 is None else config.bf16
    limit = config.memory_limit_gb or default_limit_gb()
    checkpointing = config.gradient_checkpointing
    if checkpointing is None:
        unchecked = estimate_for_config(
            config, shape, attention=attention, gradient_checkpointing=False, bf16=bf16
        )
        checkpointing = gpu or unchecked.gb > limit
    peak = estimate_for_config(
        config, shape, attention=attention, gradient_checkpointing=checkpointing, bf16=bf16
    )
    return MemoryPlan(attention, checkpointing, bf16, peak, limit)


def plan_memory(config: TrainConfig, shape: ModelShape, *, gpu: bool) -> MemoryPlan:
    """`planned_settings`, refused on a CPU when the estimated peak is above the limit.

    With a GPU activations live in its memory, which the estimate does not model, so
    nothing is refused there.

    Raises:
        TrainMemoryError: The estimated peak is above the limit (the message names the memory
            needed, the longest `--max-length` that fits and the flags to change).
    """
    plan = planned_settings(config, shape, gpu=gpu)
    if not gpu and plan.estimate.gb > plan.limit_gb:
        raise TrainMemoryError(_refusal(config, shape, plan))
    return plan


def _refusal(config: TrainConfig, shape: ModelShape, plan: MemoryPlan) -> str:
    def fits(tokens: int) -> bool:
        peak = estimate_for_config(
            config, shape, attention=plan.attention, bf16=plan.bf16, tokens=tokens,
            gradient_checkpointing=plan.gradient_checkpointing,
        )  # fmt: skip
        return peak.gb <= plan.limit_gb

    longest = next((n for n in range(config.max_length - 256, 0, -256) if fits(n)), None)
    floor = plan.estimate.parts["runtime"] + plan.estimate.parts["weights"]
    advice = [
        f"lower --max-length (at most {longest:,} fits)"
        if longest
        else f"lower --max-length (though the runtime and weights alone need {floor / GB:.1f} GB)"
    ]
    if not plan.gradient_checkpointing:
        advice.append("set gradient_checkpointing: true (or leave it unset)")
    if plan.attention == "eager":
        advice.append("set attn_implementation: sdpa (or leave it unset)")
    if config.batch_size > 1:
        advice.append("lower batch_size")
    advice.append("raise --memory-limit on a machine with more memory")
    return (
        f"training on rows of max_length={config.max_length:,} tokens (batch_size="
        f"{config.batch_size}) needs an estimated {plan.estimate.describe()}, more than the "
        f"{plan.limit_gb:.1f} GB memory limit; " + ", or ".join(advice)
    )
