"""Run directories → SFT dataset: select trajectories, split by question, write Parquet."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent.trajectory import Trajectory
from distill.errors import RunDirError, SFTDataError
from distill.rows import malformed_calls, trajectory_row
from distill.splits import VAL_SOURCES, ValSource, assign_splits, official_val_ids
from distill.stats import DatasetStats, approximate_tokens, count_tokens
from evals.qa.sampling import QuestionSample

logger = logging.getLogger(__name__)

KeepPolicy = Literal["all", "best-recall"]
SPLITS = ("train", "val")
STATS_FILE = "stats.json"


@dataclass(frozen=True, kw_only=True)
class DatasetOptions:
    """How trajectories become SFT rows.

    Attributes:
        val_source: Which questions validate (see distill/splits.py): `auto` (the official
            val split of the question set when the runs hold any of its questions, else a
            random `val_fraction`), `official` (required) or `random`.
        val_fraction: Share of questions (not trajectories) held out for validation when the
            split is random.
        sample: Keep a random `sample` of the training questions (the paper: "up to 6,000
            training queries"); None keeps all. Seeded by `seed`; with one seed a smaller
            sample is nested in a larger one.
        keep: `all` keeps every trajectory (label-free, the paper's setting); `best-recall`
            keeps per question the trajectory whose own answers have the best recall@20
            against gold, and rejects questions where even that is 0 (needs labels).
        include_system_prompt: Keep the agent's system prompt in every row.
        seed: Seed of the random split and of the sample.
    """

    val_source: ValSource = "auto"
    val_fraction: float = 0.1
    sample: int | None = None
    keep: KeepPolicy = "all"
    include_system_prompt: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.val_fraction < 1.0:
            raise SFTDataError(f"val_fraction must be in [0, 1), got {self.val_fraction}")
        if self.keep not in ("all", "best-recall"):
            raise SFTDataError(f"keep must be 'all' or 'best-recall', got {self.keep!r}")
        if self.val_source not in VAL_SOURCES:
            raise SFTDataError(
                f"val_source must be one of {', '.join(VAL_SOURCES)}, got {self.val_source!r}"
            )
        if self.sample is not None and self.sample < 1:
            raise SFTDataError(f"sample must be a positive number of questions, got {self.sample}")


@dataclass(frozen=True)
class Example:
    """One kept trajectory and the question it answers."""

    question_id: str
    trajectory: Trajectory


Question = tuple[str, list[str], list[Trajectory]]
"""(question id, gold ids, trajectories) of one finished question."""


def load_runs(run_dirs: Sequence[str | Path]) -> tuple[list[Question], set[str]]:
    """Every finished question of the runs, and the ids in an official val split.

    Raises:
        RunDirError: A directory is not a readable run directory.
    """
    from evals.runs.store import RunStoreError, read_config, read_results

    if not run_dirs:
        raise RunDirError("no run directory given; pass the --out directories of `ark eval`")
    questions: list[Question] = []
    official_val: set[str] = set()
    for run_dir in run_dirs:
        try:
            records = read_results(Path(run_dir))
            config = read_config(Path(run_dir))
        except RunStoreError as error:
            raise RunDirError(str(error)) from error
        if not records:
            logger.warning("%s holds no finished question", run_dir)
        questions += [(r.question_id, r.gold, r.result.trajectories) for r in records]
        official_val |= official_val_ids(config, (r.question_id for r in records))
    return questions, official_val


def _recall20(answers: Sequence[str], gold: Sequence[str]) -> float:
    from evals.metrics import ark_metrics

    return ark_metrics(answers, gold)["recall@20"]


def select(
    questions: Sequence[Question],
    keep: KeepPolicy,
    stats: DatasetStats,
) -> list[Example]:
    """Apply the keep policy; every skipped trajectory is counted in `stats`."""
    examples: list[Example] = []
    for question_id, gold, trajectories in questions:
        usable: list[Trajectory] = []
        for trajectory in trajectories:
            stats.seen += 1
            stats.stop_reasons[trajectory.stop_reason] += 1
            if trajectory.stop_reason == "error":
                stats.skipped["model_error"] += 1
            elif not any(m.get("role") == "assistant" for m in trajectory.messages):
                stats.skipped["no_assistant_turn"] += 1
            elif not trajectory.tools:
                stats.skipped["no_tool_schemas"] += 1
            else:
                usable.append(trajectory)
        if keep == "best-recall" and usable:
            scored = [(_recall20(t.answers, gold), -t.agent_index, t) for t in usable]
            best_recall, _, best = max(scored, key=lambda item: item[:2])
            stats.skipped["not_best_recall"] += len(usable) - 1
            if best_recall <= 0.0:
                stats.skipped["zero_recall"] += 1
                continue
            usable = [best]
        examples += [Example(question_id, t) for t in usable]
    return examples


def choose_splits(
    examples: Sequence[Example], official_val: set[str], options: DatasetOptions
) -> tuple[set[str], set[str], str]:
    """(train ids, val ids, val source), the training questions sampled if asked."""
    ordered = list(dict.fromkeys(e.question_id for e in examples))
    train_ids, val_ids, source = assign_splits(
        ordered,
        official_val,
        source=options.val_source,
        val_fraction=options.val_fraction,
        seed=options.seed,
    )
    if options.sample is not None:
        sample = QuestionSample(size=options.sample, seed=options.seed)
        train_ids = set(sample.apply([q for q in ordered if q in train_ids]))
    return train_ids, val_ids, source


def build_sft_dataset(
    run_dirs: Sequence[str | Path],
    out: str | Path,
    options: DatasetOptions | None = None,
    *,
    tokenizer: Any = None,
) -> DatasetStats:
    """Turn `ark eval` run directories into train/val Parquet files.

    Writes `out/train.parquet`, `out/val.parquet` (absent when empty) and `out/stats.json`.

    Args:
        run_dirs: Run directories written by `ark eval`.
        out: Dataset directory (created).
        options: Selection and split options.
        tokenizer: Tokenizer to count tokens exactly with (rendered with ARK's template);
            without one, tokens are estimated (`distill.stats.approximate_tokens`).

    Returns:
        Statistics of what was read, kept, skipped and written.

    Raises:
        RunDirError: A run directory is unreadable.
        SFTDataError: Nothing usable was found.
    """
    from datasets import Dataset

    options = options or DatasetOptions()
    stats = DatasetStats(token_method="approx" if tokenizer is None else "exact")
    questions, official_val = load_runs(run_dirs)
    examples = select(questions, options.keep, stats)
    if not examples:
        raise SFTDataError(
            f"no usable trajectory in {len(questions)} question(s) ({stats.skipped_summary()}); "
            "check the runs finished without model errors"
        )
    train_ids, val_ids, stats.val_source = choose_splits(examples, official_val, options)
    stats.sample = options.sample
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    for split, ids in zip(SPLITS, (train_ids, val_ids), strict=True):
        rows = [
            trajectory_row(
                e.trajectory,
                question_id=e.question_id,
                include_system_prompt=options.include_system_prompt,
            )
            for e in examples
            if e.question_id in ids
        ]
        path = target / f"{split}.parquet"
        path.unlink(missing_ok=True)
        if rows:
            Dataset.from_list(rows).to_parquet(str(path))
        stats.add_split(split, rows, questions=len(ids))
        stats.malformed_arguments += sum(malformed_calls(r["messages"]) for r in rows)
        if tokenizer is not None:
            stats.tokens[split] = count_tokens(tokenizer, rows)
        else:
            stats.tokens[split] = approximate_tokens(rows)
    for example in examples:
        stats.add_trajectory(example.trajectory)
    stats.questions = len(questions)
    (target / STATS_FILE).write_text(json.dumps(stats.to_dict(), indent=2) + "\n")
    logger.info("wrote %d train and %d val rows to %s", stats.rows["train"], stats.rows["val"], out)
    return stats


def load_sft_dataset(data_dir: str | Path) -> dict[str, Any]:
    """Load a dataset directory written by `build_sft_dataset`.

    Returns:
        `{"train": Dataset, "val": Dataset | None}` (in memory; no cache files are written).

    Raises:
        SFTDataError: The directory has no train split, or an empty one. An empty val split
            is treated as none (with a warning).
    """
    import pyarrow.parquet as pq
    from datasets import Dataset

    root = Path(data_dir)
    train = root / "train.parquet"
    if not train.is_file():
        raise SFTDataError(
            f"{train} does not exist; build the dataset with `ark distill dataset RUN_DIR "
            f"--out {root}`"
        )
    rows = Dataset(pq.read_table(train))
    if len(rows) == 0:
        raise SFTDataError(f"{train} holds no rows; rebuild the dataset with `ark distill dataset`")
    val_file = root / "val.parquet"
    val = Dataset(pq.read_table(val_file)) if val_file.is_file() else None
    if val is not None and len(val) == 0:
        logger.warning("%s holds no rows; training without validation", val_file)
        val = None
    return {"train": rows, "val": val}
