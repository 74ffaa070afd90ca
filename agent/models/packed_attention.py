"""Grouped-query attention for short query blocks without copying the keys and values per head."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ATTENTION_NAME = "ark_packed_gqa"
"""The name under which `packed_attention` is registered with transformers."""


def packed_attention(
    module: Any,
    query: Any,
    key: Any,
    value: Any,
    attention_mask: Any,
    dropout: float = 0.0,
    scaling: float | None = None,
    **kwargs: Any,
) -> tuple[Any, None]:
    """SDPA where each key/value head attends for all the query heads it serves at once.

    transformers' SDPA path repeats every key/value head for each query head it serves
    (`repeat_kv`) whenever more than one token is queried: for a batch of agents verifying a
    few drafted tokens over a long cache, that copy costs more than the rest of the step. Here
    the query heads of a group are stacked along the query axis instead (what transformers does
    for a single token), so keys and values are read in place. Same result, fewer bytes moved.

    Args:
        module: The attention layer (its `num_key_value_groups` is read).
        query: (batch, heads, queries, head_dim).
        key: (batch, kv_heads, keys, head_dim).
        value: (batch, kv_heads, keys, head_dim).
        attention_mask: (batch, 1, queries, keys) additive or boolean mask.
        dropout: Dropout probability (0 at inference).
        scaling: Softmax scale.
        **kwargs: Ignored.

    Returns:
        (batch, queries, heads, head_dim) outputs, and no attention weights.
    """
    import torch

    batch, heads, queries, dim = query.shape
    groups = getattr(module, "num_key_value_groups", 1)
    kv_heads = heads // groups
    packed = query.reshape(batch, kv_heads, groups * queries, dim)
    mask = attention_mask
    if mask is not None and groups > 1:
        mask = mask.repeat(1, 1, groups, 1)
    output = torch.nn.functional.scaled_dot_product_attention(
        packed, key, value, attn_mask=mask, dropout_p=dropout, scale=scaling
    )
    output = output.reshape(batch, heads, queries, value.shape[-1])
    return output.transpose(1, 2).contiguous(), None


def register() -> None:
    """Make `packed_attention` available to transformers models under ATTENTION_NAME."""
    from transformers import AttentionInterface

    AttentionInterface.register(ATTENTION_NAME, packed_attention)


@contextmanager
def attention_implementation(model: Any, name: str) -> Iterator[None]:
    """Run the block with `model`'s attention layers using the implementation `name`.

    The caller holds the model's lock, so no other forward pass sees the switch.
    """
    config = model.config
    previous = config._attn_implementation
    config._attn_implementation = name
    try:
        yield
    finally:
        config._attn_implementation = previous
