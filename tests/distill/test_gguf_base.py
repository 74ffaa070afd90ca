"""A GGUF base model: dequantised once into a cached checkpoint that trains, merges and runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from distill.errors import BaseModelError

gguf = pytest.importorskip("gguf")
transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

HEADS, KV_HEADS, HIDDEN, LAYERS = 4, 2, 64, 2


def _permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's Q/K row order (transformers undoes it when it reads a llama GGUF)."""
    return (
        weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


def write_llama_gguf(base: Path, out: Path) -> tuple[Any, Any]:
    """A tiny random Llama with `base`'s BPE tokenizer, written as GGUF (embeddings in Q8_0)."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(base)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=128,
        num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=KV_HEADS,
        max_position_embeddings=4096, tie_word_embeddings=True, rms_norm_eps=1e-6,
        bos_token_id=tokenizer.convert_tokens_to_ids("<|im_start|>"),
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
    )  # fmt: skip
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config).eval()
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_context_length(4096)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(128)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_dimension_count(HIDDEN // HEADS)
    writer.add_rope_freq_base(config.rope_parameters["rope_theta"])
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_vocab_size(len(tokenizer))
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    special = set(tokenizer.all_special_ids)
    merges = json.loads(tokenizer.backend_tokenizer.to_str())["model"]["merges"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list([token for token, _ in vocab])
    writer.add_token_types([3 if index in special else 1 for _, index in vocab])
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    writer.add_bos_token_id(config.bos_token_id)
    if tokenizer.chat_template:
        writer.add_chat_template(tokenizer.chat_template)
    writer.add_eos_token_id(config.eos_token_id)
    names = {
        "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
        "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm",
        "post_attention_layernorm": "ffn_norm",
    }  # fmt: skip
    for name, tensor in model.state_dict().items():
        array = tensor.numpy().astype(np.float32)
        if name == "model.embed_tokens.weight":
            quantised = gguf.quants.quantize(array, gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor("token_embd.weight", quantised,
                              raw_dtype=gguf.GGMLQuantizationType.Q8_0)  # fmt: skip
            continue
        if name == "model.norm.weight":
            writer.add_tensor("output_norm.weight", array)
            continue
        if name == "lm_head.weight":
            continue  # tied
        layer, rest = name.removeprefix("model.layers.").split(".", 1)
        module = rest.removesuffix(".weight")
        if module == "self_attn.q_proj":
            array = _permute(array, HEADS)
        elif module == "self_attn.k_proj":
            array = _permute(array, KV_HEADS)
        writer.add_tensor(f"blk.{layer}.{names[module]}.weight", array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return model, tokenizer


@pytest.fixture(scope="module")
def gguf_file(scratch_base: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("gguf")
    model, _ = write_llama_gguf(scratch_base, folder / "tiny.Q8_0.gguf")
    return folder / "tiny.Q8_0.gguf", model


@pytest.mark.slow
def test_gguf_is_dequantised_once_and_matches_the_original(
    gguf_file: tuple[Path, Any], scratch_base: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    from distill.gguf_base import SOURCE_RECORD
    from distill.preflight import resolve_base_model

    path, original = gguf_file
    checkpoint = Path(resolve_base_model(str(path), gguf_cache=tmp_path))
    assert checkpoint.parent == tmp_path and (checkpoint / SOURCE_RECORD).is_file()
    config = json.loads((checkpoint / "config.json").read_text())
    assert "quantization_config" not in config
    loaded = transformers.AutoModelForCausalLM.from_pretrained(checkpoint).eval()
    ours, theirs = loaded.state_dict(), original.state_dict()
    for name, tensor in theirs.items():
        tolerance = 0.02 if "embed_tokens" in name or "lm_head" in name else 0.0
        assert torch.allclose(ours[name], tensor, atol=tolerance), name
    tokenizer = transformers.AutoTokenizer.from_pretrained(checkpoint)
    reference = transformers.AutoTokenizer.from_pretrained(scratch_base)
    text = "Which papers does paper P3 cite about topic 3?"
    assert tokenizer(text)["input_ids"] == reference(text)["input_ids"]

    def no_second_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("dequantised twice")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", no_second_load)
    # A directory holding the file resolves to the same cached checkpoint, without a reload.
    assert resolve_base_model(str(path.parent), gguf_cache=tmp_path) == str(checkpoint)


@pytest.mark.slow
def test_gguf_base_trains_merges_and_runs(
    gguf_file: tuple[Path, Any], sft_data_dir: Path, tmp_path: Path
) -> None:
    import asyncio

    from agent.models.hf.model import LocalHFModel
    from distill.config import LoraSettings, TrainConfig
    from distill.merge import merge_adapter
    from distill.train import train_student

    path, _ = gguf_file
    config = TrainConfig(learning_rate=1e-3, max_steps=2, batch_size=1,
                         gradient_accumulation_steps=1, eval_steps=2, logging_steps=1,
                         lora=LoraSettings(r=4, alpha=8))  # fmt: skip
    result = train_student(sft_data_dir, str(path), tmp_path / "adapter", config,
                           gguf_cache=tmp_path / "cache")  # fmt: skip
    assert result.global_step == 2
    merged = merge_adapter(tmp_path / "adapter", tmp_path / "merged")
    student = LocalHFModel.load(merged, max_tokens=4)
    reply = asyncio.run(student.generate([{"role": "user", "content": "Which papers?"}], []))
    assert reply.message["role"] == "assistant" and reply.usage is not None


def test_missing_gguf_package_is_a_clear_error(
    gguf_file: tuple[Path, Any], tmp_path: Path, monkeypatch: Any
) -> None:
    from distill.preflight import resolve_base_model

    monkeypatch.setitem(sys.modules, "gguf", None)
    with pytest.raises(BaseModelError) as caught:
        resolve_base_model(str(gguf_file[0]), gguf_cache=tmp_path)
    assert "pip install 'ark-kg[distill]'" in str(caught.value)
    assert not any(tmp_path.iterdir())


def test_several_gguf_files_in_a_directory_must_be_chosen(tmp_path: Path) -> None:
    from distill.gguf_base import find_gguf

    for name in ("a.gguf", "b.gguf"):
        (tmp_path / name).write_bytes(b"GGUF")
    with pytest.raises(BaseModelError, match="several GGUF files"):
        find_gguf(tmp_path)
    assert find_gguf(tmp_path / "a.gguf") == tmp_path / "a.gguf"
    assert find_gguf(tmp_path / "missing") is None


@pytest.mark.slow
def test_hf_gguf_file_is_an_agent_model_from_the_training_cache(
    gguf_file: tuple[Path, Any], tmp_path: Path, monkeypatch: Any
) -> None:
    import asyncio

    from agent.config import AgentConfig
    from agent.models.hf.model import LocalHFModel
    from agent.models.registry import load_model
    from distill.gguf_base import SOURCE_RECORD, checkpoint_dir, default_cache_dir
    from distill.preflight import resolve_base_model

    monkeypatch.setenv("ARK_CACHE_DIR", str(tmp_path))
    path, _ = gguf_file
    model = load_model(AgentConfig(model=f"hf:{path}", max_tokens=4))
    assert isinstance(model, LocalHFModel) and model.name == f"hf:{path}"
    reply = asyncio.run(model.generate([{"role": "user", "content": "Which papers?"}], []))
    assert reply.message["role"] == "assistant" and reply.usage is not None
    assert reply.usage["completion_tokens"] >= 1
    cached = checkpoint_dir(path, default_cache_dir())
    assert (cached / SOURCE_RECORD).is_file()  # dequantised once, where training looks
    assert resolve_base_model(str(path)) == str(cached.resolve())
