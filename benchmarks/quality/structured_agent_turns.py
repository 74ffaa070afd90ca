"""Agent turns of small models, native tool calling vs action turns (`--tool-calls`).

Runs one agent (n=1) for the first `--steps` turns on N seeded test questions of a graph,
once per way: `native` (the server's own tool calling; the way before) and `action` (each
turn one JSON-schema-constrained action over the offered tools, agent/models/action_turns.py;
what `auto` switches to once a native turn comes back empty). Per way: model turns, turns
with a tool call, of those calls the ones the tools ran without an argument error, empty
replies (no call, no text), failed turns (the endpoint's error, e.g. past --request-timeout),
seconds per turn (p50), Hit@1 of the answer list.

    LLAMA_VENV/bin/python benchmarks/llama_serve.py --model M.gguf --model_alias m \
        --n_ctx 4096 --port 8765 --n_threads 2 &
    nice -n 5 .venv/bin/python -m benchmarks.quality.structured_agent_turns \
        --graph /tmp/pf/geography --qa /tmp/pf/qa/geography/test.jsonl \
        --model m --base-url http://127.0.0.1:8765/v1 [--questions 10 --steps 2]
    nice -n 10 .venv/bin/python -m benchmarks.quality.structured_agent_turns ... \
        --model hf:M.gguf [--chat-template benchmarks/datasets/templates/gemma3.jinja]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
from pathlib import Path

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.action_turns import ActionTurns, ToolCallMode
from agent.models.base import Model
from benchmarks.quality.structured_plans import load_run_model
from graphs.snapshot import Snapshot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--qa", type=Path, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--ways", default="native,action")
    parser.add_argument("--request-timeout", type=float, default=120)
    parser.add_argument("--chat-template", type=Path, default=None, help="hf: models only.")
    args = parser.parse_args()
    snapshot = Snapshot.open(args.graph)
    rows = [json.loads(line) for line in args.qa.open()]
    sample = random.Random(0).sample(rows, min(args.questions, len(rows)))
    print(f"model {args.model}; {len(sample)} questions, 1 agent, {args.steps} turns")
    print("| way | model turns | with a tool call | calls run without error | empty replies "
          "| failed turns | s / turn p50 | Hit@1 |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for way in args.ways.split(","):
        config = AgentConfig(
            model=args.model, base_url=args.base_url, n_agents=1, max_steps=args.steps,
            temperature=0.0, max_tokens=args.max_tokens, request_timeout_s=args.request_timeout,
            call_deadline_s=2 * args.request_timeout, max_retries=0, tool_calls=way,
        )  # fmt: skip
        model: Model | None = None
        if args.chat_template is not None:  # built here, as make_agent would build it
            model = load_run_model(config, args.chat_template)
            model = (
                model
                if way == "native"
                else ActionTurns(model, ToolCallMode(way), max_tokens=args.max_tokens)
            )
        agent = make_agent(snapshot, config, model=model)
        turns = calls = clean = empty = hits = failed = 0
        seconds: list[float] = []
        for row in sample:
            result = asyncio.run(agent.ask(row["query"]))
            trajectory = result.trajectories[0]
            replies = [m for m in trajectory.messages if m["role"] == "assistant"]
            steps = trajectory.steps
            turns += len(replies)
            calls += sum(1 for m in replies if m.get("tool_calls"))
            empty += sum(1 for m in replies if not m.get("tool_calls") and not m.get("content"))
            clean += sum(1 for s in steps if s.kind == "tool" and s.error_kind is None)
            seconds += [s.wall_s for s in steps if s.kind == "model"]
            failed += sum(1 for s in steps if s.kind == "model" and s.error_kind)
            hits += bool(result.fused) and result.fused[0] in row["answer_ids"]
        print(
            f"| {way} | {turns} | {calls} | {clean} | {empty} | {failed} | "
            f"{statistics.median(seconds) if seconds else 0:.1f} | {hits / len(sample):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
