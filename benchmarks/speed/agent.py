"""Harness overhead of the ARK agent: time per step excluding the model, on a large snapshot.

Zero-latency models replay fixed five-turn episodes, so everything measured is LangGraph, the
tools, observation formatting and trajectory records. Three episodes:

- typical: search the question (k=5), neighbors of the top hit ranked by the question, neighbors
  of the second hit, select, finish;
- hub: the same but both neighbors calls go to the maximum-degree node (worst case);
- bare: select four times then finish (the state machine and records alone, no retrieval).

    .venv/bin/python -m benchmarks.speed.agent --nodes 1000000 --questions 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.base import Message, ModelReply
from agent.models.scripted import tool_call_message
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate


class EpisodeModel:
    """Zero-latency model; records how long its own calls take so they can be subtracted."""

    def __init__(self, snapshot: Snapshot, episode: str) -> None:
        self.name = f"bench-{episode}"
        self.episode = episode
        self.hub = snapshot.external_id(int(snapshot.degrees.argmax()))
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
        reply = ModelReply(self._turn(messages))
        self.model_seconds += time.perf_counter() - started
        return reply

    def _turn(self, messages: list[Message]) -> Message:
        turn = sum(1 for m in messages if m["role"] == "assistant")
        question = messages[1]["content"]
        if turn == 4:
            return tool_call_message("finish", {})
        if self.episode == "bare":
            return tool_call_message("select", {"node_ids": [self.hub]})
        if turn == 0:
            return tool_call_message("search", {"query": question, "k": 5})
        hits = _ids(messages[3]["content"]) or [self.hub]
        if turn == 3:
            return tool_call_message("select", {"node_ids": hits[:3]})
        anchor = self.hub if self.episode == "hub" else hits[min(turn - 1, len(hits) - 1)]
        arguments = {"node_id": anchor, "query": question} if turn == 1 else {"node_id": anchor}
        return tool_call_message("neighbors", arguments)


def _ids(text: str) -> list[str]:
    return [line[1 : line.index("]")] for line in text.splitlines() if line.startswith("[")]


def measure(snapshot: Snapshot, questions: list[str], episode: str) -> dict[str, float]:
    """Per-step harness time (ms) over the questions, excluding the model's own time."""
    model = EpisodeModel(snapshot, episode)
    agent = make_agent(snapshot, AgentConfig(n_agents=1), model=model)
    per_step: list[float] = []
    for question in questions:
        model.model_seconds = 0.0
        result = asyncio.run(agent.ask(question))
        (trajectory,) = result.trajectories
        assert trajectory.stop_reason == "finish", trajectory.stop_reason
        turns = sum(1 for s in trajectory.steps if s.kind == "model")
        per_step.append((result.wall_s - model.model_seconds) / turns * 1000)
    per_step.sort()
    return {
        "p50": statistics.median(per_step),
        "p95": per_step[int(0.95 * (len(per_step) - 1))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("bench-out/agent-academic"))
    args = parser.parse_args()
    if not (args.out / "manifest.json").exists():
        started = time.perf_counter()
        generate("academic", 0, args.out, nodes=args.nodes, options=BuildOptions(overwrite=True))
        print(f"generated {args.out} in {time.perf_counter() - started:.1f}s")
    snapshot = Snapshot.open(args.out)
    lines = (args.out / "qa" / "test.jsonl").read_text().splitlines()
    questions = [json.loads(line)["query"] for line in lines][: args.questions]
    print(
        f"snapshot: {snapshot.num_nodes:,} nodes, {snapshot.num_edges:,} edges, "
        f"max degree {int(snapshot.degrees.max()):,}; {len(questions)} questions x 5 turns"
    )
    for episode in ("typical", "hub", "bare"):
        stats = measure(snapshot, questions, episode)
        share = stats["p50"] / 200 * 100
        print(
            f"{episode:8s} per step excluding the model: p50 {stats['p50']:.2f} ms, "
            f"p95 {stats['p95']:.2f} ms ({share:.1f}% of a 200 ms model step)"
        )


if __name__ == "__main__":
    main()
