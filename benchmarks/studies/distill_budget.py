"""The distillation budget study end to end: 600 vs 6,000 teacher queries x two student sizes.

The paper's setting (needs a GPU, the STaRK files and an OpenAI-compatible teacher):

    python -m benchmarks.studies.distill_budget --snapshot prime --qa data/stark/qa/prime \\
        --teacher-model gpt-4.1 --students Qwen/Qwen3-4B,Qwen/Qwen3-8B --budgets 600,6000 \\
        --out studies/prime

Everything is resumable: rerun the same command after an interruption. `--tiny` runs a
self-contained miniature (a synthetic graph, the rule policy as teacher, two random
from-scratch students of different widths, a few queries, two optimizer steps) in minutes on
a CPU: it checks the pipeline, not the numbers. The tests run it.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

TINY_NODES = 600


def parse_list(text: str, kind: type) -> list[Any]:
    """ "600,6000" -> [600, 6000]."""
    return [kind(part.strip()) for part in text.split(",") if part.strip()]


def tiny_study(out: Path) -> Any:
    """The miniature study: everything built under `out`, nothing downloaded."""
    import pyarrow.parquet as pq

    from agent.config import AgentConfig
    from benchmarks.studies.budget_study import BudgetStudy
    from distill.config import LoraSettings, TrainConfig
    from distill.scratch import ScratchSpec, save_scratch_base
    from graphs.synth.generate import generate
    from tools.config import ToolConfig
    from tools.schemas import tool_schemas

    graph = out / "graph"
    if not (graph / "qa" / "test.jsonl").is_file():
        generate("academic", 0, graph, TINY_NODES)
    texts = [
        f"{row['name']} {row['text']}" for row in pq.read_table(graph / "nodes.parquet").to_pylist()
    ]
    texts.append(json.dumps(tool_schemas(ToolConfig())))
    students = []
    for width in (32, 64):
        base = out / "bases" / f"scratch-w{width}"
        if not (base / "config.json").is_file():
            spec = ScratchSpec(vocab_size=4096, hidden_size=width, intermediate_size=2 * width)
            save_scratch_base(base, texts, spec)
        students.append(str(base))
    # Few, short rows keep the conversations (and so the CPU training) small.
    tools = ToolConfig(
        search_k=3, neighbors_k=4, max_k=4, snippet_chars=24, neighbor_snippet_chars=16
    )
    return BudgetStudy(
        snapshot=graph,
        qa=graph / "qa",
        out=out,
        teacher=AgentConfig(model="rules", n_agents=1, max_steps=4, max_tokens=16, tools=tools),
        students=students,
        budgets=(2, 4),
        train=TrainConfig(
            learning_rate=1e-3,
            max_steps=1,
            max_length=4096,
            batch_size=1,
            gradient_accumulation_steps=1,
            eval_steps=1,
            logging_steps=1,
            save_total_limit=1,
            lora=LoraSettings(r=4, alpha=8),
        ),
        val_sample=1,
        test_sample=2,
        concurrency=2,
    )


def paper_study(args: argparse.Namespace) -> Any:
    """The study as the command line describes it (paper defaults elsewhere)."""
    from agent.config import AgentConfig
    from benchmarks.studies.budget_study import BudgetStudy
    from distill.config import load_config

    teacher = AgentConfig(
        model=args.teacher_model,
        base_url=args.base_url,
        n_agents=args.agents,
        max_steps=args.max_steps,
        temperature=args.temperature,
    )
    return BudgetStudy(
        snapshot=args.snapshot,
        qa=args.qa,
        out=args.out,
        teacher=teacher,
        students=parse_list(args.students, str),
        budgets=parse_list(args.budgets, int),
        train=load_config(args.config),
        val_sample=args.val_sample,
        test_sample=args.test_sample,
        seed=args.seed,
        concurrency=args.concurrency,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="work directory (resumable)")
    parser.add_argument("--tiny", action="store_true", help="the self-contained miniature")
    parser.add_argument("--snapshot", type=Path)
    parser.add_argument("--qa", type=Path, help="question set with train/val/test splits")
    parser.add_argument("--teacher-model", default="gpt-4.1")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--students", default="Qwen/Qwen3-4B,Qwen/Qwen3-8B")
    parser.add_argument("--budgets", default="600,6000")
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=20)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--config", type=Path, default=None, help="TrainConfig YAML")
    parser.add_argument("--val-sample", type=int, default=None, help="random val questions")
    parser.add_argument("--test-sample", type=int, default=None, help="random test questions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)

    from benchmarks.studies.budget_study import run_budget_study
    from distill.errors import DistillError
    from evals.qa.sets import QAError
    from evals.runs.store import RunStoreError
    from graphs.errors import GraphError

    if not args.tiny and (args.snapshot is None or args.qa is None):
        parser.error("--snapshot and --qa are required (or --tiny)")
    try:
        study = tiny_study(args.out) if args.tiny else paper_study(args)
        summary = run_budget_study(study)
    except (DistillError, QAError, RunStoreError, GraphError) as error:
        sys.exit(f"error: {error}")
    print((args.out / "budget.md").read_text(encoding="utf-8"))
    print(json.dumps({label: row["metrics"] for label, row in summary["rows"].items()}))


if __name__ == "__main__":
    main()
