"""The distillation budget study (paper Fig. 4, Table 5): students x teacher-query budgets.

End to end, resumable (every finished run, dataset and adapter is reused):

1. the teacher on a seeded random `max(budgets)` of the train split (the paper: up to 6,000
   training queries, three trajectories each at temperature 0.7) and on the official val
   split (early stopping);
2. one SFT dataset per budget: a seeded random `budget` of the teacher's training questions
   (nested: with one seed the 600 are among the 6,000), validated on the official val split;
3. one LoRA student per (base model, budget), the paper's recipe (`TrainConfig`);
4. the teacher, each base model untouched and each student on the test split (optionally a
   seeded sample of it), with the same agent settings;
5. `budget.md` / `budget.json`: Hit@1, Hit@5, R@20 and MRR of every row under the STaRK
   protocol, failures counted as misses.

Layout under `out`::

    runs/teacher-train  runs/teacher-val  runs/test-teacher  runs/test-base-NAME
    runs/test-NAME-BUDGET  data/BUDGET  students/NAME-BUDGET  budget.md  budget.json
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.config import AgentConfig
from distill.config import TrainConfig
from distill.dataset import DatasetOptions, build_sft_dataset
from distill.errors import TrainConfigError
from distill.train import train_student
from evals.metrics import METRIC_NAMES, METRIC_TITLES
from evals.qa.sampling import QuestionSample
from evals.runs.request import RunRequest
from evals.runs.runner import evaluate
from evals.summary import summarize_run

logger = logging.getLogger(__name__)

PAPER_BUDGETS = (600, 6000)
PROTOCOL = "stark"
REPORT_FILE = "budget.md"
SUMMARY_FILE = "budget.json"


def slug(name: str) -> str:
    """A base model's name as a directory name: `Qwen/Qwen3-8B` -> `qwen3-8b`."""
    return re.sub(r"[^a-z0-9.]+", "-", Path(name.rstrip("/")).name.lower()).strip("-") or "model"


@dataclass(frozen=True, kw_only=True)
class BudgetStudy:
    """One budget study.

    Attributes:
        snapshot: Snapshot directory.
        qa: Question set with train, val and test splits (STaRK CSV + split/, or a directory
            of <split>.jsonl files).
        out: Work directory (see the module docstring).
        teacher: The teacher's agent configuration (the paper: GPT-4.1, n=3, T=20, 0.7).
        students: Base models (hub names or local directories), e.g. Qwen3-4B and Qwen3-8B.
        budgets: Teacher-query budgets (the paper: 600 and 6,000).
        train: The SFT recipe (paper defaults).
        val_sample: Run the teacher on this many random val questions (None: all of them).
        test_sample: Score on this many random test questions (None: all of them).
        include_bases: Also score every base model untouched (the paper's Fig. 4 does).
        seed: Seed of every sample.
        concurrency: Questions in flight per evaluation.
    """

    snapshot: Path
    qa: Path
    out: Path
    teacher: AgentConfig
    students: Sequence[str]
    budgets: Sequence[int] = PAPER_BUDGETS
    train: TrainConfig = field(default_factory=TrainConfig)
    val_sample: int | None = None
    test_sample: int | None = None
    include_bases: bool = True
    seed: int = 0
    concurrency: int = 4

    def __post_init__(self) -> None:
        if not self.students:
            raise TrainConfigError("give at least one student base model")
        if not self.budgets or min(self.budgets) < 1:
            raise TrainConfigError(f"budgets must be positive counts, got {list(self.budgets)}")
        names = [slug(s) for s in self.students]
        if len(set(names)) != len(names):
            raise TrainConfigError(f"student names collide as directories: {names}")

    def request(self, name: str, split: str, size: int | None) -> RunRequest:
        """A resumable run of `size` random questions of `split` into runs/NAME."""
        out = Path(self.out) / "runs" / name
        return RunRequest(
            snapshot=self.snapshot,
            qa=self.qa,
            out=out,
            split=split,
            sample=QuestionSample(size=size, seed=self.seed),
            concurrency=self.concurrency,
            resume=out.exists(),
        )

    def as_student(self, model: str) -> AgentConfig:
        """The teacher's agent settings with another model (the interface stays fixed)."""
        return replace(self.teacher, model=model, base_url=None)


