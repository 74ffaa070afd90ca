"""ARK agents against a running OpenAI-compatible server: does the loop run end to end?

Runs the first --questions test questions of a synthetic snapshot (`ark graph synth`) with
one agent each through the real HTTP adapter, then reports from the trajectories: agents
that completed (stopped by `finish` or the step limit, not by an error), model turns per
agent, the share of tool calls that were valid (no tool error), requests the server rejected
(model errors), Hit@1 (ARK protocol) and seconds per model step.

    # a local server, e.g. llama-cpp-python's:
    python -m llama_cpp.server --model M.gguf --chat_format chatml-function-calling --port 8081
    .venv/bin/python -m benchmarks.quality.server --snapshot SNAP --base-url \
        http://127.0.0.1:8081/v1 --model smollm2 --out /tmp/run_smollm2
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any


def report(run_dir: Path, questions: int, wall_s: float) -> dict[str, Any]:
    from evals.runs.store import read_failures, read_results

    records = read_results(run_dir)
    failures = read_failures(run_dir)
    stops: Counter[str] = Counter()
    tool_errors: Counter[str] = Counter()
    turns, step_s, rejected_texts = [], [], []
    calls = valid = 0
    for record in records:
        for trajectory in record.result.trajectories:
            stops[trajectory.stop_reason] += 1
            model_steps = [s for s in trajectory.steps if s.kind == "model"]
            turns.append(len(model_steps))
            step_s += [s.wall_s for s in model_steps if not s.error_kind]
            rejected_texts += [s.error or "" for s in model_steps if s.error_kind]
            for step in trajectory.steps:
                if step.kind == "tool":
                    calls += 1
                    valid += step.error_kind is None
                    if step.error_kind:
                        tool_errors[step.error_kind] += 1
    agents = sum(stops.values())
    return {
        "questions": questions,
        "answered": len(records),
        "failed_questions": len(failures),
        "agents": agents,
        "completed_agents": stops["finish"] + stops["max_steps"] + stops["context_full"],
        "stop_reasons": dict(stops),
        "model_turns_per_agent": {
            "min": min(turns, default=0),
            "mean": statistics.mean(turns) if turns else 0.0,
        },
        "tool_calls": calls,
        "valid_tool_call_share": valid / calls if calls else None,
        "tool_errors": dict(tool_errors),
        "rejected_requests": len(rejected_texts) + len(failures),
        "rejections": sorted(set(rejected_texts + [f.error for f in failures]))[:3],
        "hit@1": sum(r.metrics["ark"]["hit@1"] for r in records) / questions,
        "s_per_step_mean": statistics.mean(step_s) if step_s else None,
        "wall_s": wall_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True, help="model name sent to the server")
    parser.add_argument("--out", type=Path, required=True, help="run directory (resumable)")
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--search-k", type=int, default=5)
    parser.add_argument("--neighbors-k", type=int, default=8)
    parser.add_argument("--snippet-chars", type=int, default=60)
    args = parser.parse_args()

    from agent.config import AgentConfig
    from evals.runs.request import RunRequest
    from evals.runs.runner import evaluate
    from tools.config import ToolConfig

    tools = ToolConfig(
        search_k=args.search_k,
        neighbors_k=args.neighbors_k,
        max_k=max(args.search_k, args.neighbors_k),
        snippet_chars=args.snippet_chars,
        neighbor_snippet_chars=0,
    )
    agent = AgentConfig(
        model=f"openai:{args.model}",
        base_url=args.base_url,
        n_agents=1,
        max_steps=args.max_steps,
        max_tokens=args.max_tokens,
        temperature=0.0,
        request_timeout_s=600.0,
        tools=tools,
    )
    request = RunRequest(
        snapshot=args.snapshot,
        qa=args.snapshot / "qa" / "test.jsonl",
        out=args.out,
        limit=args.questions,
        concurrency=1,
        resume=args.out.exists(),
    )
    started = time.perf_counter()
    evaluate(request, agent)
    summary = report(args.out, args.questions, time.perf_counter() - started)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
