"""hf: models without a chat template: a clear error, or the template the user supplies."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent.models.base import ModelError
from agent.models.hf.chat_template import ChatTemplateError, template_beside, turn_end_ids
from agent.models.hf.gguf import SOURCE_RECORD, checkpoint_dir
from agent.models.hf.model import LocalHFModel

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WORDS = ["user", "model", "capital", "of", "France", "Paris", "junk", "a", "b", "c", "d", "e"]
SPECIALS = ["<unk>", "<pad>", "<eos>", "<start_of_turn>", "<end_of_turn>"]
# Greedy output after the generation prompt: the answer, the turn's end marker, then junk that
# only the marker (not the tokenizer's <eos>) keeps out of the reply.
CHAIN = ["model", "Paris", "<end_of_turn>", "junk", "junk"]
GEMMA_LIKE = (
    "{% for m in messages %}<start_of_turn>{{ 'model' if m.role == 'assistant' else 'user' }}\n"
    "{{ m.content }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)
QUESTION = [{"role": "user", "content": "capital of France"}]


def tokenizer_without_template() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    core = Tokenizer(models.WordLevel(unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordLevelTrainer(special_tokens=SPECIALS, show_progress=False)
    core.train_from_iterator([" ".join(WORDS)], trainer=trainer)
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )


def save_model(out: Path, model_type: str = "qwen3") -> Path:
    """A tiny model whose greedy output follows CHAIN, saved with a tokenizer and no template."""
    tokenizer = tokenizer_without_template()
    width = 32
    common = dict(
        vocab_size=len(tokenizer), hidden_size=width, intermediate_size=8, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=width // 4,
        max_position_embeddings=256, tie_word_embeddings=False,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    if model_type == "gemma3":
        config = transformers.Gemma3TextConfig(
            **common, sliding_window=4, layer_types=["sliding_attention", "full_attention"]
        )
        model = transformers.Gemma3ForCausalLM(config)
    else:
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**common))
        with torch.no_grad():
            model.model.embed_tokens.weight.copy_(torch.eye(len(tokenizer), width))
            for layer in model.model.layers:
                layer.self_attn.o_proj.weight.zero_()
                layer.mlp.down_proj.weight.zero_()
            model.lm_head.weight.zero_()
            ids = tokenizer.convert_tokens_to_ids(CHAIN)
            for current, following in itertools.pairwise(ids):
                model.lm_head.weight[following, current] = 1.0
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    assert not transformers.AutoTokenizer.from_pretrained(out).chat_template
    return out


@pytest.fixture(scope="module")
def bare_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_model(tmp_path_factory.mktemp("bare") / "model")


@pytest.fixture
def model_dir(bare_dir: Path, tmp_path: Path) -> Path:
    """A fresh copy, so a template written beside it stays in this test."""
    return Path(shutil.copytree(bare_dir, tmp_path / "model"))


@pytest.fixture
def gguf_file(bare_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A `.gguf` path whose dequantised checkpoint is already in the cache (the real cache hit
    `hf:FILE.gguf` takes on every load after the first), and that cache."""
    folder = tmp_path / "models"
    folder.mkdir()
    path = folder / "tiny.Q4_K_M.gguf"
    path.write_bytes(b"GGUF")
    cache = tmp_path / "cache"
    target = checkpoint_dir(path, cache)
    shutil.copytree(bare_dir, target)
    (target / SOURCE_RECORD).write_text(json.dumps({"gguf_file": str(path)}))
    return path, cache


def reply(model: LocalHFModel) -> Any:
    return asyncio.run(model.generate(QUESTION, []))


def test_model_without_template_says_where_to_put_one(model_dir: Path) -> None:
    with pytest.raises(ChatTemplateError) as caught:
        LocalHFModel.load(model_dir, max_tokens=4)
    message = str(caught.value)
    assert "no chat template" in message
    assert str(model_dir / "chat_template.jinja") in message
    assert "chat_template=FILE" in message
    assert isinstance(caught.value, ModelError)  # the CLI's exit-2 path catches ModelError


def test_gguf_without_template_names_the_file_beside_it(gguf_file: tuple[Path, Path]) -> None:
    path, cache = gguf_file
    with pytest.raises(ChatTemplateError, match=r"tiny\.Q4_K_M\.jinja.*chat_template\.jinja"):
        LocalHFModel.load(path, gguf_cache=cache)


