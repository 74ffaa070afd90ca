"""GreedyBatch: greedy decoding of several prompts in one set of forward passes."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.models.kv_reuse import MIN_REUSE_TOKENS, common_prefix
from agent.models.kv_store import PrefixStore
from agent.models.packed_attention import ATTENTION_NAME, attention_implementation, register
from agent.models.prompt_lookup import draft
from agent.models.row_cache import RowCache, attention_mask, position_ids

logger = logging.getLogger(__name__)

PREFILL_CHUNK = 2048
"""Prompt tokens per forward pass: bounds the attention mask's memory on long prompts."""

SAMPLING_FIELDS = (
    "repetition_penalty",
    "encoder_repetition_penalty",
    "no_repeat_ngram_size",
    "bad_words_ids",
    "suppress_tokens",
    "begin_suppress_tokens",
    "min_length",
    "min_new_tokens",
    "forced_bos_token_id",
    "forced_eos_token_id",
    "sequence_bias",
    "exponential_decay_length_penalty",
    "renormalize_logits",
    "watermarking_config",
)
"""generation_config fields whose non-default values make `generate` change greedy picks."""


@dataclass
class GreedyRequest:
    """One prompt to continue greedily.

    Attributes:
        ids: Prompt token ids.
        max_new_tokens: Most tokens to generate (the EOS included, as `generate` counts).
    """

    ids: list[int]
    max_new_tokens: int
    generated: list[int] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class DecodeOptions:
    """How GreedyBatch decodes.

    Attributes:
        eos_ids: Tokens that end a turn (kept in the output, as `generate` does).
        pad_id: Token fed in the unused slots of a padded step.
        cache_field: The model's keyword for its KV cache (`cache` or `past_key_values`).
        lookahead: Prompt-lookup draft tokens verified per step (0 turns drafting off).
    """

    eos_ids: frozenset[int]
    pad_id: int
    cache_field: str
    lookahead: int = 4


def greedy_compatible(model: Any) -> str | None:
    """Why `model` must not go through GreedyBatch, or None when it can.

    GreedyBatch reproduces plain greedy `generate`; a generation_config that changes greedy
    picks (repetition penalty, banned words, ...) or attention that is not full causal
    (sliding windows) would make its outputs differ, and kernels without per-row masks
    (flash attention) cannot run it, so such models keep `generate`.
    """
    from transformers import GenerationConfig

    config = getattr(model, "generation_config", None)
    defaults = GenerationConfig()
    for name in SAMPLING_FIELDS:
        if config is not None and getattr(config, name, None) != getattr(defaults, name, None):
            return f"generation_config.{name} is set"
    model_config = getattr(model, "config", None)
    implementation = getattr(model_config, "_attn_implementation", None)
    if implementation not in (None, "sdpa", "eager", ATTENTION_NAME):
        return f"its attention implementation {implementation!r} takes no per-row masks"
    layer_types = getattr(model_config, "layer_types", None) or []
    if any(kind != "full_attention" for kind in layer_types):
        return "it has attention layers other than full causal attention"
    if getattr(model_config, "use_sliding_window", False):
        return "it uses sliding-window attention"
    if getattr(model_config, "is_encoder_decoder", False):
        return "it is an encoder-decoder model"
    return None


