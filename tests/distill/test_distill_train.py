from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from distill.config import LoraSettings, TrainConfig
from distill.errors import ChatTemplateError, TrainConfigError
from distill.template import has_generation_markers, render

FAST = TrainConfig(
    learning_rate=5e-3,
    max_steps=5,
    batch_size=2,
    gradient_accumulation_steps=1,
    logging_steps=1,
    eval_steps=5,
    lora=LoraSettings(r=8, alpha=16, train_embeddings=True),
)


@pytest.fixture(scope="module")
def trained(sft_data_dir: Path, scratch_base: Path, tmp_path_factory: pytest.TempPathFactory):
    from distill.train import build_trainer

    out = tmp_path_factory.mktemp("adapter")
    trainer, _ = build_trainer(sft_data_dir, str(scratch_base), out, FAST)
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()
    return trainer, before


def _runs(mask: list[bool]) -> list[tuple[int, int]]:
    runs, start = [], None
    for i, on in enumerate([*mask, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start, i))
            start = None
    return runs


def test_labels_are_exactly_the_assistant_tokens(trained: tuple[Any, Any]) -> None:
    trainer, _ = trained
    tokenizer = trainer.processing_class
    for row in trainer.train_dataset:
        ids, labels = row["input_ids"], row["labels"]
        text = render(tokenizer, row["messages"], __import__("json").loads(row["tools"]))
        assert tokenizer.decode(ids) == text
        expected = re.findall(r"<\|im_start\|>assistant\n(.*?<\|im_end\|>\n)", text, re.S)
        assert len(expected) == 3
        labelled = [label != -100 for label in labels]
        assert all(
            label == token for label, token in zip(labels, ids, strict=True) if label != -100
        )
        spans = [tokenizer.decode(ids[a:b]) for a, b in _runs(labelled)]
        assert spans == expected
        assert "<tool_call>" in spans[0] and spans[-1].endswith("</tool_call><|im_end|>\n")
        unlabelled = tokenizer.decode([t for t, on in zip(ids, labelled, strict=True) if not on])
        for message in row["messages"]:
            if message["role"] in ("system", "user", "tool"):
                assert message["content"] in unlabelled


def test_loss_decreases_and_only_adapter_weights_change(trained: tuple[Any, Any]) -> None:
    import torch

    trainer, before = trained
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == FAST.max_steps
    assert all(torch.isfinite(torch.tensor(losses)))
    assert losses[-1] < losses[0]
    after = dict(trainer.model.named_parameters())
    adapters = [n for n in before if "lora_" in n or "modules_to_save" in n]
    frozen = [n for n in before if n not in adapters]
    assert {n for n in adapters if "modules_to_save" in n}, "embeddings/head not trained"
    assert any("lora_A" in n for n in adapters) and any("lora_B" in n for n in adapters)
    for name in adapters:
        assert not torch.equal(before[name], after[name].detach()), f"{name} did not change"
    for name in frozen:
        assert torch.equal(before[name], after[name].detach()), f"base weight {name} changed"
    assert any("original_module" in n for n in frozen)


def test_template_without_markers_is_rejected(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path
) -> None:
    from transformers import AutoTokenizer

    from distill.train import build_trainer

    assert not has_generation_markers(AutoTokenizer.from_pretrained(scratch_base).chat_template)
    config = FAST.replace(chat_template="tokenizer")
    with pytest.raises(ChatTemplateError, match="generation"):
        build_trainer(sft_data_dir, str(scratch_base), tmp_path, config)


def test_tied_embeddings_with_train_embeddings_is_rejected(tmp_path: Path) -> None:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from distill.train import lora_config

    tied = Qwen3ForCausalLM(
        Qwen3Config(
            vocab_size=64,
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            head_dim=8,
            tie_word_embeddings=True,
        )
    )
    with pytest.raises(TrainConfigError, match="untie"):
        lora_config(FAST, tied)
    assert lora_config(FAST.replace(lora=LoraSettings()), tied).modules_to_save is None


@pytest.mark.slow
def test_train_save_resume_merge(sft_data_dir: Path, scratch_base: Path, tmp_path: Path) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from distill.merge import merge_adapter
    from distill.train import train_student

    out = tmp_path / "adapter"
    config = FAST.replace(max_steps=2, eval_steps=2)
    first = train_student(sft_data_dir, str(scratch_base), out, config)
    assert first.global_step == 2 and first.eval_losses and first.best_checkpoint
    assert (out / "adapter_config.json").is_file()
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert tokenizer.chat_template and not has_generation_markers(tokenizer.chat_template)
    with pytest.raises(TrainConfigError, match="--resume"):
        train_student(sft_data_dir, str(scratch_base), out, config)
    resumed = train_student(
        sft_data_dir, str(scratch_base), out, config.replace(max_steps=3), resume=True
    )
    assert resumed.global_step == 3

    merged_dir = merge_adapter(out, tmp_path / "merged")
    merged = AutoModelForCausalLM.from_pretrained(merged_dir)
    adapted = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(scratch_base), out)
    ids = tokenizer("Which papers does paper P1 cite?", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        expected = adapted(ids).logits
        assert torch.allclose(merged(ids).logits, expected, atol=1e-4)
        base = AutoModelForCausalLM.from_pretrained(scratch_base)
        assert not torch.allclose(base(ids).logits, expected, atol=1e-4)


def test_training_rows_and_inference_prompts_agree_token_for_token(
    trained: tuple[Any, Any],
) -> None:
    """`-m hf:` renders what training saw, and parses the trained turn back into the call."""
    import copy
    import json

    from agent.models.hf.model import LocalHFModel
    from distill.template import inference_template

    trainer, _ = trained
    tokenizer = copy.deepcopy(trainer.processing_class)
    tokenizer.chat_template = inference_template(tokenizer.chat_template)  # as saved for -m hf:
    student = LocalHFModel(trainer.model, tokenizer, name="student", reuse_kv=False)
    checked = 0
    for row in trainer.train_dataset:
        ids, labels, tools = row["input_ids"], row["labels"], json.loads(row["tools"])
        messages = row["messages"]
        for index, message in enumerate(messages):
            if message["role"] != "assistant":
                continue
            prompt = student.prompt_ids(messages[:index], tools)
            assert ids[: len(prompt)] == prompt
            assert labels[len(prompt) - 1] == -100 and labels[len(prompt)] != -100
            end = next((i for i in range(len(prompt), len(ids)) if labels[i] == -100), len(ids))
            parsed = student.parse_turn(ids[len(prompt) : end], messages[:index])
            expected = [c["function"] for c in message["tool_calls"]]
            assert [c["function"] for c in parsed["tool_calls"]] == expected
            assert (parsed["content"] or "") == (message["content"] or "")
            checked += 1
    assert checked >= 6
