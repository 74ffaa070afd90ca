"""Labelled questions for SARG's direction classifier, and the training of its logistic head.

Labels come from two places, as the paper's come from a teacher:
- **the synthetic KGs' provenance**: a generated question records the relation steps that
  reach its answers from the anchor it names, with the direction of each step, so its label
  is known: every step along the edges is `forward`, every step against them `backward`,
  anything else (either way, mixed, or no step at all) `bidirectional`;
- **a served model**, which labels any question file with SARG's direction prompt.

The head is a multinomial logistic regression (scikit-learn) over the encoder's vectors,
with balanced class weights; it is evaluated on held-out questions (a random share, or a
whole source such as one synthetic domain, which measures transfer to unseen wording).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from agent.models.base import Model
from answer.direction import LLMDirection
from answer.direction_head import DirectionHead
from answer.encoding import Embedder
from answer.query_graph import Direction
from distill.errors import DistillError

CLASSES = (Direction.forward, Direction.backward, Direction.bidirectional)


@dataclass(frozen=True)
class LabelledQuestion:
    """One question with its direction and where the label came from.

    The source is `synth:DOMAIN`, `model:NAME`, or the labels file's own `source`.
    """

    question: str
    direction: Direction
    source: str

    def to_row(self) -> dict[str, str]:
        """The JSONL row."""
        return {"question": self.question, "direction": self.direction.value, "source": self.source}


def provenance_direction(steps: Sequence[Sequence[str]]) -> Direction:
    """The label of a synthetic question from its provenance steps `[relation, dir, type]`."""
    directions = {step[1] for step in steps}
    if directions == {"out"}:
        return Direction.forward
    if directions == {"in"}:
        return Direction.backward
    return Direction.bidirectional


def synth_labels(
    domains: Sequence[str], *, seed: int = 0, nodes: int | None = None
) -> list[LabelledQuestion]:
    """Every question of the synthetic domains, labelled from its provenance."""
    from graphs.synth.generate import build_domain

    rows = []
    for domain in domains:
        _, questions = build_domain(domain, seed, nodes)
        for question in questions:
            label = provenance_direction(question.provenance.get("steps", []))
            rows.append(LabelledQuestion(question.query, label, f"synth:{domain}"))
    return rows


async def model_labels(
    questions: Sequence[str], model: Model
) -> tuple[list[LabelledQuestion], int]:
    """The model's label for each question, and how many replies named no direction.

    A reply naming none is left out (not guessed), so the labels are the model's own.
    """
    asker = LLMDirection(model)
    rows, unusable = [], 0
    for question in questions:
        label = await asker.classify(question)
        if asker.last_fallback:
            unusable += 1
            continue
        rows.append(LabelledQuestion(question, label, f"model:{model.name}"))
    return rows, unusable


def read_labels(path: Path) -> list[LabelledQuestion]:
    """Read a JSONL file of `{"question", "direction"[, "source"]}` rows.

    Raises:
        DistillError: unreadable file, bad JSON, or a row without a known direction.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise DistillError(f"cannot read the labels file {path}: {error}") from error
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows.append(
                LabelledQuestion(
                    str(row["question"]),
                    Direction(row["direction"]),
                    str(row.get("source", path.name)),
                )
            )
        except (ValueError, KeyError, TypeError) as error:
            raise DistillError(
                f'{path}:{number}: each row needs "question" and "direction" (forward, '
                f"backward or bidirectional): {error}"
            ) from error
    return rows


def write_labels(path: Path, rows: Sequence[LabelledQuestion]) -> None:
    """Write rows as JSONL."""
    text = "".join(json.dumps(row.to_row(), ensure_ascii=False) + "\n" for row in rows)
    path.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class HeadReport:
    """How a trained head did on the held-out questions."""

    trained: int
    held_out: int
    accuracy: float
    per_class: dict[str, dict[str, float]]
    confusion: dict[str, dict[str, int]]
    train_counts: dict[str, int]
    holdout: str
    sources: dict[str, int]

    def to_record(self) -> dict[str, Any]:
        """Plain-dict form (stored in the head's `about`)."""
        return {
            "trained": self.trained,
            "held_out": self.held_out,
            "holdout": self.holdout,
            "accuracy": round(self.accuracy, 4),
            "per_class": self.per_class,
            "confusion": self.confusion,
            "train_counts": self.train_counts,
            "train_sources": self.sources,
        }


