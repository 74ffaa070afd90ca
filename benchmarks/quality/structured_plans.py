"""Invalid plans before / after enforcing the plan schema: GRASP stage 1 with small models.

Plans N seeded test questions of each graph with an LLM planner (agent/planner.py) two ways:
`prompt` (the plan's JSON asked for in the prompt, read with lenient repair; the way before
the structured door) and `schema` (`--structured auto`: the snapshot's plan schema,
tools/plans/plan_schema.py, sent as `response_format` to a server, or enforced while decoding
for `hf:` models by llguidance). One attempt per question (no re-ask), so every invalid reply
counts. Per way and graph: plans invalid (no JSON, not a plan, a type or relation the graph
lacks), replies read only after repair, seconds per plan (p50 / max), and the executed plans'
Hit@1 (quality as measured; the point is validity).

    LLAMA_VENV/bin/python benchmarks/llama_serve.py --model M.gguf --model_alias m \
        --n_ctx 4096 --port 8765 --n_threads 2 &
    nice -n 10 .venv/bin/python -m benchmarks.quality.structured_plans \
        --graphs /tmp/pf/geography,/tmp/pf/products --qa /tmp/pf/qa \
        --model m --base-url http://127.0.0.1:8765/v1 [--questions 10]
    nice -n 10 .venv/bin/python -m benchmarks.quality.structured_plans ... --model hf:M.gguf \
        [--chat-template benchmarks/datasets/templates/gemma3.jinja]   # a GGUF without one
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from agent.config import AgentConfig
from agent.models.base import Model, ModelError
from agent.models.registry import load_model, parse_model_spec
from agent.models.structured import StructuredMode
from agent.planner import LLMPlanner, PlannerConfig
from graphs.snapshot import Snapshot
from tools.plans.execute import PlanExecutor

WAYS = {"prompt": StructuredMode.prompt, "schema": StructuredMode.auto}


def kind(error: str) -> str:
    """A short name for why a plan was rejected."""
    for key, name in (
        ("JSON", "no JSON"),
        ("unknown", "unknown type/relation"),
        ("not valid", "not JSON"),
    ):
        if key in error:
            return name
    if "not joined" in error or "not bound" in error or "cycle" in error:
        return "hops not joined to T"
    return "not a plan"


def load_run_model(config: AgentConfig, chat_template: Path | None) -> Model:
    """The model `config.model` names; an `hf:` model given `chat_template` (a Jinja file)."""
    if chat_template is None:
        return load_model(config)
    spec = parse_model_spec(config.model, base_url=config.base_url)
    if spec.backend != "hf":
        raise SystemExit("--chat-template is for hf: models (a server applies its own)")
    from agent.models.hf.model import LocalHFModel

    return LocalHFModel.load(spec.path, max_tokens=config.max_tokens, chat_template=chat_template)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graphs", required=True, help="Comma-separated snapshot dirs.")
    parser.add_argument("--qa", type=Path, required=True, help="Dir holding GRAPH/test.jsonl.")
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--ways", default=",".join(WAYS))
    parser.add_argument("--request-timeout", type=float, default=300)
    parser.add_argument("--chat-template", type=Path, default=None, help="hf: models only.")
    args = parser.parse_args()
    config = AgentConfig(
        model=args.model, base_url=args.base_url, max_tokens=args.max_tokens, temperature=0.0,
        request_timeout_s=args.request_timeout, call_deadline_s=2 * args.request_timeout,
        max_retries=0,
    )  # fmt: skip
    model = load_run_model(config, args.chat_template)
    print(f"model {args.model}; {args.questions} questions per graph, one attempt each")
    print("| graph | way | invalid plans | why | repaired | s / plan p50 (max) | Hit@1 |")
    print("|---|---|---:|---|---:|---:|---:|")
    for graph in args.graphs.split(","):
        snapshot = Snapshot.open(graph)
        name = Path(graph).name
        rows = [json.loads(line) for line in (args.qa / name / "test.jsonl").open()]
        sample = random.Random(0).sample(rows, min(args.questions, len(rows)))
        executor = PlanExecutor(snapshot)
        for way in args.ways.split(","):
            planner = LLMPlanner(
                model, snapshot.manifest, PlannerConfig(retries=0, structured=WAYS[way])
            )
            seconds, invalid, hits, why = [], 0, 0, Counter()
            repaired = 0
            for row in sample:
                began = time.perf_counter()
                try:
                    planned = asyncio.run(planner.plan(row["query"]))
                except ModelError as error:  # a call past --request-timeout: counted, not fatal
                    seconds.append(time.perf_counter() - began)
                    invalid += 1
                    why.update([f"call failed ({error.kind})"])
                    continue
                seconds.append(time.perf_counter() - began)
                repaired += planned.repaired
                if planned.invalid:
                    invalid += 1
                    why.update(kind(error) for error in planned.errors)
                ranking = executor.run(planned.plan).ranking
                hits += bool(ranking) and ranking[0].node_id in row["answer_ids"]
            reasons = ", ".join(f"{k} {v}" for k, v in why.most_common()) or "-"
            print(
                f"| {name} | {way} (asked as {dict(planner.stats.by_mode)}) | {invalid} of "
                f"{len(sample)} | {reasons} | {repaired} | {statistics.median(seconds):.1f} "
                f"({max(seconds):.1f}) | {hits / len(sample):.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
