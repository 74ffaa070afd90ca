"""Batched greedy decoding (GreedyBatch, GenerationBatcher) against plain `generate`."""

from __future__ import annotations

import asyncio
import random
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from agent.models.base import ModelError
from agent.models.batcher import GenerationBatcher
from agent.models.greedy_batch import DecodeOptions, GreedyBatch, GreedyRequest, greedy_compatible
from agent.models.kv_store import PrefixStore
from agent.models.prompt_lookup import draft
from agent.models.row_cache import PrefixKV, RowCache, attention_mask

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

VOCAB = 48
EOS = 1
PAD = 0


def tiny_model(family: str, seed: int = 0) -> Any:
    """A random float64 model (float64, so batching's different summation order cannot flip
    a greedy pick: the test checks the logic, not float32 rounding)."""
    torch.manual_seed(seed)
    shape = dict(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=512,
        eos_token_id=EOS, pad_token_id=PAD,
    )  # fmt: skip
    if family == "llama":
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**shape))
    else:
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**shape))
    return model.to(torch.float64).eval()


def cycle_model() -> Any:
    """A Llama that predicts token t + 1 after t (silenced layers, one-hot embeddings), never
    EOS: its greedy output repeats what the prompt already holds, so drafts are accepted."""
    model = tiny_model("llama")
    with torch.no_grad():
        model.model.embed_tokens.weight.copy_(torch.eye(VOCAB, 32, dtype=torch.float64) * 4)
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.lm_head.weight.zero_()
        for token in range(2, 32):
            model.lm_head.weight[token + 1 if token < 31 else 2, token] = 1.0
    return model


def serial(model: Any, ids: list[int], max_new: int) -> list[int]:
    """What plain greedy `generate` writes after `ids`."""
    input_ids = torch.tensor([ids])
    output = model.generate(
        input_ids=input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=max_new,
        do_sample=False, eos_token_id=[EOS], pad_token_id=PAD,
    )  # fmt: skip
    return output[0, len(ids) :].tolist()


def decoder(model: Any, lookahead: int, store: PrefixStore | None = None) -> GreedyBatch:
    options = DecodeOptions(
        eos_ids=frozenset({EOS}), pad_id=PAD, cache_field="cache", lookahead=lookahead
    )
    return GreedyBatch(model, options, store)


def run(batch: GreedyBatch, prompts: list[list[int]], max_new: int) -> list[list[int]]:
    done: dict[int, list[int]] = {}
    batch.run([GreedyRequest(ids, max_new) for ids in prompts], done.__setitem__)
    return [done[index] for index in range(len(prompts))]


@pytest.mark.parametrize("family", ["llama", "qwen3"])
@pytest.mark.parametrize("lookahead", [0, 4])
def test_batched_turns_equal_serial_generate(family: str, lookahead: int) -> None:
    """Four agents, prompts of 3..40 tokens, three turns each growing the conversation."""
    model = tiny_model(family)
    store = PrefixStore(8)
    batch = decoder(model, lookahead, store)
    rng = random.Random(1)
    prompts = [[rng.randrange(2, VOCAB) for _ in range(size)] for size in (3, 40, 17, 9)]
    for turn in range(3):
        passes_before = batch.forward_passes
        got = run(batch, prompts, max_new=12)
        assert got == [serial(model, ids, 12) for ids in prompts]
        # One forward pass per row for its prompt, then shared steps: fewer than serial's.
        assert batch.forward_passes - passes_before < sum(len(tokens) for tokens in got)
        prompts = [
            ids + tokens + [rng.randrange(2, VOCAB) for _ in range(turn + 3)]
            for ids, tokens in zip(prompts, got, strict=True)
        ]
    assert batch.reused_tokens > batch.computed_tokens  # later turns start from stored prefixes


def test_prompt_lookup_accepts_drafts_without_changing_outputs() -> None:
    model = cycle_model()
    prompts = [[*range(3, 25), 7, 8], [*range(10, 30), 12], [*range(2, 31), 5, 6]]
    outputs, passes = {}, {}
    for lookahead in (0, 4):
        batch = decoder(model, lookahead)
        outputs[lookahead] = run(batch, prompts, max_new=16)
        passes[lookahead] = batch.forward_passes
    assert outputs[0] == outputs[4] == [serial(model, ids, 16) for ids in prompts]
    assert outputs[0][0][:3] == [9, 10, 11]
    assert passes[4] < passes[0] - 8  # several tokens per step where the prompt had them


