"""Training memory: the estimate, the refusal before loading, and the levers reaching the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from distill.config import LoraSettings, TrainConfig
from distill.errors import TrainConfigError, TrainMemoryError
from distill.memory import (
    EAGER_ATTENTION_COPIES,
    GB,
    ModelShape,
    estimate_for_config,
    estimate_peak,
    plan_memory,
    planned_settings,
    read_shape,
)

SMOLLM2 = ModelShape(
    vocab_size=49152,
    hidden_size=576,
    intermediate_size=1536,
    layers=30,
    heads=9,
    kv_heads=3,
    head_dim=64,
    tied_embeddings=True,
)
"""SmolLM2-135M's config.json."""

STEP = TrainConfig(
    max_length=1024,
    max_steps=2,
    batch_size=1,
    gradient_accumulation_steps=1,
    logging_steps=1,
    eval_steps=2,
    learning_rate=5e-3,
    lora=LoraSettings(r=4, alpha=8, dropout=0.0),
)
"""Two steps, no LoRA dropout: the loss then depends only on the seed and the settings."""


def test_smollm2_parameter_count_is_its_published_135m() -> None:
    assert SMOLLM2.parameters == 134_515_008


def test_eager_attention_is_quadratic_and_checkpointing_keeps_one_layer() -> None:
    def peak(tokens: int, attention: str, checkpointing: bool) -> dict[str, int]:
        return estimate_peak(
            SMOLLM2, tokens=tokens, attention=attention, gradient_checkpointing=checkpointing
        ).parts

    eager_1k, eager_2k = peak(1024, "eager", False), peak(2048, "eager", False)
    assert eager_2k["attention"] == 4 * eager_1k["attention"]
    assert eager_1k["attention"] == 30 * 9 * 1024 * 1024 * 4 * EAGER_ATTENTION_COPIES
    assert peak(16384, "sdpa", False)["attention"] == 0
    kept, recomputed = peak(16384, "sdpa", False), peak(16384, "sdpa", True)
    assert recomputed["activations"] < kept["activations"] / 10
    assert peak(16384, "eager", True)["attention"] == peak(16384, "eager", False)["attention"] / 30


def test_defaults_fit_8_gb_at_the_papers_16k_rows() -> None:
    plan = planned_settings(TrainConfig(memory_limit_gb=8.0), SMOLLM2, gpu=False)
    assert plan.attention == "sdpa" and plan.gradient_checkpointing and not plan.bf16
    assert plan.estimate.gb <= 8.0
    assert TrainConfig().max_length == 16384


def test_short_rows_train_without_checkpointing_when_they_fit() -> None:
    plan = planned_settings(TrainConfig(max_length=1024, memory_limit_gb=8.0), SMOLLM2, gpu=False)
    assert not plan.gradient_checkpointing
    assert planned_settings(TrainConfig(max_length=1024), SMOLLM2, gpu=True).gradient_checkpointing


def test_refusal_names_the_memory_needed_and_the_longest_length_that_fits() -> None:
    config = TrainConfig(gradient_checkpointing=False, memory_limit_gb=8.0)
    with pytest.raises(TrainMemoryError) as caught:
        plan_memory(config, SMOLLM2, gpu=False)
    message = str(caught.value)
    needed = estimate_for_config(
        config, SMOLLM2, attention="sdpa", gradient_checkpointing=False, bf16=False
    ).gb
    assert f"needs an estimated {needed:.1f} GB" in message and "8.0 GB memory limit" in message
    longest = int(message.split("at most ")[1].split(" fits")[0].replace(",", ""))
    assert longest < 16384 and "--max-length" in message and "gradient_checkpointing" in message
    fitting = plan_memory(config.replace(max_length=longest), SMOLLM2, gpu=False)
    assert fitting.estimate.gb <= 8.0
    with pytest.raises(TrainMemoryError):
        plan_memory(config.replace(max_length=longest + 256), SMOLLM2, gpu=False)


def test_a_gpu_run_is_not_refused_on_host_memory() -> None:
    config = TrainConfig(memory_limit_gb=0.1)
    assert plan_memory(config, SMOLLM2, gpu=True).gradient_checkpointing


