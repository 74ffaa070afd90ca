"""The run flags, declared once: which questions to run (SampleFlags) into which run (RunFlags).

Every command that writes a run directory takes its --qa, --out, --split and --resume from
here: through RunFlags (`ark eval`, the baselines), NewRunFlags (`ark fuse`, `ark rerank`), or
the option aliases below (`ark plan --qa`, `ark eval answers`). Where a command means
something else by a flag, the variant is declared here under its own name (OptionalQaOpt,
AnswerQaOpt, WrittenSplitOpt); an option that only differs in being optional shares its
declaration (the same typer.Option) with the required one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.flags.groups import flag_group
from cli.flags.paths import out_dir

if TYPE_CHECKING:
    from evals.qa.sampling import QuestionSample
    from evals.runs.request import RunRequest

_QA = typer.Option("--qa", help="Questions: JSONL or STaRK CSV (see docs).")
_OUT = typer.Option(
    "--out",
    parser=out_dir,
    help="Run directory to write (config.json, results.jsonl, ...; one per cell for a sweep): "
    "new or empty, except to continue a run (--resume; a sweep always continues its cells). "
    "One writer at a time: a second command on it is refused while the first runs.",
)

QaOpt = Annotated[Path, _QA]
OptionalQaOpt = Annotated[Path | None, _QA]
"""--qa where a command answers one QUESTION unless given a question set (`ark plan`)."""
AnswerQaOpt = Annotated[
    Path,
    typer.Option(
        "--qa",
        help='Questions with gold answers: JSONL of {"id", "question", "answer"} '
        "(no splits, no STaRK CSV).",
    ),
]
"""--qa of `ark eval answers`, which reads its own format (evals/answers/run.py)."""
OutOpt = Annotated[Path, _OUT]
OptionalOutOpt = Annotated[Path | None, _OUT]
"""--out where a run directory is only written with --qa (`ark plan`)."""
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
WrittenSplitOpt = Annotated[
    str,
    typer.Option(
        "--split", help="Split of --qa written to --out (the one tuned on: --tune-split)."
    ),
]
"""--split of a command that writes one split of earlier runs (`ark fuse`, `ark rerank`):
always a named split, default test, beside the split it tunes on (--tune-split)."""
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
    """Which questions of a set to take, for commands that do not take RunFlags.

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


@flag_group
@dataclass(frozen=True, kw_only=True)
class NewRunFlags:
    """The flags of a command writing one split of earlier runs into a new run directory.

    `ark fuse` and `ark rerank` take these: the same --qa and --out as RunFlags, but no
    --resume, so --out must be new (the run store refuses a directory that is not empty);
    --split is always a named split, written beside the one tuned on (WrittenSplitOpt).
    """

    qa: QaOpt
    out: OutOpt
    split: WrittenSplitOpt = "test"