def test_identical_and_overlapping_prompts_share_stored_prefixes() -> None:
    model = tiny_model("qwen3")
    store = PrefixStore(4)
    batch = decoder(model, 2, store)
    shared = list(range(2, 30))
    first = run(batch, [[*shared, 40, 41]], max_new=6)
    assert batch.reused_tokens == 0
    second = run(batch, [[*shared, 42], [*shared, 40, 41]], max_new=6)
    assert second == [serial(model, [*shared, 42], 6), first[0]]
    assert batch.reused_tokens >= 2 * len(shared)


def test_rows_of_one_batch_share_their_common_prompt() -> None:
    """No stored prefix yet: the first row's prompt serves the rows that start alike."""
    model = tiny_model("llama")
    batch = decoder(model, 0, PrefixStore(4))
    shared = list(range(2, 40))
    prompts = [[*shared, 41], [*shared, 42, 43], [5, 6, 7]]
    assert run(batch, prompts, max_new=5) == [serial(model, ids, 5) for ids in prompts]
    assert batch.reused_tokens == len(shared)
    assert batch.computed_tokens == sum(len(ids) for ids in prompts) - len(shared)


def test_row_cache_refuses_to_overflow() -> None:
    model = tiny_model("llama")
    cache = RowCache(1, capacity=4, seeds=[None])
    cache.select(slice(0, 1), [0])
    ids = torch.tensor([[2, 3, 4, 5, 6]])
    mask = attention_mask(torch, [0], 5, torch.float64, "cpu")
    with pytest.raises(ValueError, match="more than the 4"):
        model(input_ids=ids, attention_mask=mask, position_ids=torch.arange(5)[None], cache=cache)


def test_seeds_must_match_rows() -> None:
    seed = PrefixKV([1, 2], [], [])
    with pytest.raises(ValueError, match="2 rows need 2 seeds"):
        RowCache(2, 8, [seed])


@pytest.mark.parametrize(
    ("tokens", "count", "expected"),
    [
        ([1, 2, 3, 4, 5, 9, 2, 3], 3, [4, 5, 9]),  # the tail's last occurrence, then 3 tokens
        ([4, 2, 3, 8, 2, 3, 9, 1, 2, 3], 2, [9, 1]),  # latest of two occurrences
        ([1, 2, 3], 2, []),  # nothing recurs
        ([5, 5, 5], 2, [5]),  # only one token follows
        ([1, 2, 3, 1, 2], 0, []),
        ([7], 3, []),
    ],
)
def test_draft(tokens: list[int], count: int, expected: list[int]) -> None:
    assert draft(tokens, count) == expected


def test_generation_settings_that_change_greedy_picks_keep_generate() -> None:
    model = tiny_model("llama")
    assert greedy_compatible(model) is None
    model.generation_config.repetition_penalty = 1.3
    assert "repetition_penalty" in (greedy_compatible(model) or "")
    sliding = tiny_model("qwen3")
    sliding.config.layer_types = ["sliding_attention", "full_attention"]
    assert "other than full causal" in (greedy_compatible(sliding) or "")
    flash = SimpleNamespace(config=SimpleNamespace(_attn_implementation="flash_attention_2"))
    assert "takes no per-row masks" in (greedy_compatible(flash) or "")


class _ScriptedDecoder:
    """Finishes the first row, then fails, once; afterwards answers every row with its index."""

    def __init__(self, error: Exception) -> None:
        self.error: Exception | None = error
        self.batches: list[list[list[int]]] = []

    def run(self, requests: list[GreedyRequest], on_done: Any) -> None:
        self.batches.append([request.ids for request in requests])
        if self.error is not None:
            error, self.error = self.error, None
            on_done(0, [7])
            raise error
        for row in range(len(requests)):
            on_done(row, [row])


def _batcher(decoder: Any, rows: int, **kw: Any) -> GenerationBatcher:
    batcher = GenerationBatcher(decoder, threading.Lock(), max_rows=rows, gather_s=60.0, **kw)
    return batcher


