"""The distillation budget study: its script end to end in the tiny configuration."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import AgentConfig
from benchmarks.studies.budget_study import BudgetStudy, budget_table, slug
from distill.dataset import load_sft_dataset
from distill.errors import TrainConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_student_names_become_directory_names() -> None:
    assert slug("Qwen/Qwen3-8B") == "qwen3-8b"
    assert slug("/models/My Student/") == "my-student"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"students": []}, "at least one student"),
        ({"budgets": (0, 600)}, "positive counts"),
        ({"students": ["a/Qwen3-8B", "b/qwen3-8b"]}, "collide"),
    ],
)
def test_bad_studies_are_refused(tmp_path: Path, kwargs: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"students": ["Qwen/Qwen3-8B"], **kwargs}
    with pytest.raises(TrainConfigError, match=message):
        BudgetStudy(snapshot=tmp_path, qa=tmp_path, out=tmp_path, teacher=AgentConfig(), **settings)  # type: ignore[arg-type]


def test_the_table_shows_percentages_under_the_stark_protocol() -> None:
    row = {
        "questions": 4,
        "failures": 1,
        "metrics": {"hit@1": 0.5, "hit@5": 0.75, "recall@20": 0.5, "mrr": 0.625},
    }
    assert "| qwen3-8b-600 | 4 | 1 | 50.00 | 75.00 | 50.00 | 62.50 |" in budget_table(
        {"qwen3-8b-600": row}
    )


@pytest.mark.slow
def test_the_tiny_study_runs_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "study"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.studies.distill_budget", "--tiny", "--out", str(out)],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "budget.json").read_text())
    students = ["scratch-w32-2", "scratch-w32-4", "scratch-w64-2", "scratch-w64-4"]
    assert list(summary["rows"]) == ["teacher", "base-scratch-w32", "base-scratch-w64", *students]
    assert all(row["questions"] == 2 for row in summary["rows"].values())
    table = (out / "budget.md").read_text()
    assert all(f"| {label} |" in table for label in summary["rows"])
    # Two budgets of teacher queries, nested, both validated on the official val split.
    small, large = (load_sft_dataset(out / "data" / str(b)) for b in (2, 4))
    small_ids, large_ids = set(small["train"]["question_id"]), set(large["train"]["question_id"])
    assert (len(small_ids), len(large_ids)) == (2, 4) and small_ids < large_ids
    for budget in (2, 4):
        stats = json.loads((out / "data" / str(budget) / "stats.json").read_text())
        assert stats["val_source"] == "official"
    # One adapter per (student size, budget), each trained on its own budget's data.
    for label in students:
        record = json.loads((out / "students" / label / "ark_training.json").read_text())
        assert record["data_dir"].endswith(f"data/{label.rsplit('-', 1)[1]}")
        assert f"scratch-w{label.split('-w')[1].split('-')[0]}" in record["base_model"]
