"""Distil the rule policy into a from-scratch LoRA student on a synthetic graph; compare on test.

Steps (each timed; outputs under --work, reused with --reuse):
  1. `ark graph synth` a graph with train/val/test questions;
  2. the rule policy (teacher, one agent) on the first --train-questions of the train split
     and on the first --test-questions of the test split;
  3. `ark distill dataset` on the teacher's train run;
  4. a tokenizer trained on the graph text + the trajectories, a random Qwen3 student;
  5. LoRA (+ embeddings and head in full) SFT for at most --minutes;
  6. the student (`hf:ADAPTER`, one agent) on the same test questions.
Reports ARK-protocol Hit@1 / Recall@20 / MRR of teacher and student and the retention ratio
(student Hit@1 / teacher Hit@1).

    .venv/bin/python -m benchmarks.quality.distill --minutes 25
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

METRICS = ("hit@1", "recall@20", "mrr")


def ark(*args: str | Path) -> None:
    command = [sys.executable, "-c", "from cli.app import main; main()", *map(str, args)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def run_agent(snap: Path, split: str, out: Path, model: str, limit: int, args: Any) -> float:
    from agent.config import AgentConfig
    from evals.runs.request import RunRequest
    from evals.runs.runner import evaluate
    from tools.config import ToolConfig

    started = time.perf_counter()
    # Short snippets keep conversations CPU-sized; teacher and student share the same tools.
    tools = ToolConfig(snippet_chars=args.snippet_chars, neighbor_snippet_chars=args.snippet_chars)
    agent = AgentConfig(
        model=model,
        n_agents=1,
        max_steps=args.agent_steps,
        max_tokens=args.max_tokens,
        tools=tools,
    )
    request = RunRequest(
        snapshot=snap,
        qa=snap / "qa" / f"{split}.jsonl",
        out=out,
        limit=limit,
        concurrency=2,
        resume=out.exists(),
    )
    evaluate(request, agent)
    return time.perf_counter() - started


def scores(run_dir: Path, total: int) -> dict[str, float]:
    """Mean ARK metrics over `total` questions (a question missing from the run is a miss)."""
    from evals.runs.store import read_results

    records = read_results(run_dir)
    return {m: sum(r.metrics["ark"][m] for r in records) / total for m in METRICS}


def corpus(snap: Path, data: Path) -> list[str]:
    import pyarrow.parquet as pq

    texts = [f"{r['name']}\n{r['text']}" for r in pq.read_table(snap / "nodes.parquet").to_pylist()]
    for row in pq.read_table(data / "train.parquet").to_pylist():
        texts.append(row["tools"])
        for message in row["messages"]:
            texts.append(message["content"] or "")
            for call in message["tool_calls"] or []:
                function = call["function"]
                texts.append(
                    f'{{"name": "{function["name"]}", "arguments": {function["arguments"]}}}'
                )
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/ark_bench_distill"))
    parser.add_argument("--domain", default="academic")
    parser.add_argument("--nodes", type=int, default=1500)
    parser.add_argument("--train-questions", type=int, default=400)
    parser.add_argument("--test-questions", type=int, default=40)
    parser.add_argument("--minutes", type=float, default=25.0, help="training wall-time cap")
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--agent-steps", type=int, default=8, help="max_steps of both agents")
    parser.add_argument("--max-tokens", type=int, default=256, help="student tokens per turn")
    parser.add_argument("--snippet-chars", type=int, default=40, help="tool snippet length")
    parser.add_argument("--max-length", type=int, default=4096, help="tokens per conversation")
    parser.add_argument("--accumulation", type=int, default=1, help="gradient accumulation")
    parser.add_argument("--reuse", action="store_true", help="keep finished steps in --work")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)

    from distill.config import LoraSettings, TrainConfig
    from distill.dataset import DatasetOptions, build_sft_dataset
    from distill.scratch import ScratchSpec, count_parameters, save_scratch_base
    from distill.train import train_student

    work = args.work
    if work.exists() and not args.reuse:
        sys.exit(f"{work} exists; pass --reuse to continue there or choose another --work")
    work.mkdir(parents=True, exist_ok=True)
    snap, data, base, adapter = work / "snap", work / "data", work / "base", work / "adapter"
    timings: dict[str, float] = {}

    started = time.perf_counter()
    if not snap.exists():
        ark("graph", "synth", "--domain", args.domain, "--nodes", args.nodes, "--out", snap)
    timings["synth_s"] = time.perf_counter() - started
    timings["teacher_train_s"] = run_agent(
        snap, "train", work / "teacher_train", "rules", args.train_questions, args
    )
    timings["teacher_test_s"] = run_agent(
        snap, "test", work / "teacher_test", "rules", args.test_questions, args
    )
    started = time.perf_counter()
    stats = build_sft_dataset([work / "teacher_train"], data, DatasetOptions(val_fraction=0.05))
    if not (base / "config.json").exists():
        spec = ScratchSpec(
            vocab_size=args.vocab,
            hidden_size=args.hidden,
            num_layers=args.layers,
            intermediate_size=3 * args.hidden,
            num_heads=args.hidden // 32,
            num_kv_heads=max(1, args.hidden // 64),
        )
        save_scratch_base(base, corpus(snap, data), spec)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base)
    stats = build_sft_dataset(
        [work / "teacher_train"], data, DatasetOptions(val_fraction=0.05), tokenizer=tokenizer
    )
    parameters = count_parameters(AutoModelForCausalLM.from_pretrained(base))
    timings["dataset_and_base_s"] = time.perf_counter() - started

    config = TrainConfig(
        learning_rate=args.lr,
        num_train_epochs=100,
        max_minutes=args.minutes,
        max_length=args.max_length,
        gradient_accumulation_steps=args.accumulation,
        lr_scheduler="constant_with_warmup",
        warmup_steps=10,
        logging_steps=5,
        eval_steps=40,
        save_total_limit=1,
        lora=LoraSettings(train_embeddings=True),
    )
    started = time.perf_counter()
    result = None
    if not (adapter / "adapter_config.json").exists():
        result = train_student(data, str(base), adapter, config)
    timings["train_s"] = time.perf_counter() - started
    timings["student_test_s"] = run_agent(
        snap, "test", work / "student_test", f"hf:{adapter}", args.test_questions, args
    )

    teacher = scores(work / "teacher_test", args.test_questions)
    student = scores(work / "student_test", args.test_questions)
    summary = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "dataset": stats.to_dict(),
        "student_parameters": parameters,
        "train": None
        if result is None
        else {
            "steps": result.global_step,
            "first_loss": result.losses[0][1] if result.losses else None,
            "last_loss": result.losses[-1][1] if result.losses else None,
            "eval_losses": result.eval_losses,
            "best_checkpoint": result.best_checkpoint,
        },
        "teacher": teacher,
        "student": student,
        "retention_hit@1": student["hit@1"] / teacher["hit@1"] if teacher["hit@1"] else None,
        "timings": timings,
    }
    (work / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    print(json.dumps(summary, indent=2, default=str))
    print("\n| model | Hit@1 | Recall@20 | MRR |\n|---|---|---|---|")
    for name, values in (("teacher (rules)", teacher), ("student", student)):
        print(f"| {name} | " + " | ".join(f"{values[m]:.3f}" for m in METRICS) + " |")
    print(f"\nretention (student Hit@1 / teacher Hit@1): {summary['retention_hit@1']}")


if __name__ == "__main__":
    main()
