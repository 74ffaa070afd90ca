"""Seconds per training step with TRL's fused LM head scoring every position vs labelled only.

Builds the real `ark distill train` trainer (the dataset's rows, the student's chat template,
LoRA) and times one forward+backward (`trainer.compute_loss` + `backward`) per row in both
modes, interleaved row by row so machine load hits them alike. Reports seconds per step, the
share of labelled (assistant) tokens, and the largest loss difference between the modes
(the two must agree: only the cost changes).

    .venv/bin/python -m benchmarks.speed.labelled_head --data W/data --base-model CKPT \
        --rows 6 --attn sdpa
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="`ark distill dataset` output")
    parser.add_argument("--base-model", required=True, help="model directory (or GGUF file)")
    parser.add_argument("--rows", type=int, default=6, help="training rows timed per mode")
    parser.add_argument("--max-length", type=int, default=3072)
    parser.add_argument("--attn", default="sdpa")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    import torch

    from distill.config import LoraSettings, TrainConfig
    from distill.labelled_head import labelled_positions_only
    from distill.train import build_trainer

    config = TrainConfig(
        max_length=args.max_length,
        attn_implementation=args.attn,
        lora=LoraSettings(r=16, alpha=32, dropout=0.0),
    )
    with tempfile.TemporaryDirectory() as out:
        trainer, _ = build_trainer(args.data, args.base_model, out, config)
    model = trainer.model
    model.train()
    rows = [trainer.train_dataset[i] for i in range(min(args.rows, len(trainer.train_dataset)))]
    times: dict[str, list[float]] = {"every position": [], "labelled only": []}
    gaps: list[float] = []
    labelled = total = 0
    for row in rows:
        inputs: dict[str, Any] = trainer._prepare_inputs(trainer.data_collator([row]))
        labels = inputs["labels"][:, 1:]
        labelled += int((labels != -100).sum())
        total += labels.numel()
        losses = []
        for mode in times:
            switch = labelled_positions_only() if mode == "labelled only" else None
            with switch or contextlib.nullcontext():
                started = time.perf_counter()
                loss = trainer.compute_loss(model, dict(inputs))
                loss.backward()
                times[mode].append(time.perf_counter() - started)
            model.zero_grad()
            losses.append(float(loss.detach()))
        gaps.append(abs(losses[0] - losses[1]))
        print(f"{total=} " + " ".join(f"{m}: {t[-1]:.1f}s" for m, t in times.items()), flush=True)
    mean = {mode: statistics.mean(t) for mode, t in times.items()}
    result = {
        "rows": len(rows),
        "tokens_per_row": total / len(rows),
        "labelled_share": labelled / total,
        "torch_threads": torch.get_num_threads(),
        "s_per_step": mean,
        "speedup": mean["every position"] / mean["labelled only"],
        "max_loss_difference": max(gaps),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
