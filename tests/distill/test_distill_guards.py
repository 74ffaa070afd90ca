"""Bad settings and degenerate data end in typed errors that say how to fix them."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from distill.config import LoraSettings, TrainConfig, load_config
from distill.errors import BaseModelError, EmptyTrainingSetError, SFTDataError, TrainConfigError

runner = CliRunner(env={"COLUMNS": "400"})

TINY = TrainConfig(
    max_steps=1,
    batch_size=2,
    gradient_accumulation_steps=1,
    logging_steps=1,
    eval_steps=1,
    lora=LoraSettings(r=4, alpha=8),
)


def _fails(*args: str | Path) -> str:
    result = runner.invoke(build_app(), [str(a) for a in args])
    assert result.exit_code == 2, result.output + repr(result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return " ".join(result.output.split())


@pytest.mark.parametrize(
    ("text", "field", "given", "expected"),
    [
        ("learning_rate: abc\n", "learning_rate", "'abc'", "a number"),
        ("max_steps: ten\n", "max_steps", "'ten'", "an integer or null"),
        ("max_length: 20.5\n", "max_length", "20.5", "an integer"),
        ("bf16: maybe\n", "bf16", "'maybe'", "a boolean"),
        ("lora: {r: [1]}\n", "r", "[1]", "an integer"),
        ("lora: {target_modules: q_proj}\n", "target_modules", "'q_proj'", "a list of strings"),
    ],
)
def test_wrong_type_names_field_value_and_expected_type(
    tmp_path: Path, text: str, field: str, given: str, expected: str
) -> None:
    file = tmp_path / "c.yaml"
    file.write_text(text)
    with pytest.raises(TrainConfigError) as caught:
        load_config(file)
    message = str(caught.value)
    assert f"bad value for {field}" in message and given in message and expected in message
    assert "not supported between" not in message


def test_yaml_exponent_without_dot_is_read_as_a_number(tmp_path: Path) -> None:
    file = tmp_path / "c.yaml"
    file.write_text("learning_rate: 1e-5\nnum_train_epochs: 2\n")
    config = load_config(file)
    assert config.learning_rate == pytest.approx(1e-5) and config.num_train_epochs == 2.0


def test_cli_bad_config_value_exits_2_naming_the_field(tmp_path: Path) -> None:
    file = tmp_path / "c.yaml"
    file.write_text("learning_rate: abc\n")
    output = _fails(
        "distill", "train", tmp_path, "--base-model", "b", "--out", tmp_path / "o", "--config", file
    )
    assert "learning_rate" in output and "'abc'" in output and "a number" in output


@pytest.mark.parametrize("name", ["/nonexist", "./missing", "../missing", "~/missing", "a/b/c"])
def test_missing_local_base_model_says_no_such_directory(name: str) -> None:
    from distill.preflight import resolve_base_model

    with pytest.raises(BaseModelError) as caught:
        resolve_base_model(name)
    assert str(caught.value) == (
        f"no such directory or GGUF file: {name} (pass a local model directory, a `.gguf` "
        "file or a hub model name)"
    )


def test_hub_names_and_existing_directories_pass(tmp_path: Path) -> None:
    from distill.preflight import resolve_base_model

    assert resolve_base_model("Qwen/Qwen3-0.6B") == "Qwen/Qwen3-0.6B"
    assert resolve_base_model("gpt2") == "gpt2"
    assert resolve_base_model(str(tmp_path)) == str(tmp_path.resolve())


def test_cli_missing_base_model_directory(sft_data_dir: Path, tmp_path: Path) -> None:
    output = _fails(
        "distill", "train", sft_data_dir, "--base-model", "/nonexist", "--out", tmp_path / "o"
    )
    assert "no such directory or GGUF file: /nonexist" in output
    assert "Repo id" not in output


def test_truncation_that_drops_every_conversation_is_a_typed_error(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path
) -> None:
    from distill.train import train_student

    with pytest.raises(EmptyTrainingSetError) as caught:
        train_student(sft_data_dir, str(scratch_base), tmp_path / "o", TINY.replace(max_length=8))
    message = str(caught.value)
    assert "all 4 training conversations were dropped" in message
    assert "max_length=8" in message and "raise max_length" in message


def test_cli_truncation_to_nothing_exits_2(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path
) -> None:
    file = tmp_path / "c.yaml"
    file.write_text("max_length: 8\nmax_steps: 1\n")
    output = _fails(
        "distill",
        "train",
        sft_data_dir,
        "--base-model",
        scratch_base,
        "--out",
        tmp_path / "o",
        "--config",
        file,
    )
    assert "all 4 training conversations were dropped" in output and "raise max_length" in output


def _data_with_long_val(sft_data_dir: Path, root: Path) -> Path:
    """Train rows as built (first assistant token at 563); one val row of ~3,500 tokens."""
    import pyarrow.parquet as pq
    from datasets import Dataset

    root.mkdir()
    pq.write_table(pq.read_table(sft_data_dir / "train.parquet"), root / "train.parquet")
    row = Dataset(pq.read_table(sft_data_dir / "val.parquet"))[0]
    user = next(m for m in row["messages"] if m["role"] == "user")
    user["content"] = "paper " * 3000
    Dataset.from_list([row]).to_parquet(str(root / "val.parquet"))
    return root


def test_val_split_emptied_by_truncation_trains_without_validation(
    sft_data_dir: Path, scratch_base: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from distill.train import train_student

    data = _data_with_long_val(sft_data_dir, tmp_path / "data")
    with caplog.at_level(logging.WARNING, logger="distill.preflight"):
        result = train_student(
            data, str(scratch_base), tmp_path / "o", TINY.replace(max_length=600)
        )
    assert "dropped all 1 val conversations" in caplog.text
    assert result.global_step == 1 and not result.eval_losses and result.best_checkpoint is None


def test_empty_parquet_splits(sft_data_dir: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from distill.dataset import load_sft_dataset

    train = pq.read_table(sft_data_dir / "train.parquet")
    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(train, data / "train.parquet")
    pq.write_table(train.slice(0, 0), data / "val.parquet")
    assert load_sft_dataset(data)["val"] is None
    pq.write_table(train.slice(0, 0), data / "train.parquet")
    with pytest.raises(SFTDataError, match="holds no rows"):
        load_sft_dataset(data)


def test_statistics_estimate_tokens_without_a_tokenizer(run_dir: Path, tmp_path: Path) -> None:
    from distill.dataset import DatasetOptions, build_sft_dataset
    from distill.stats import approximate_tokens

    stats = build_sft_dataset([run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.2))
    assert stats.token_method == "approx"
    assert set(stats.tokens) == {"train", "val"}
    assert stats.tokens["train"]["total"] >= stats.tokens["train"]["max"] > 50
    assert any("train tokens (approx.: characters/4" in line for line in stats.lines())
    saved = json.loads((tmp_path / "data" / "stats.json").read_text())
    assert saved["token_method"] == "approx" and saved["tokens"]["train"]["total"] > 0
    row = {"tools": "x" * 8, "messages": [{"role": "user", "content": "abcde"}]}
    assert approximate_tokens([row]) == {"total": 4, "mean": 4.0, "max": 4}


def test_statistics_are_exact_with_a_tokenizer(
    run_dir: Path, tmp_path: Path, scratch_base: Path
) -> None:
    output = runner.invoke(
        build_app(),
        [
            "distill",
            "dataset",
            str(run_dir),
            "--out",
            str(tmp_path / "data"),
            "--tokenizer",
            str(scratch_base),
        ],
    ).output
    assert "train tokens:" in output and "approx" not in output
    assert json.loads((tmp_path / "data" / "stats.json").read_text())["token_method"] == "exact"