def test_a_failed_batch_fails_every_waiting_request_and_the_next_batch_runs() -> None:
    fake = _ScriptedDecoder(RuntimeError("boom"))
    batcher = _batcher(fake, 3)
    futures = [batcher.submit([2, 3, index], 4) for index in range(3)]
    assert futures[0].result(timeout=30) == [7]
    for future in futures[1:]:
        with pytest.raises(RuntimeError, match="boom"):
            future.result(timeout=30)
    again = [batcher.submit([5, index], 4) for index in range(3)]
    assert [future.result(timeout=30) for future in again] == [[0], [1], [2]]
    assert fake.batches[0] == [[2, 3, 0], [2, 3, 1], [2, 3, 2]]
    assert batcher.batch_sizes == [3, 3]


def test_errors_are_mapped_for_callers() -> None:
    fake = _ScriptedDecoder(RuntimeError("device lost"))

    def explain(exc: Exception) -> Exception:
        return ModelError(f"hf:x: {exc}; lower max_tokens")

    batcher = _batcher(fake, 2, on_error=explain)
    futures = [batcher.submit([2, index], 4) for index in range(2)]
    assert futures[0].result(timeout=30) == [7]
    with pytest.raises(ModelError, match="device lost; lower max_tokens"):
        futures[1].result(timeout=30)


def test_identical_requests_share_one_row() -> None:
    fake = _ScriptedDecoder(RuntimeError("unused"))
    fake.error = None
    batcher = _batcher(fake, 3)
    futures = [batcher.submit(ids, 4) for ids in ([2, 3], [4], [2, 3])]
    assert [future.result(timeout=30) for future in futures] == [[0], [1], [0]]
    assert fake.batches == [[[2, 3], [4]]]


def test_empty_prompt_is_refused() -> None:
    with pytest.raises(ValueError, match="empty prompt"):
        _batcher(_ScriptedDecoder(RuntimeError("x")), 1).submit([], 4)


def test_out_of_memory_reaches_every_agent_as_a_model_error(tmp_path: Any) -> None:
    """Through LocalHFModel: a CUDA OOM in a batch fails each agent with a ModelError."""
    from agent.models.local_hf import LocalHFModel

    scratch = pytest.importorskip("distill.scratch")
    spec = scratch.ScratchSpec(vocab_size=300, hidden_size=32, intermediate_size=64)
    path = scratch.save_scratch_base(tmp_path / "m", ["question about graphs"] * 20, spec)
    model = LocalHFModel.load(path, max_tokens=4)
    assert model.batcher is not None
    model.batcher.gather_s = 60.0
    model.batcher.max_rows = 2

    def out_of_memory(*args: Any, **kwargs: Any) -> Any:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    model._model.forward = out_of_memory

    async def two() -> list[Any]:
        calls = [
            model.generate([{"role": "user", "content": text}], [], temperature=0)
            for text in ("question", "graphs")
        ]
        return list(await asyncio.gather(*calls, return_exceptions=True))

    errors = asyncio.run(two())
    assert all(isinstance(error, ModelError) for error in errors)
    assert all("out of memory" in str(error) for error in errors)


@pytest.mark.parametrize("queries", [1, 5])
def test_packed_attention_equals_repeated_heads(queries: int) -> None:
    """Stacking a group's query heads gives what repeating the key/value heads gives."""
    from transformers.integrations.sdpa_attention import repeat_kv

    from agent.models.packed_attention import packed_attention

    class Layer:
        num_key_value_groups = 3

    generator = torch.Generator().manual_seed(0)
    query = torch.randn(2, 6, queries, 8, generator=generator, dtype=torch.float64)
    key = torch.randn(2, 2, 11, 8, generator=generator, dtype=torch.float64)
    value = torch.randn(2, 2, 11, 8, generator=generator, dtype=torch.float64)
    mask = attention_mask(torch, [6 - queries, 11 - queries], queries, torch.float64, "cpu")
    got, _ = packed_attention(Layer(), query, key, value, mask, scaling=0.3)
    expected = torch.nn.functional.scaled_dot_product_attention(
        query, repeat_kv(key, 3), repeat_kv(value, 3), attn_mask=mask, scale=0.3
    ).transpose(1, 2)
    assert got.shape == (2, queries, 6, 8)
    assert torch.allclose(got, expected, atol=1e-12)
