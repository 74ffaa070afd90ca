"""Harness overhead of the ARK agent: time per step excluding the model, on a large snapshot.

A zero-latency model replays a fixed five-turn episode (search, neighbors, neighbors with a
query, select, finish) so everything measured is LangGraph, the tools, formatting and records.

    .venv/bin/python benchmarks/bench_agent.py --nodes 1000000 --questions 200
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.base import Message, ModelReply
from agent.models.scripted import tool_call_message
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate


class EpisodeModel:
    """Zero-latency model; records how long its own calls take so they can be subtracted."""

    name = "bench-episode"

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.model_seconds = 0.0

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        started = time.perf_counter()
        turn = sum(1 for m in messages if m["role"] == "assistant")
        question = messages[1]["content"]
        hub = self.snapshot.external_id(int(self.snapshot.degrees.argmax()))
        anchor = _first_id(messages[-1]["content"]) if turn else hub
        script = [
            tool_call_message("search", {"query": question, "k": 5}),
            tool_call_message("neighbors", {"node_id": anchor}),
            tool_call_message("neighbors", {"node_id": hub, "query": question}),
            tool_call_message("select", {"node_ids": [anchor, hub]}),
            tool_call_message("finish", {}),
        ]
        reply = ModelReply(script[min(turn, len(script) - 1)])
        self.model_seconds += time.perf_counter() - started
        return reply


def _first_id(text: str) -> str:
    start = text.find("[")
    return text[start + 1 : text.find("]", start)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("bench-out/agent-academic"))
    args = parser.parse_args()
    if not (args.out / "manifest.json").exists():
        started = time.perf_counter()
        generate("academic", 0, args.out, nodes=args.nodes, overwrite=True)
        print(f"generated {args.out} in {time.perf_counter() - started:.1f}s")
    snapshot = Snapshot.open(args.out)
    questions = [
        line.split('"query": "')[1].split('"')[0]
        for line in (args.out / "qa" / "test.jsonl").read_text().splitlines()
    ][: args.questions]
    model = EpisodeModel(snapshot)
    agent = make_agent(snapshot, AgentConfig(n_agents=1), model=model)
    per_step: list[float] = []
    for question in questions:
        model.model_seconds = 0.0
        result = asyncio.run(agent.ask(question))
        (trajectory,) = result.trajectories
        turns = sum(1 for s in trajectory.steps if s.kind == "model")
        per_step.append((result.wall_s - model.model_seconds) / turns)
    per_step.sort()
    p50 = statistics.median(per_step) * 1000
    p95 = per_step[int(0.95 * (len(per_step) - 1))] * 1000
    print(f"snapshot: {snapshot.num_nodes:,} nodes, {snapshot.num_edges:,} edges")
    print(f"questions: {len(per_step)}, 5 turns each (search, 2x neighbors incl. max-degree hub)")
    print(f"harness time per step excluding the model: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    print(f"share of a 200 ms model step: {p50 / 200 * 100:.2f}%")


if __name__ == "__main__":
    main()
