"""Distil the rule policy into a pretrained GGUF student (SmolLM2-135M + LoRA) on a CPU.

Steps (outputs under --work; a finished step is reused when its output exists):
  1. `ark graph synth` a graph with train/val/test questions;
  2. the rule policy (teacher, one agent, compact observations) on the first
     --train-questions of the train split and the first --test-questions of the test split;
  3. the SFT dataset of the teacher's train run (token counts with the student's tokenizer);
  4. `ark distill train DATA --base-model GGUF` (dequantised once into --work/gguf-cache),
     LoRA on the attention and MLP projections, capped at --minutes;
  5. `ark distill merge`;
  6. the merged student (`hf:MERGED`, one agent, greedy) on the same test questions with the
     same tool settings and prompt (the brief one by default: see AgentConfig.brief_prompt).
Prints teacher and student Hit@1 / Recall@20 / MRR under both protocols, the retention
(student Hit@1 / teacher Hit@1) and where the student's trajectories go wrong.

    .venv/bin/python -m benchmarks.quality.student --gguf PATH/SmolLM2-135M-Instruct.Q4_1.gguf
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

METRICS = ("hit@1", "hit@5", "recall@20", "mrr")
REPAIR_NOTE = "not valid JSON; read them after this repair"  # tools.arguments' note


def ark(*args: str | Path) -> None:
    command = [sys.executable, "-c", "from cli.app import main; main()", *map(str, args)]
    subprocess.run(command, check=True)


def tool_config(args: argparse.Namespace) -> Any:
    from tools.config import ToolConfig

    return ToolConfig(
        max_k=args.max_k,
        search_k=args.search_k,
        neighbors_k=args.neighbors_k,
        snippet_chars=args.snippet_chars,
        neighbor_snippet_chars=0,
        brief_schemas=args.brief_prompt,
    )


def run_agent(
    snap: Path, split: str, out: Path, model: str, limit: int, args: argparse.Namespace
) -> float:
    from agent.config import AgentConfig
    from evals.runs.request import RunRequest
    from evals.runs.runner import evaluate
    from evals.runs.store import read_results

    if out.exists() and len(read_results(out)) >= limit:
        return 0.0  # finished in an earlier invocation
    started = time.perf_counter()
    agent = AgentConfig(
        model=model,
        n_agents=1,
        max_steps=args.agent_steps,
        max_tokens=args.max_tokens,
        temperature=0.0,
        tools=tool_config(args),
        brief_prompt=args.brief_prompt,
    )
    request = RunRequest(
        snapshot=snap,
        qa=snap / "qa" / f"{split}.jsonl",
        split=None,
        out=out,
        limit=limit,
        concurrency=1,
        resume=out.exists(),
    )
    evaluate(request, agent)
    return time.perf_counter() - started


def scores(run_dir: Path, total: int) -> dict[str, dict[str, float]]:
    """Mean metrics per protocol over the first `total` questions (a missing one is a miss)."""
    from evals.qa.sets import load_qa
    from evals.runs.store import read_results

    snap = run_dir.parent / "snap"
    wanted = {item.id for item in load_qa(snap / "qa" / "test.jsonl", "all")[:total]}
    records = [r for r in read_results(run_dir) if r.question_id in wanted]
    return {
        protocol: {m: sum(r.metrics[protocol][m] for r in records) / total for m in METRICS}
        for protocol in ("ark", "stark")
    }


def diagnose(run_dir: Path) -> dict[str, Any]:
    """Where a run's trajectories go wrong: tool errors, stop reasons, calls per agent."""
    from evals.runs.store import read_results

    errors: Counter[str] = Counter()
    stops: Counter[str] = Counter()
    calls = valid = model_turns = repaired = 0
    selected_gold = selected = 0
    for record in read_results(run_dir):
        gold = set(record.gold)
        for trajectory in record.result.trajectories:
            stops[trajectory.stop_reason] += 1
            for step in trajectory.steps:
                if step.kind == "model":
                    model_turns += 1
                elif step.kind == "tool":
                    calls += 1
                    if step.error_kind:
                        errors[step.error_kind] += 1
                    else:
                        valid += 1
            repaired += sum(
                1
                for message in trajectory.messages
                if message.get("role") == "tool" and REPAIR_NOTE in str(message.get("content"))
            )
            selected += len(trajectory.answers)
            selected_gold += len(gold.intersection(trajectory.answers))
    return {
        "model_turns": model_turns,
        "tool_calls": calls,
        "valid_tool_calls": valid,
        "repaired_json_calls": repaired,
        "tool_errors": dict(errors),
        "stop_reasons": dict(stops),
        "answers_selected": selected,
        "answers_in_gold": selected_gold,
    }


