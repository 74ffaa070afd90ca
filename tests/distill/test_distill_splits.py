"""Validation on the official val split, and seeded sampling of the training questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from distill.dataset import DatasetOptions, build_sft_dataset, load_sft_dataset
from distill.errors import SFTDataError
from tests.distill.conftest import make_trajectory, write_run


def questions(prefix: str, count: int) -> list[tuple[str, list[str], list]]:
    made = []
    for q in range(count):
        text = f"Which papers does paper P{q} cite about topic {prefix}{q}?"
        made.append((f"{prefix}{q}", [f"n{q}"], [make_trajectory(text, f"P{q}", [f"n{q}"])]))
    return made


def qa_dir(root: Path, splits: dict[str, list[str]]) -> Path:
    """A question directory of <split>.jsonl files (the synthetic generator's layout)."""
    root.mkdir(parents=True, exist_ok=True)
    for split, ids in splits.items():
        lines = [json.dumps({"id": i, "query": f"q {i}", "answer_ids": ["n0"]}) for i in ids]
        (root / f"{split}.jsonl").write_text("\n".join(lines) + "\n")
    return root


def run(root: Path, name: str, items: list, qa: Path | None, split: str | None) -> Path:
    config = {"agent": {"model": "rules"}, "qa": None if qa is None else str(qa), "split": split}
    return write_run(root / name, items, config)


def ids(data_dir: Path, split: str) -> set[str]:
    rows = load_sft_dataset(data_dir)[split]
    return set() if rows is None else set(rows["question_id"])


def test_the_official_val_split_validates_when_the_teacher_ran_on_it(tmp_path: Path) -> None:
    qa = qa_dir(tmp_path / "qa", {"train": [f"t{i}" for i in range(8)], "val": ["v0", "v1"]})
    train_run = run(tmp_path, "train", questions("t", 8), qa, "train")
    val_run = run(tmp_path, "val", questions("v", 2), qa, "val")
    stats = build_sft_dataset([train_run, val_run], tmp_path / "data")
    assert stats.val_source == "official"
    assert ids(tmp_path / "data", "val") == {"v0", "v1"}  # not a random 10% of the questions
    assert ids(tmp_path / "data", "train") == {f"t{i}" for i in range(8)}
    assert json.loads((tmp_path / "data" / "stats.json").read_text())["val_source"] == "official"


def test_a_run_over_all_splits_finds_its_val_questions_in_the_question_set(
    tmp_path: Path,
) -> None:
    qa = qa_dir(tmp_path / "qa", {"train": ["t0", "t1", "t2"], "val": ["t3"], "test": ["x"]})
    everything = run(tmp_path, "all", questions("t", 4), qa, "all")
    build_sft_dataset([everything], tmp_path / "data")
    assert ids(tmp_path / "data", "val") == {"t3"}


def test_without_an_official_split_auto_holds_out_a_random_share(tmp_path: Path) -> None:
    plain = run(tmp_path, "plain", questions("t", 10), None, None)
    stats = build_sft_dataset([plain], tmp_path / "data", DatasetOptions(val_fraction=0.2))
    assert stats.val_source == "random" and len(ids(tmp_path / "data", "val")) == 2
    with pytest.raises(SFTDataError, match="--split val"):
        build_sft_dataset([plain], tmp_path / "d2", DatasetOptions(val_source="official"))


def test_random_source_ignores_the_official_split(tmp_path: Path) -> None:
    qa = qa_dir(tmp_path / "qa", {"train": [f"t{i}" for i in range(8)], "val": ["v0", "v1"]})
    runs = [
        run(tmp_path, "train", questions("t", 8), qa, "train"),
        run(tmp_path, "val", questions("v", 2), qa, "val"),
    ]
    options = DatasetOptions(val_source="random", val_fraction=0.5, seed=1)
    stats = build_sft_dataset(runs, tmp_path / "data", options)
    assert stats.val_source == "random" and len(ids(tmp_path / "data", "val")) == 5


def test_training_questions_are_sampled_at_random_with_a_seed(tmp_path: Path) -> None:
    qa = qa_dir(tmp_path / "qa", {"train": [f"t{i}" for i in range(30)], "val": ["v0"]})
    runs = [
        run(tmp_path, "train", questions("t", 30), qa, "train"),
        run(tmp_path, "val", questions("v", 1), qa, "val"),
    ]
    small = build_sft_dataset(runs, tmp_path / "s", DatasetOptions(sample=4, seed=2))
    build_sft_dataset(runs, tmp_path / "l", DatasetOptions(sample=12, seed=2))
    small_ids, large_ids = ids(tmp_path / "s", "train"), ids(tmp_path / "l", "train")
    assert (len(small_ids), len(large_ids)) == (4, 12) and small_ids < large_ids
    assert small_ids != {f"t{i}" for i in range(4)}  # random, not the first N
    assert ids(tmp_path / "s", "val") == {"v0"}  # validation is never sampled away
    assert (small.sample, small.split_questions["train"]) == (4, 4)
    build_sft_dataset(runs, tmp_path / "s2", DatasetOptions(sample=4, seed=3))
    assert ids(tmp_path / "s2", "train") != small_ids


def test_cli_dataset_reports_the_official_split_and_sample(tmp_path: Path) -> None:
    qa = qa_dir(tmp_path / "qa", {"train": [f"t{i}" for i in range(6)], "val": ["v0"]})
    train_run = run(tmp_path, "train", questions("t", 6), qa, "train")
    val_run = run(tmp_path, "val", questions("v", 1), qa, "val")
    args = ["distill", "dataset", str(train_run), str(val_run), "--out", str(tmp_path / "d")]
    result = CliRunner().invoke(build_app(), [*args, "--sample", "3", "--json"])
    assert result.exit_code == 0, result.output
    # The runner mixes in stderr (datasets' progress bars); the JSON is the line on stdout.
    stats = json.loads(result.output[result.output.index('{"questions"') :])
    assert (stats["val_source"], stats["sample"]) == ("official", 3)
    assert stats["split_questions"] == {"train": 3, "val": 1}
    bad = CliRunner().invoke(build_app(), [*args, "--val-source", "maybe"])
    assert bad.exit_code == 2 and "val_source must be one of" in " ".join(bad.output.split())