@pytest.mark.parametrize("limit", [0, -1.5])
def test_memory_limit_must_be_positive(limit: float) -> None:
    with pytest.raises(TrainConfigError, match="memory_limit_gb must be > 0"):
        TrainConfig(memory_limit_gb=limit)


def test_refused_before_the_model_loads(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    from distill.train import train_student

    loads: list[Any] = []
    monkeypatch.setattr(
        transformers.AutoModelForCausalLM, "from_pretrained", lambda *a, **k: loads.append(a)
    )
    with pytest.raises(TrainMemoryError, match="--max-length"):
        train_student(
            sft_data_dir, str(scratch_base), tmp_path / "o", STEP.replace(memory_limit_gb=0.5)
        )
    assert loads == [] and not (tmp_path / "o").exists()


@pytest.mark.parametrize("limit", ["0.5", "500MB", "0.5GB"])
def test_cli_refusal_exits_2_on_one_line(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path, limit: str
) -> None:
    # the limit is written as `ark graph import` takes it, or as a bare number of GB
    result = CliRunner(env={"COLUMNS": "400"}).invoke(
        build_app(),
        ["distill", "train", str(sft_data_dir), "--base-model", str(scratch_base),
         "--out", str(tmp_path / "o"), "--memory-limit", limit, "--max-length", "4096"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if "memory limit" in line]
    assert len(error) == 1, result.output
    assert "max_length=4,096" in error[0] and "0.5 GB memory limit" in error[0]
    assert "--max-length" in error[0] and "--memory-limit" in error[0]


def _between(config: TrainConfig, base: Path) -> float:
    """A limit the run fits only with gradient checkpointing."""
    shape = read_shape(base)
    kept, recomputed = (
        estimate_for_config(
            config, shape, attention="sdpa", gradient_checkpointing=checkpointing, bf16=False
        ).total
        for checkpointing in (False, True)
    )
    assert recomputed < kept
    return (kept + recomputed) / 2 / GB


def test_defaults_reach_the_model(sft_data_dir: Path, scratch_base: Path, tmp_path: Path) -> None:
    from distill.train import build_trainer

    config = STEP.replace(max_steps=1, max_length=4096)
    config = config.replace(memory_limit_gb=_between(config, scratch_base))
    trainer, _ = build_trainer(sft_data_dir, str(scratch_base), tmp_path / "o", config)
    assert trainer.args.gradient_checkpointing
    assert trainer.args.gradient_checkpointing_kwargs == {"use_reentrant": False}
    trainer.train()
    base = trainer.model.get_base_model()
    assert base.config._attn_implementation == "sdpa"
    assert base.is_gradient_checkpointing
    assert all(layer.gradient_checkpointing for layer in base.model.layers)


def test_explicit_old_settings_reach_the_model(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path
) -> None:
    from distill.train import build_trainer

    config = STEP.replace(attn_implementation="eager", gradient_checkpointing=False)
    trainer, _ = build_trainer(sft_data_dir, str(scratch_base), tmp_path / "o", config)
    trainer.train()
    base = trainer.model.get_base_model()
    assert base.config._attn_implementation == "eager"
    assert not base.is_gradient_checkpointing


def test_memory_levers_leave_the_loss_unchanged(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path
) -> None:
    """Same seed, same rows: eager without checkpointing vs sdpa with it, within 1e-5."""
    from distill.train import train_student

    old = STEP.replace(attn_implementation="eager", gradient_checkpointing=False)
    new = STEP.replace(attn_implementation="sdpa", gradient_checkpointing=True)
    before = train_student(sft_data_dir, str(scratch_base), tmp_path / "old", old)
    after = train_student(sft_data_dir, str(scratch_base), tmp_path / "new", new)
    assert len(before.losses) == len(after.losses) == 2
    for (step, loss_before), (_, loss_after) in zip(before.losses, after.losses, strict=True):
        assert loss_after == pytest.approx(loss_before, rel=1e-5, abs=1e-6), step


def test_freed_blocks_go_back_to_the_os_on_glibc() -> None:
    import platform

    from distill.memory import return_freed_memory

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt is glibc's")
    assert return_freed_memory() is True
