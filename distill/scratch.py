"""Tiny from-scratch Qwen3 students: a BPE tokenizer trained on given texts and a random model."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distill.template import inference_template, load_training_template

logger = logging.getLogger(__name__)

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
"""Control tokens: padding, turn start, turn end (the end of a turn is the EOS)."""

MARKUP_TOKENS = (
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
"""Chat-template markup kept as single tokens but not special, so decoding keeps them (as Qwen)."""


@dataclass(frozen=True, kw_only=True)
class ScratchSpec:
    """Shape of a from-scratch student (defaults: a ~0.2M-parameter test model).

    Attributes:
        vocab_size: Target BPE vocabulary size (special and markup tokens included).
        hidden_size: Model width.
        intermediate_size: MLP width.
        num_layers: Decoder layers.
        num_heads: Attention heads.
        num_kv_heads: Key/value heads (grouped-query attention).
        max_position_embeddings: Longest sequence the rotary embedding is configured for.
        seed: Seed of the random initialisation.
    """

    vocab_size: int = 1024
    hidden_size: int = 64
    intermediate_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    num_kv_heads: int = 2
    max_position_embeddings: int = 32768
    seed: int = 0

    def __post_init__(self) -> None:
        if self.hidden_size % self.num_heads:
            raise ValueError(
                f"hidden_size ({self.hidden_size}) must be a multiple of "
                f"num_heads ({self.num_heads})"
            )
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads "
                f"({self.num_kv_heads})"
            )
        minimum = 256 + len(SPECIAL_TOKENS)
        if self.vocab_size < minimum:
            raise ValueError(f"vocab_size must be >= {minimum} (bytes + special tokens)")


def train_tokenizer(texts: Iterable[str], *, vocab_size: int = 1024) -> Any:
    """Train a byte-level BPE tokenizer on `texts`, wrapped for transformers.

    The result knows the Qwen chat markup (`<|im_start|>`, `<|im_end|>`, `<tool_call>`, ...)
    and carries ARK's Qwen-family chat template without generation markers (the inference
    variant; training swaps in the marked one).

    Args:
        texts: Training corpus (graph text, rendered trajectories, ...).
        vocab_size: Target vocabulary size.

    Returns:
        A `PreTrainedTokenizerFast` with EOS `<|im_end|>` and pad `<|endoftext|>`.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(MARKUP_TOKENS),
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(texts, trainer=trainer)
    core.add_tokens([AddedToken(t, special=False, normalized=False) for t in MARKUP_TOKENS])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        bos_token=None,
        clean_up_tokenization_spaces=False,
    )
    tokenizer.chat_template = inference_template(load_training_template())
    logger.info("trained a %d-token BPE tokenizer", len(tokenizer))
    return tokenizer


def build_model(tokenizer: Any, spec: ScratchSpec | None = None) -> Any:
    """Build a random-initialised Qwen3 causal LM sized for `tokenizer`.

    Embeddings and the LM head are untied, so LoRA students can train both as
    `modules_to_save`.

    Args:
        tokenizer: The student's tokenizer (its length sets the vocabulary).
        spec: Model shape; defaults to `ScratchSpec()`.

    Returns:
        A `Qwen3ForCausalLM` in float32.
    """
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    spec = spec or ScratchSpec()
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_layers,
        num_attention_heads=spec.num_heads,
        num_key_value_heads=spec.num_kv_heads,
        head_dim=spec.hidden_size // spec.num_heads,
        max_position_embeddings=spec.max_position_embeddings,
        tie_word_embeddings=False,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(spec.seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def count_parameters(model: Any) -> int:
    """Number of parameters of a torch model."""
    return int(sum(p.numel() for p in model.parameters()))


def save_scratch_base(
    out: str | Path, texts: Iterable[str], spec: ScratchSpec | None = None
) -> Path:
    """Train a tokenizer on `texts`, build a random Qwen3 and save both to `out`.

    A random base must live on disk: the LoRA adapter records its base model's path, and
    `from_pretrained(out)` is how trainers, `merge` and `-m hf:` load it.

    Args:
        out: Directory to write (created; existing files are overwritten).
        texts: Tokenizer training corpus.
        spec: Model shape; defaults to `ScratchSpec()`.

    Returns:
        The absolute path of the saved base model.
    """
    spec = spec or ScratchSpec()
    target = Path(out).resolve()
    target.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(texts, vocab_size=spec.vocab_size)
    model = build_model(tokenizer, spec)
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    logger.info(
        "saved a random Qwen3 base (%d parameters, vocabulary %d) to %s",
        count_parameters(model),
        len(tokenizer),
        target,
    )
    return target
