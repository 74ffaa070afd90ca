"""SARG's direction classifier: logistic regression vs SetFit over all-MiniLM-L6-v2.

Labels: every question of the three synthetic domains, labelled from its provenance
(`ark distill direction-labels --synth ...`). Protocols: a random 20% held out (seed 0), and
each domain held out in turn (train on the other two: wording and schema never seen).
Rows: logistic regression on the whole training side; logistic regression and SetFit
(contrastive fine-tuning of the encoder, then its logistic head; the paper's recipe with
MiniLM for DistilBERT) on the same balanced subsample (SetFit's pairs grow with the square
of the data, so it is sized to finish on two CPU cores). Then the shipped head's direction
distribution on hotpotqa-dev20.

    pip install setfit    # the benchmark's own dependency, not the project's
    OMP_NUM_THREADS=2 nice -n 10 .venv/bin/python -m benchmarks.quality.direction_head \
        [--per-class 64] [--iterations 5]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from answer.direction_head import SHIPPED_HEAD, DirectionHead
from answer.encoding import default_encoder_dir, load_encoder
from answer.query_graph import Direction
from distill.direction import CLASSES, LabelledQuestion, split_rows, synth_labels, train_head

DATA = Path(__file__).resolve().parents[2] / "docs/examples/hotpotqa-dev20/questions.jsonl"


def balanced(rows: Sequence[LabelledQuestion], per_class: int, seed: int) -> list[LabelledQuestion]:
    """Up to `per_class` rows of each direction, drawn with `seed`."""
    rng = random.Random(seed)
    picked: list[LabelledQuestion] = []
    for cls in CLASSES:
        members = [row for row in rows if row.direction is cls]
        rng.shuffle(members)
        picked += members[:per_class]
    return picked


def accuracy(gold: Sequence[Direction], predicted: Sequence[Direction]) -> tuple[float, str]:
    """Accuracy and per-class recall as text."""
    total = sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold)
    parts = []
    for cls in CLASSES:
        support = [p for g, p in zip(gold, predicted, strict=True) if g is cls]
        if support:
            recall = sum(p is cls for p in support) / len(support)
            parts.append(f"{cls.value[:5]} {recall:.2f} (n={len(support)})")
    return total, ", ".join(parts)


def setfit_predict(
    train: Sequence[LabelledQuestion], held: Sequence[LabelledQuestion], iterations: int
) -> tuple[list[Direction], float]:
    """SetFit on `train` (fresh MiniLM body), its predictions on `held`, and training seconds."""
    from datasets import Dataset
    from setfit import SetFitModel, Trainer, TrainingArguments

    model = SetFitModel.from_pretrained(str(default_encoder_dir()))
    data = Dataset.from_dict(
        {"text": [r.question for r in train], "label": [r.direction.value for r in train]}
    )
    with tempfile.TemporaryDirectory() as scratch:  # its checkpoints, never in the tree
        args = TrainingArguments(
            output_dir=scratch, batch_size=16, num_epochs=1, num_iterations=iterations, seed=0
        )
        began = time.perf_counter()
        Trainer(model=model, args=args, train_dataset=data).train()
        seconds = time.perf_counter() - began
    predicted = model.predict([r.question for r in held])
    return [Direction(str(p)) for p in predicted], seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-class", type=int, default=64)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--no-setfit", action="store_true")
    parser.add_argument(
        "--protocols", default=None, help="Comma-separated: random, products, academic, biomed."
    )
    args = parser.parse_args()
    rows = synth_labels(["products", "academic", "biomed"])
    print(f"labels: {len(rows)} ({dict(Counter(r.direction.value for r in rows))})")
    encoder = load_encoder()
    protocols: list[tuple[str, str | None]] = [("random 20%", None)] + [
        (f"{d} held out", f"synth:{d}") for d in ("products", "academic", "biomed")
    ]
    if args.protocols:
        wanted = args.protocols.split(",")
        protocols = [(n, s) for n, s in protocols if n.split()[0] in wanted]
    print("| held out | rows | LR, all training rows | LR, subsample | SetFit, subsample |")
    print("|---|---:|---|---|---|")
    for name, source in protocols:
        train, held, _ = split_rows(rows, holdout_source=source, fraction=0.2, seed=0)
        gold = [r.direction for r in held]
        head, _ = train_head(train, held, encoder, encoder_name="all-MiniLM-L6-v2", holdout=name)
        vectors = np.asarray(encoder.encode([r.question for r in held]))
        full = accuracy(gold, head.predict(vectors))
        small = balanced(train, args.per_class, seed=0)
        head_small, _ = train_head(small, held, encoder, encoder_name="m", holdout=name)
        sub = accuracy(gold, head_small.predict(vectors))
        cell = "not run"
        if not args.no_setfit:
            predicted, seconds = setfit_predict(small, held, args.iterations)
            fit = accuracy(gold, predicted)
            cell = f"**{fit[0]:.3f}** ({fit[1]}; {seconds:.0f} s)"
        print(
            f"| {name} | {len(train)} / {len(held)} | **{full[0]:.3f}** ({full[1]}) | "
            f"**{sub[0]:.3f}** ({sub[1]}; {len(small)} rows) | {cell} |",
            flush=True,
        )
    shipped = DirectionHead.load(SHIPPED_HEAD)
    questions = [json.loads(line)["question"] for line in DATA.read_text().splitlines()]
    began = time.perf_counter()
    vectors = np.asarray(encoder.encode(questions))
    predicted = shipped.predict(vectors)
    per_question_ms = (time.perf_counter() - began) / len(questions) * 1000
    print(
        f"shipped head on hotpotqa-dev20: {dict(Counter(p.value for p in predicted))} "
        f"({per_question_ms:.1f} ms per question, encoding included)"
    )


if __name__ == "__main__":
    main()