@pytest.mark.parametrize("name", ["tiny.Q4_K_M.jinja", "chat_template.jinja"])
def test_template_beside_a_gguf_file_is_used(gguf_file: tuple[Path, Path], name: str) -> None:
    path, cache = gguf_file
    (path.parent / name).write_text(GEMMA_LIKE)
    model = LocalHFModel.load(path, gguf_cache=cache, max_tokens=4)
    assert model._tokenizer.chat_template == GEMMA_LIKE
    assert reply(model).message["content"] == "Paris"


def test_template_in_a_model_directory_is_used(model_dir: Path) -> None:
    (model_dir / "chat_template.jinja").write_text(GEMMA_LIKE)
    model = LocalHFModel.load(model_dir, max_tokens=4)
    prompt = model._tokenizer.convert_ids_to_tokens(model.prompt_ids(QUESTION, []))
    assert prompt[-2:] == ["<start_of_turn>", "model"]


def test_supplied_template_is_used_and_its_turn_end_stops_the_turn(
    model_dir: Path, tmp_path: Path
) -> None:
    file = tmp_path / "gemma.jinja"
    file.write_text(GEMMA_LIKE)
    model = LocalHFModel.load(model_dir, max_tokens=4, chat_template=file)
    turn_end = model._tokenizer.convert_tokens_to_ids("<end_of_turn>")
    assert turn_end_ids(model._tokenizer) == {turn_end}
    answer = reply(model)
    # Without <end_of_turn> as a stop token the turn would run on: "Paris junk junk".
    assert answer.message["content"] == "Paris"
    assert answer.usage["completion_tokens"] == 2


def test_supplied_template_replaces_the_models_own(model_dir: Path, tmp_path: Path) -> None:
    chatml = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
    (model_dir / "chat_template.jinja").write_text(chatml)
    file = tmp_path / "gemma.jinja"
    file.write_text(GEMMA_LIKE)
    model = LocalHFModel.load(model_dir, max_tokens=4, chat_template=file)
    assert model._tokenizer.chat_template == GEMMA_LIKE


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (None, "cannot read"),
        ("", "empty"),
        ("  \n", "empty"),
        ("{% for m in messages %}{{ m.content }}", "line 1: not a Jinja chat template"),
        (b"\xff\xfe{{", "cannot read"),
    ],
)
def test_bad_template_file_is_a_clear_error(
    model_dir: Path, tmp_path: Path, text: str | bytes | None, match: str
) -> None:
    file = tmp_path / "template.jinja"
    if isinstance(text, bytes):
        file.write_bytes(text)
    elif text is not None:
        file.write_text(text)
    with pytest.raises(ChatTemplateError, match=match):
        LocalHFModel.load(model_dir, chat_template=file)


def test_a_named_template_beats_the_folder_template(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF")
    assert template_beside(path) is None
    (tmp_path / "chat_template.jinja").write_text(GEMMA_LIKE)
    assert template_beside(path) == tmp_path / "chat_template.jinja"
    (tmp_path / "m.jinja").write_text(GEMMA_LIKE)
    assert template_beside(path) == tmp_path / "m.jinja"


def test_sliding_window_cache_is_not_cropped_but_recomputed(tmp_path: Path) -> None:
    """Gemma 3's local attention drops states past its window, so a prompt that shares only
    part of an earlier one is computed afresh, with the same greedy output."""
    path = save_model(tmp_path / "gemma", model_type="gemma3")
    (path / "chat_template.jinja").write_text(GEMMA_LIKE)
    reused = LocalHFModel.load(path, max_tokens=3)
    fresh = LocalHFModel(reused._model, reused._tokenizer, name="fresh", max_tokens=3,
                         reuse_kv=False)  # fmt: skip
    first = [{"role": "user", "content": "a b c d e a b c d"}]
    second = [{"role": "user", "content": "a b c d e a b c e"}]
    for messages in (first, second):
        ours = asyncio.run(reused.generate(messages, []))
        theirs = asyncio.run(fresh.generate(messages, []))
        assert ours.message == theirs.message
    assert reused.prefix_cache is not None and reused.prefix_cache.reused_tokens == 0