def train_config(args: argparse.Namespace, path: Path) -> Path:
    settings = {
        "learning_rate": args.lr,
        "num_train_epochs": args.epochs,
        "max_minutes": args.minutes,
        "max_length": args.max_length,
        "gradient_accumulation_steps": args.accumulation,
        "lr_scheduler": "constant_with_warmup",
        "warmup_steps": 5,
        "logging_steps": 5,
        "eval_steps": 1000,
        "save_total_limit": 1,
        # measured here on SmolLM2 at 2,048 tokens: sdpa 26 s CPU per forward+backward, eager
        # 60 s (eager keeps every attention matrix for the backward: 14 GB at 3,072 tokens)
        "attn_implementation": "sdpa",
        "lora": {"r": args.rank, "alpha": 2 * args.rank, "dropout": 0.0},
    }
    import yaml

    path.write_text(yaml.safe_dump(settings))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, required=True, help="the student's GGUF file")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ark_bench_student"))
    parser.add_argument("--gguf-cache", type=Path, help="dequantised bases (default WORK/gguf)")
    parser.add_argument("--domain", default="academic")
    parser.add_argument("--nodes", type=int, default=1500)
    parser.add_argument("--train-questions", type=int, default=150)
    parser.add_argument("--test-questions", type=int, default=50)
    parser.add_argument(
        "--student-questions", type=int, help="student on the first N test questions (default all)"
    )
    parser.add_argument("--minutes", type=float, default=55.0, help="training wall-time cap")
    parser.add_argument("--train-config", type=Path, help="YAML TrainConfig (overrides the flags)")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--accumulation", type=int, default=1)
    parser.add_argument("--max-length", type=int, default=3072, help="tokens per conversation")
    parser.add_argument("--agent-steps", type=int, default=8, help="max_steps of both agents")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=192,
        help="student tokens per turn (the teacher's longest select is ~160 with its wrapper)",
    )
    parser.add_argument(
        "--brief-prompt",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="teacher and student see the brief system prompt and schemas (~760 prompt "
        "tokens instead of ~1,820 per training row)",
    )
    parser.add_argument("--search-k", type=int, default=5)
    parser.add_argument("--max-k", type=int, default=8, help="cap on any k a call asks for")
    parser.add_argument("--neighbors-k", type=int, default=8)
    parser.add_argument("--snippet-chars", type=int, default=60, help="search snippet length")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)

    from distill.dataset import DatasetOptions, build_sft_dataset
    from distill.preflight import resolve_base_model

    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    snap, data, cache = work / "snap", work / "data", args.gguf_cache or work / "gguf"
    adapter, merged = work / "adapter", work / "merged"
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
    base = resolve_base_model(str(args.gguf), gguf_cache=cache)
    timings["dequantise_s"] = time.perf_counter() - started
    from transformers import AutoTokenizer

    stats = None
    if not (data / "train.parquet").exists():
        stats = build_sft_dataset(
            [work / "teacher_train"],
            data,
            DatasetOptions(val_fraction=0.0),
            tokenizer=AutoTokenizer.from_pretrained(base),
        ).to_dict()
        print(json.dumps(stats, indent=2))

    started = time.perf_counter()
    if not (adapter / "adapter_config.json").exists():
        config = args.train_config or train_config(args, work / "train.yaml")
        ark("distill", "train", data, "--base-model", args.gguf, "--out", adapter,
            "--config", config, "--gguf-cache", cache)  # fmt: skip
    timings["train_s"] = time.perf_counter() - started
    if not (merged / "config.json").exists():
        ark("distill", "merge", adapter, "--out", merged)
    compared = args.student_questions or args.test_questions
    timings["student_test_s"] = run_agent(
        snap, "test", work / "student_test", f"hf:{merged}", compared, args
    )

    teacher_all = scores(work / "teacher_test", args.test_questions)
    teacher = scores(work / "teacher_test", compared)
    student = scores(work / "student_test", compared)
    record = json.loads((adapter / "ark_training.json").read_text())
    losses = [h["loss"] for h in record["log_history"] if "loss" in h]
    summary = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "dataset": stats,
        "train": {
            "steps": max((h.get("step", 0) for h in record["log_history"]), default=0),
            "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None,
        },
        "compared_questions": compared,
        "teacher_all_test_questions": teacher_all,
        "teacher": teacher,
        "student": student,
        "retention_hit@1": {
            p: student[p]["hit@1"] / teacher[p]["hit@1"] if teacher[p]["hit@1"] else None
            for p in ("ark", "stark")
        },
        "teacher_diagnosis": diagnose(work / "teacher_test"),
        "student_diagnosis": diagnose(work / "student_test"),
        "timings": timings,
    }
    (work / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    print(json.dumps(summary, indent=2, default=str))
    print("\n| model | protocol | Hit@1 | Hit@5 | Recall@20 | MRR |\n|---|---|---|---|---|---|")
    for name, values in (("teacher (rules)", teacher), ("student", student)):
        for protocol in ("ark", "stark"):
            row = " | ".join(f"{values[protocol][m]:.3f}" for m in METRICS)
            print(f"| {name} | {protocol} | {row} |")
    print(f"\nretention (student Hit@1 / teacher Hit@1): {summary['retention_hit@1']}")


if __name__ == "__main__":
    main()
