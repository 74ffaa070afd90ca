"""`ark distill direction-labels` and `ark distill direction-head`: SARG's direction classifier."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli.flags.agent import AgentFlags
from cli.flags.groups import with_flags
from cli.guards import fail

if TYPE_CHECKING:
    from agent.models.base import Model


LABELLER_FLAGS_ONLY = {
    "agent": (
        "agents", "max_steps", "temperature", "max_tokens", "ablate", "toolset", "dense_search",
        "brief_prompt", "answer_type",
    )
}  # fmt: skip
"""Of the agent flags the labelling model takes -m and its endpoint's."""


@with_flags(without=LABELLER_FLAGS_ONLY)
def direction_labels(
    out: Annotated[Path, typer.Option("--out", "-o", help="Labels file (JSONL) to write.")],
    synth: Annotated[
        list[str] | None,
        typer.Option(
            "--synth",
            help="Label every question of this synthetic domain from its provenance "
            "(repeatable: products, academic, biomed).",
        ),
    ] = None,
    qa: Annotated[
        Path | None,
        typer.Option("--qa", help='Questions to label with -m (JSONL with "question" or "query").'),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the synthetic graphs.")] = 0,
    *,
    agent: AgentFlags,
) -> None:
    """Write labelled questions: from synthetic provenance (--synth) and/or a model (--qa -m)."""
    from distill.direction import model_labels, synth_labels, write_labels

    if not synth and qa is None:
        fail("give --synth DOMAIN (labels from provenance) or --qa FILE -m MODEL (a model labels)")
    model = agent.model
    if qa is not None and model is None:
        fail("--qa needs -m MODEL: the model that labels the questions")
    try:
        rows = synth_labels(synth, seed=seed) if synth else []
        unusable = 0
        if qa is not None and model is not None:
            labeller = _model(model, agent.endpoint())
            found, unusable = asyncio.run(model_labels(_questions(qa), labeller))
            rows += found
        write_labels(out, rows)
    except OSError as error:
        fail(f"cannot write {out}: {error}")
    counts = Counter(row.direction.value for row in rows)
    shown = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
    skipped = f"; {unusable} replies named no direction and were left out" if unusable else ""
    print(f"wrote {len(rows)} labelled questions to {out} ({shown}){skipped}")


def direction_head(
    labels: Annotated[list[Path], typer.Argument(help="Labels files (`direction-labels`).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Head file (JSON) to write.")],
    encoder: Annotated[
        Path | None,
        typer.Option("--encoder", help="Sentence-transformers dir (default all-MiniLM-L6-v2)."),
    ] = None,
    holdout_source: Annotated[
        str | None,
        typer.Option(
            "--holdout-source",
            help="Hold out every question of this source (e.g. synth:biomed): measures "
            "transfer to wording the head never saw.",
        ),
    ] = None,
    holdout_fraction: Annotated[
        float,
        typer.Option("--holdout-fraction", min=0.01, max=0.9, help="Random share held out."),
    ] = 0.2,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random hold-out.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Train SARG's direction head (logistic regression over the encoder) and measure it."""
    from answer.encoding import default_encoder_dir, load_encoder
    from distill.direction import read_labels, split_rows, train_head

    try:
        rows = [row for path in labels for row in read_labels(path)]
        train, held, described = split_rows(
            rows, holdout_source=holdout_source, fraction=holdout_fraction, seed=seed
        )
        path = encoder if encoder is not None else default_encoder_dir()
        head, report = train_head(
            train, held, load_encoder(path), encoder_name=path.name, holdout=described
        )
        head.save(out)
    except OSError as error:
        fail(f"cannot write {out}: {error}")
    if as_json:
        print(json.dumps(report.to_record()))
        return
    print(f"trained on {report.trained} questions; held out {described}: {report.held_out}")
    print(f"held-out accuracy {report.accuracy:.3f}")
    for name, row in report.per_class.items():
        print(
            f"  {name:<13} support {int(row['support']):>4}  precision {row['precision']:.3f}  "
            f"recall {row['recall']:.3f}"
        )
    print(f"wrote {out}; use it with `ark answer ... --direction learned --direction-head {out}`")


def _questions(path: Path) -> list[str]:
    try:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as error:
        fail(f"cannot read {path} as JSON lines: {error}")
    found = [row.get("question", row.get("query")) for row in rows if isinstance(row, dict)]
    questions = [q for q in found if isinstance(q, str)]
    if not questions or len(questions) != len(rows):
        fail(f'{path}: every row needs a "question" (or "query") string')
    return questions


def _model(spec: str, endpoint: dict[str, Any]) -> Model:
    from agent.config import AgentConfig
    from agent.models.registry import load_model

    return load_model(AgentConfig(model=spec, max_tokens=16, temperature=0.0, **endpoint))


def register(distill_app: typer.Typer) -> None:
    """Add the two commands to `ark distill`."""
    distill_app.command("direction-labels")(direction_labels)
    distill_app.command("direction-head")(direction_head)