Step = Callable[[str], None]
"""Told the name of each step as it starts (progress display)."""


def _teacher_runs(study: BudgetStudy, on_step: Step) -> tuple[Path, Path]:
    train = study.request("teacher-train", "train", max(study.budgets))
    val = study.request("teacher-val", "val", study.val_sample)
    for name, request in (("teacher on train", train), ("teacher on val", val)):
        on_step(name)
        evaluate(request, study.teacher)
    return Path(train.out), Path(val.out)


def _datasets(study: BudgetStudy, runs: tuple[Path, Path], on_step: Step) -> dict[int, Path]:
    datasets = {}
    for budget in sorted(study.budgets):
        data = Path(study.out) / "data" / str(budget)
        if not (data / "train.parquet").is_file():
            on_step(f"dataset of {budget} teacher queries")
            options = DatasetOptions(val_source="official", sample=budget, seed=study.seed)
            build_sft_dataset(list(runs), data, options)
        datasets[budget] = data
    return datasets


def _students(study: BudgetStudy, datasets: dict[int, Path], on_step: Step) -> dict[str, str]:
    """Train every (base, budget) student; returns row label -> `-m` model spec."""
    models: dict[str, str] = {}
    for base in study.students:
        for budget, data in datasets.items():
            label = f"{slug(base)}-{budget}"
            adapter = Path(study.out) / "students" / label
            if not (adapter / "adapter_config.json").is_file():
                on_step(f"train {label}")
                train_student(data, base, adapter, study.train)
            models[label] = f"hf:{adapter}"
    return models


def _scores(run_dir: Path) -> dict[str, Any]:
    summary = summarize_run(run_dir)
    overall = summary.overall
    return {
        "questions": overall.total,
        "failures": overall.failures,
        "metrics": overall.means()[PROTOCOL],
        "run_dir": str(run_dir),
    }


def run_budget_study(study: BudgetStudy, *, on_step: Step | None = None) -> dict[str, Any]:
    """Run (or resume) the whole study and write budget.md and budget.json under `out`.

    Returns:
        {"rows": {label: {"questions", "failures", "metrics", "run_dir"}}, "budgets", ...}.

    Raises:
        TrainConfigError, SFTDataError, RunStoreError, QAError, GraphError: bad input, as
            the steps raise them.
    """
    step = on_step or (lambda name: logger.info("budget study: %s", name))
    runs = _teacher_runs(study, step)
    datasets = _datasets(study, runs, step)
    rows: dict[str, str] = {"teacher": study.teacher.model}
    if study.include_bases:
        rows |= {f"base-{slug(base)}": f"hf:{base}" for base in study.students}
    rows |= _students(study, datasets, step)
    results = {}
    for label, model in rows.items():
        request = study.request(f"test-{label}", "test", study.test_sample)
        step(f"test {label}")
        agent = study.teacher if label == "teacher" else study.as_student(model)
        evaluate(request, agent)
        results[label] = _scores(Path(request.out))
    summary = {
        "budgets": sorted(study.budgets),
        "students": list(study.students),
        "protocol": PROTOCOL,
        "teacher": study.teacher.to_record(),
        "train": study.train.to_record(),
        "rows": results,
    }
    out = Path(study.out)
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / REPORT_FILE).write_text(budget_table(results), encoding="utf-8")
    return summary


def budget_table(rows: dict[str, dict[str, Any]]) -> str:
    """The study as a markdown table (STaRK protocol, failures counted as misses)."""
    header = ["model", "n", "failed", *(METRIC_TITLES[m] for m in METRIC_NAMES)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, row in rows.items():
        cells = [label, str(row["questions"]), str(row["failures"])]
        cells += [f"{100 * row['metrics'][m]:.2f}" for m in METRIC_NAMES]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
