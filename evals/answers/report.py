"""Answers runs side by side: EM / F1 / timings per run, then each question's answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.answers.run import AnswerRecord, read_answers, summarise, unresolved_failures
from evals.runs.store import RunStoreError, read_config


@dataclass(frozen=True)
class AnswerRun:
    """One run directory: its label, config, finished records and the ids that failed."""

    label: str
    config: dict[str, Any]
    records: list[AnswerRecord]
    failed: list[str]

    def summary(self) -> dict[str, Any]:
        """See `evals.answers.run.summarise` (a failed question scores 0)."""
        return summarise(self.records, self.failed)


def load_answer_runs(run_dirs: Sequence[Path]) -> list[AnswerRun]:
    """Read each run; the label is `method model` from its config.

    Raises:
        RunStoreError: a directory is not an answers run.
    """
    runs = []
    for run_dir in run_dirs:
        config = read_config(run_dir)
        if config.get("kind") != "answers":
            raise RunStoreError(
                f"{run_dir} is not an answers run; create one with `ark eval answers`"
            )
        method = config.get("baseline", {})
        model = str(method.get("model", "?")).rsplit("/", 1)[-1]
        label = f"{run_dir.name} ({method.get('method', '?')}, {model})"
        records = read_answers(run_dir)
        runs.append(AnswerRun(label, config, records, unresolved_failures(run_dir, records)))
    return runs


def markdown_answers_report(runs: Sequence[AnswerRun]) -> str:
    """A summary table (one row per run) and a per-question table (one column per run)."""
    lines = [
        "| run | n | EM | F1 | construct s/q (no LLM) | generate s/q | failed (scored 0) "
        "| no chain |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        s = run.summary()
        lines.append(
            f"| {run.label} | {int(s['n'])} | {s['em']:.3f} | {s['f1']:.3f} | "
            f"{s['construct_s']:.2f} | {s['generate_s']:.2f} | {len(s['failed'])} | "
            f"{s['no_chain']} |"
        )
    failed = [f"- {run.label}: {', '.join(run.failed)}" for run in runs if run.failed]
    if failed:
        lines += ["", "Failed questions (each scored 0 above; `--resume` retries them):", *failed]
    lines += ["", *_question_table(runs)]
    return "\n".join(lines) + "\n"


def _question_table(runs: Sequence[AnswerRun]) -> list[str]:
    by_run = [{r.question_id: r for r in run.records} for run in runs]
    ids = list(dict.fromkeys(qid for table in by_run for qid in table))
    header = "| question | gold | " + " | ".join(run.label for run in runs) + " |"
    lines = [header, "|---|---|" + "---|" * len(runs)]
    for qid in ids:
        first = next(table[qid] for table in by_run if qid in table)
        cells = [_cell(table.get(qid)) for table in by_run]
        lines.append(f"| {qid} | {_escape(' / '.join(first.gold))} | " + " | ".join(cells) + " |")
    return lines


def _cell(record: AnswerRecord | None) -> str:
    if record is None:
        return "—"
    mark = "✓" if record.em else f"F1 {record.f1:.2f}"
    return f"{_escape(record.answer[:60])} ({mark})"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