class GreedyBatch:
    """Greedy decoding of several prompts at once, token for token what `generate` writes.

    Each prompt starts from the longest prefix computed before (`PrefixStore`), its remaining
    tokens are computed row by row, then every decoding step is one forward pass for all
    rows together: the model's weights are read once per step for all agents, which is the
    cost of decoding on a CPU. Attention runs as `packed_attention` (no per-head copies of
    the cache). With `lookahead`, each step also verifies tokens drafted by
    prompt lookup (`prompt_lookup.draft`); a row keeps a drafted token only when it equals the
    model's own greedy pick, so the output is unchanged and a step may yield several tokens.
    """

    def __init__(self, model: Any, options: DecodeOptions, store: PrefixStore | None) -> None:
        """Decode with `model` (a transformers causal LM in eval mode).

        Args:
            model: The model.
            options: EOS, padding and drafting settings.
            store: Computed prefixes to start from and to add finished sequences to.
        """
        self._model = model
        self._options = options
        self.store = store
        register()
        self.forward_passes = 0
        self.reused_tokens = 0
        self.computed_tokens = 0

    def run(self, requests: list[GreedyRequest], on_done: Callable[[int, list[int]], None]) -> None:
        """Decode every request; call `on_done(index, generated ids)` as each one finishes.

        Raises:
            Whatever the model raises; requests already reported to `on_done` stay done.
        """
        import torch

        with torch.inference_mode(), attention_implementation(self._model, ATTENTION_NAME):
            self._run(torch, requests, on_done)

    def _run(
        self, torch: Any, requests: list[GreedyRequest], on_done: Callable[[int, list[int]], None]
    ) -> None:
        lookahead = self._options.lookahead
        store = self.store
        seeds = [store.longest(request.ids) if store else None for request in requests]
        capacity = max(len(r.ids) + r.max_new_tokens + lookahead + 1 for r in requests)
        cache = RowCache(len(requests), capacity, seeds)
        active: list[int] = []
        for row, request in enumerate(requests):
            if store is not None:
                self._share_earlier_row(cache, requests, row)
            start = cache.lengths[row]
            self.reused_tokens += start
            self.computed_tokens += len(request.ids) - start
            token = self._prefill(torch, cache, row, request.ids[start:], start)
            cache.lengths[row] = len(request.ids)
            if self._accept(request, [token]):
                self._finish(cache, row, request, on_done)
            else:
                active.append(row)
        while active:
            active = self._step(torch, cache, requests, active, on_done)

    @staticmethod
    def _share_earlier_row(cache: RowCache, requests: list[GreedyRequest], row: int) -> None:
        """Start `row` from an earlier row's prompt when it shares more than the store had.

        The agents of a question share the system prompt, tools and question; the first of
        them to be computed in a batch serves the others.
        """
        ids = requests[row].ids
        best, length = None, cache.lengths[row]
        for earlier in range(row):
            common = min(common_prefix(requests[earlier].ids, ids), len(ids) - 1)
            if common > length and common >= MIN_REUSE_TOKENS:
                best, length = earlier, common
        if best is not None:
            cache.share(best, row, length)

    def _prefill(self, torch: Any, cache: RowCache, row: int, tokens: list[int], start: int) -> int:
        """Compute a row's uncached prompt tokens; return its first generated token."""
        chunks = [tokens[at : at + PREFILL_CHUNK] for at in range(0, len(tokens), PREFILL_CHUNK)]
        rows = slice(row, row + 1)
        for index, chunk in enumerate(chunks[:-1]):
            self._forward(torch, cache, rows, [chunk], [start + index * PREFILL_CHUNK])
        last_start = start + (len(chunks) - 1) * PREFILL_CHUNK
        logits = self._forward(torch, cache, rows, [chunks[-1]], [last_start], last_only=True)
        return int(logits[0, -1].argmax())

    def _step(
        self,
        torch: Any,
        cache: RowCache,
        requests: list[GreedyRequest],
        active: list[int],
        on_done: Callable[[int, list[int]], None],
    ) -> list[int]:
        """One forward pass for the active rows: the last token plus each row's draft."""
        rows = slice(active[0], active[-1] + 1)
        drafts: dict[int, list[int]] = {}
        for row in active:
            request = requests[row]
            budget = min(self._options.lookahead, request.max_new_tokens - len(request.generated))
            drafts[row] = draft(request.ids + request.generated, budget - 1)
        width = 1 + max(len(tokens) for tokens in drafts.values())
        inputs = []
        for row in range(rows.start, rows.stop):
            tokens = [requests[row].generated[-1], *drafts[row]] if row in drafts else []
            inputs.append(tokens + [self._options.pad_id] * (width - len(tokens)))
        starts = cache.lengths[rows]
        picks = self._forward(torch, cache, rows, inputs, starts).argmax(-1).tolist()
        still_active = []
        for row in active:
            request, proposed = requests[row], drafts[row]
            greedy = picks[row - rows.start]
            accepted = [greedy[0]]
            for index, token in enumerate(proposed):
                if token != greedy[index]:
                    break
                accepted.append(greedy[index + 1])
            before = len(request.generated)
            done = self._accept(request, accepted)
            cache.lengths[row] += len(request.generated) - before
            if done:
                self._finish(cache, row, request, on_done)
            else:
                still_active.append(row)
        return still_active

    def _forward(
        self,
        torch: Any,
        cache: RowCache,
        rows: slice,
        inputs: list[list[int]],
        starts: list[int],
        *,
        last_only: bool = False,
    ) -> Any:
        """Run the model on `inputs` (one list per row of `rows`); return the logits."""
        device = self._model.device
        width = len(inputs[0])
        cache.select(rows, starts)
        output = self._model(
            input_ids=torch.tensor(inputs, device=device),
            attention_mask=attention_mask(torch, starts, width, self._model.dtype, device),
            position_ids=position_ids(torch, starts, width, device),
            use_cache=True,
            **({"logits_to_keep": 1} if last_only else {}),
            **{self._options.cache_field: cache},
        )
        self.forward_passes += 1
        return output.logits

    def _accept(self, request: GreedyRequest, tokens: list[int]) -> bool:
        """Append `tokens` up to an EOS or the budget; True when the request is finished."""
        for token in tokens:
            request.generated.append(token)
            if token in self._options.eos_ids or len(request.generated) >= request.max_new_tokens:
                return True
        return False

    def _finish(
        self,
        cache: RowCache,
        row: int,
        request: GreedyRequest,
        on_done: Callable[[int, list[int]], None],
    ) -> None:
        if self.store is not None:
            computed = (request.ids + request.generated)[: cache.lengths[row]]
            self.store.put(cache.prefix(row, computed))
        on_done(row, list(request.generated))
