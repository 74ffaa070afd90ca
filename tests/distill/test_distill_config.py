from __future__ import annotations

from pathlib import Path

import pytest

from distill.config import ATTENTION_MLP_PROJECTIONS, LoraSettings, load_config
from distill.errors import ChatTemplateError, TrainConfigError
from distill.template import (
    check_generation_markers,
    has_generation_markers,
    inference_template,
    load_training_template,
)


def test_defaults_are_the_papers() -> None:
    config = load_config(None)
    assert (config.learning_rate, config.num_train_epochs, config.max_length) == (1e-5, 1.0, 16384)
    assert config.optimizer.startswith("adamw") and config.assistant_only_loss
    assert (config.lora.r, config.lora.alpha) == (32, 64)
    assert config.lora.target_modules == ATTENTION_MLP_PROJECTIONS
    assert config.bf16 is None and config.gradient_checkpointing is None


def test_yaml_overrides_and_nested_lora(tmp_path: Path) -> None:
    file = tmp_path / "c.yaml"
    file.write_text(
        "learning_rate: 0.001\nmax_steps: 7\nlora:\n  r: 4\n  target_modules: [q_proj]\n"
    )
    config = load_config(file)
    assert config.learning_rate == 0.001 and config.max_steps == 7
    assert config.lora == LoraSettings(r=4, target_modules=("q_proj",))
    assert config.replace(max_steps=None, seed=3).max_steps == 7  # None leaves a value alone


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("learning_rat: 1\n", "unknown key"),
        ("lora: {rank: 4}\n", "unknown key"),
        ("learning_rate: 0\n", "learning_rate must be > 0"),
        ("max_steps: 0\n", "max_steps"),
        ("lora: {dropout: 1.5}\n", "dropout"),
        ("lora: 3\n", "mapping"),
        ("- a\n- b\n", "mapping"),
        ("key: [unclosed\n", "not valid YAML"),
    ],
)
def test_bad_configs_raise_typed_errors(tmp_path: Path, text: str, match: str) -> None:
    file = tmp_path / "c.yaml"
    file.write_text(text)
    with pytest.raises(TrainConfigError, match=match):
        load_config(file)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(TrainConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


def test_training_template_has_markers_and_inference_variant_has_none() -> None:
    training = load_training_template()
    assert has_generation_markers(training)
    plain = inference_template(training)
    assert not has_generation_markers(plain) and "endgeneration" not in plain
    with pytest.raises(ChatTemplateError, match="generation"):
        check_generation_markers(plain)
    with pytest.raises(ChatTemplateError, match="no chat template"):
        check_generation_markers(None)
    with pytest.raises(ChatTemplateError, match="prompts/"):
        load_training_template("missing.jinja")


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("learning_rate: .nan\n", "learning_rate"),
        ("max_minutes: .inf\n", "max_minutes"),
        ("weight_decay: -.inf\n", "weight_decay"),
        ("learning_rate: nan\n", "learning_rate"),
        ("lora: {dropout: .nan}\n", "dropout"),
    ],
)
def test_nan_and_inf_are_refused(tmp_path: Path, text: str, field: str) -> None:
    file = tmp_path / "c.yaml"
    file.write_text(text)
    with pytest.raises(TrainConfigError) as caught:
        load_config(file)
    message = str(caught.value)
    assert f"bad value for {field}" in message and "finite number" in message


def test_the_config_is_a_validated_pydantic_model() -> None:
    from pydantic import BaseModel

    from distill.config import TrainConfig, config_from_dict

    config = TrainConfig(max_steps=3, lora=LoraSettings(r=4))
    assert isinstance(config, BaseModel)
    assert config_from_dict(config.to_record()) == config  # the saved record reads back
    with pytest.raises(TrainConfigError, match="bad value for max_length"):
        config.replace(max_length=2.5)  # copies are validated too
    with pytest.raises(TrainConfigError, match="batch_size must be > 0"):
        TrainConfig(batch_size=0)  # so is direct construction
    with pytest.raises(ValueError, match="frozen"):
        config.seed = 4  # type: ignore[misc]