def split_rows(
    rows: Sequence[LabelledQuestion], *, holdout_source: str | None, fraction: float, seed: int
) -> tuple[list[LabelledQuestion], list[LabelledQuestion], str]:
    """Train and held-out rows: one whole source held out, or a seeded random share.

    Raises:
        DistillError: the source is not among the rows, or either side would be empty.
    """
    if holdout_source is not None:
        held = [row for row in rows if row.source == holdout_source]
        train = [row for row in rows if row.source != holdout_source]
        described = f"source {holdout_source}"
        if not held:
            sources = ", ".join(sorted({row.source for row in rows}))
            raise DistillError(f"no labelled question has source {holdout_source!r}: {sources}")
    else:
        order = list(range(len(rows)))
        random.Random(seed).shuffle(order)
        cut = round(len(rows) * fraction)
        held = [rows[i] for i in sorted(order[:cut])]
        train = [rows[i] for i in sorted(order[cut:])]
        described = f"a random {fraction:.0%} (seed {seed})"
    if not train or not held:
        raise DistillError("the split leaves no training or no held-out question; add labels")
    return train, held, described


def train_head(
    train: Sequence[LabelledQuestion],
    held: Sequence[LabelledQuestion],
    encoder: Embedder,
    *,
    encoder_name: str,
    holdout: str,
) -> tuple[DirectionHead, HeadReport]:
    """Fit the logistic head on `train` and measure it on `held`.

    Raises:
        DistillError: scikit-learn is missing, or the training rows hold one class only.
    """
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as error:
        raise DistillError(
            "training the direction head needs scikit-learn: pip install -e '.[answer]'"
        ) from error
    labels = [row.direction.value for row in train]
    if len(set(labels)) < 2:
        raise DistillError("the training questions carry one direction only; add other labels")
    vectors = np.asarray(encoder.encode([row.question for row in train]))
    model = LogisticRegression(max_iter=2000, class_weight="balanced", C=1.0)
    model.fit(vectors, labels)
    classes = tuple(Direction(c) for c in model.classes_)
    head = DirectionHead(classes, model.coef_.copy(), model.intercept_.copy(), encoder_name)
    predicted = head.predict(np.asarray(encoder.encode([row.question for row in held])))
    report = _report(held, predicted, Counter(labels), len(train), holdout)
    report = replace(report, sources=dict(Counter(row.source for row in train)))
    return DirectionHead(classes, head.weights, head.bias, encoder_name, report.to_record()), report


def _report(
    held: Sequence[LabelledQuestion],
    predicted: Sequence[Direction],
    train_counts: Counter[str],
    trained: int,
    holdout: str,
) -> HeadReport:
    gold = [row.direction for row in held]
    confusion = {c.value: {p.value: 0 for p in CLASSES} for c in CLASSES}
    for want, got in zip(gold, predicted, strict=True):
        confusion[want.value][got.value] += 1
    per_class = {}
    for cls in CLASSES:
        tp = confusion[cls.value][cls.value]
        support = sum(confusion[cls.value].values())
        said = sum(confusion[other.value][cls.value] for other in CLASSES)
        per_class[cls.value] = {
            "support": support,
            "precision": round(tp / said, 4) if said else 0.0,
            "recall": round(tp / support, 4) if support else 0.0,
        }
    accuracy = sum(w == g for w, g in zip(gold, predicted, strict=True)) / len(gold)
    return HeadReport(
        trained, len(gold), accuracy, per_class, confusion, dict(train_counts), holdout, {}
    )
