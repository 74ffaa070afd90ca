"""The run flags, declared once: which questions (SampleFlags) to run into which run (RunFlags)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.flags.agent import out_dir
from cli.flags.groups import flag_group

if TYPE_CHECKING:
    from evals.qa.sampling import QuestionSample
    from evals.runs.request import RunRequest

QaOpt = Annotated[Path, typer.Option("--qa", help="Questions: JSONL or STaRK CSV (see docs).")]
OutOpt = Annotated[
    Path,
    typer.Option(
        "--out",
        parser=out_dir,
        help="Run directory (config.json, results.jsonl, ...; one per cell for a sweep). "
        "One writer at a time: a second command on it is refused while the first runs.",
    ),
]
SplitOpt = Annotated[
    str | None,
    typer.Option(
        "--split",
        help=(
            "train, val, test, or all (every question of the file or directory). Default: "
            "test; a .jsonl file, or a STaRK CSV without split/*.index files: all of it "
            "(a notice says so)."
        ),
    ),
]
SampleOpt = Annotated[
    int | None,
    typer.Option(
        "--sample",
        min=1,
        help="A random N questions of the split (seeded by --seed; the paper distils from up "
        "to 6,000 training queries).",
    ),
]
SampleFractionOpt = Annotated[
    float | None,
    typer.Option(
        "--sample-fraction",
        help="A random fraction of the split, e.g. 0.1 (the paper's ablations use a random "
        "10% of the test set); seeded by --seed.",
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of --sample / --sample-fraction.")]
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", min=1, help="Only the first N questions (of the sample, if any)."),
]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Continue the run in --out; retries failed questions.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a machine-readable summary.")]


@flag_group
@dataclass(frozen=True, kw_only=True)
class SampleFlags:
    """Which questions of a set to take, for commands whose --qa and --out mean their own thing.

    `ark plan --qa`, `ark rerank` and `ark eval answers` take these; RunFlags holds the same
    four flags from the same declarations.
    """

    sample: SampleOpt = None
    sample_fraction: SampleFractionOpt = None
    seed: SeedOpt = 0
    limit: LimitOpt = None

    def question_sample(self) -> QuestionSample:
        """The per-split sample these flags ask for.

        Raises:
            SampleError: both a size and a fraction, or a fraction out of range.
        """
        return question_sample(self.sample, self.sample_fraction, self.seed)


def question_sample(size: int | None, fraction: float | None, seed: int) -> QuestionSample:
    """The QuestionSample of --sample / --sample-fraction / --seed (SampleError on bad values)."""
    from evals.qa.sampling import QuestionSample

    return QuestionSample(size=size, fraction=fraction, seed=seed)


@flag_group
@dataclass(frozen=True, kw_only=True)
class RunFlags:
    """The flags of every command that answers a question set into a run directory."""

    qa: QaOpt
    out: OutOpt
    split: SplitOpt = None
    sample: SampleOpt = None
    sample_fraction: SampleFractionOpt = None
    seed: SeedOpt = 0
    limit: LimitOpt = None
    resume: ResumeOpt = False
    as_json: JsonOpt = False

    def request(self, snapshot: Path, *, concurrency: int = 4) -> RunRequest:
        """The RunRequest these flags ask for, over `snapshot`.

        Raises:
            SampleError: bad sample values (both a size and a fraction, a fraction out of range).
            ConfigError: a limit or concurrency below 1.
        """
        from evals.runs.request import RunRequest

        sample = question_sample(self.sample, self.sample_fraction, self.seed)
        return RunRequest(
            snapshot=snapshot,
            qa=self.qa,
            out=self.out,
            split=self.split,
            sample=sample,
            limit=self.limit,
            concurrency=concurrency,
            resume=self.resume,
        )
