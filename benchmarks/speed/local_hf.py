"""Seconds per agent-step of the `hf:` adapter: `generate` from scratch vs with prefix KV reuse.

Replays real trajectories of an `ark eval` run (the teacher's) as n concurrent agents: each
agent walks its trajectory turn by turn, asking the adapter for a greedy turn (at most
--max-tokens tokens) on the conversation up to each assistant turn, as a live agent would,
and all n agents of a group run at once (asyncio, as `ArkAgent.ask` runs them). When the run
holds n different trajectories per question they are the group; otherwise n consecutive
questions' trajectories form one (different conversations that share the system prompt and
tools, as sampled agents' do).

Modes, interleaved group by group (so machine load hits every mode alike):
  serial        agents take turns under the model lock, `generate` from scratch (the baseline)
  serial+reuse  the same, each prompt starting from the longest KV prefix computed before

Every mode's generated turns are compared with the baseline's (identical greedy outputs).

    .venv/bin/python -m benchmarks.speed.local_hf --model DIR --run RUN_DIR --groups 2 --agents 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

Turn = tuple[list[dict[str, Any]], list[dict[str, Any]]]
MODES = ("serial", "serial+reuse")


def agent_groups(run_dir: Path, groups: int, agents: int) -> list[list[list[Turn]]]:
    """`groups` groups of `agents` trajectories, each as its list of (conversation, tools)."""
    from evals.runs.store import read_results

    trajectories = []
    for record in read_results(run_dir):
        distinct = {json.dumps(t.messages): t for t in record.result.trajectories}
        trajectories.append(list(distinct.values()))
    if all(len(found) >= agents for found in trajectories[:groups]):
        chosen = [found[:agents] for found in trajectories[:groups]]
    else:
        flat = [found[0] for found in trajectories]
        chosen = [flat[index : index + agents] for index in range(0, groups * agents, agents)]
    result = []
    for group in chosen:
        walks = []
        for trajectory in group:
            messages = trajectory.messages
            walks.append(
                [
                    (messages[:index], trajectory.tools)
                    for index, message in enumerate(messages)
                    if message["role"] == "assistant"
                ]
            )
        result.append(walks)
    return result


async def replay_group(model: Any, walks: list[list[Turn]]) -> list[list[dict[str, Any]]]:
    """Run the group's agents concurrently; return each agent's generated turns."""

    async def agent(walk: list[Turn]) -> list[dict[str, Any]]:
        return [
            (await model.generate(messages, tools, temperature=0)).message
            for messages, tools in walk
        ]

    return list(await asyncio.gather(*(agent(walk) for walk in walks)))


def build_adapters(model: Any, tokenizer: Any, args: argparse.Namespace) -> dict[str, Any]:
    from agent.models.hf.model import LocalHFModel

    def adapter(mode: str, **kw: Any) -> LocalHFModel:
        return LocalHFModel(model, tokenizer, name=mode, max_tokens=args.max_tokens, **kw)

    return {
        "serial": adapter("serial", reuse_kv=False),
        "serial+reuse": adapter("serial+reuse"),
    }


def token_counts(adapter: Any) -> dict[str, int] | None:
    store = adapter.prefix_cache
    if store is None:
        return None
    return {"reused": store.reused_tokens, "computed": store.computed_tokens}


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(args.model)
    if not tokenizer.chat_template or "<tool_call>" not in tokenizer.chat_template:
        from distill.template import inference_template, load_training_template

        tokenizer.chat_template = inference_template(load_training_template())
    model = transformers.AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    model.eval()
    adapters = build_adapters(model, tokenizer, args)
    modes = [mode for mode in MODES if mode in args.modes]
    groups = agent_groups(args.run, args.groups, args.agents)
    seconds = dict.fromkeys(modes, 0.0)
    cpu = dict.fromkeys(modes, 0.0)
    outputs: dict[str, list[Any]] = {mode: [] for mode in modes}
    for index, walks in enumerate(groups):
        order = modes[index % len(modes) :] + modes[: index % len(modes)]
        for mode in order:
            started, started_cpu = time.perf_counter(), time.process_time()
            outputs[mode].append(asyncio.run(replay_group(adapters[mode], walks)))
            seconds[mode] += time.perf_counter() - started
            cpu[mode] += time.process_time() - started_cpu
            print(f"group {index} {mode}: {seconds[mode]:.1f} s so far", flush=True)
    steps = sum(len(walk) for walks in groups for walk in walks)
    prompt_tokens = [
        len(adapters[modes[0]].prompt_ids(messages, tools))
        for walks in groups
        for walk in walks
        for messages, tools in walk
    ]
    baseline = modes[0]
    summary: dict[str, Any] = {
        "model": str(args.model),
        "run": str(args.run),
        "groups": len(groups),
        "agents": args.agents,
        "agent_steps": steps,
        "prompt_tokens_mean": statistics.mean(prompt_tokens),
        "max_tokens": args.max_tokens,
        "torch_threads": torch.get_num_threads(),
        "load_average_end": os.getloadavg(),
        "sample_turns": outputs[baseline][0][0][:2],
        "modes": {},
    }
    for mode in modes:
        adapter = adapters[mode]
        summary["modes"][mode] = {
            "s_per_agent_step": seconds[mode] / steps,
            "cpu_s_per_agent_step": cpu[mode] / steps,
            "total_s": seconds[mode],
            "speedup_vs_baseline": seconds[baseline] / seconds[mode],
            "identical_to_baseline": outputs[mode] == outputs[baseline],
            "tokens": token_counts(adapter),
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="model directory (hf:)")
    parser.add_argument("--run", type=Path, required=True, help="run directory to replay")
    parser.add_argument("--groups", type=int, default=2, help="groups of concurrent agents")
    parser.add_argument("--agents", type=int, default=3, help="agents per group (n)")
    parser.add_argument("--max-tokens", type=int, default=30)
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's own)")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    summary = run(args)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)
    print("\n| mode | s / agent-step | CPU s / agent-step | speed-up | identical outputs |")
    print("|---|---|---|---|---|")
    for mode, row in summary["modes"].items():
        identical = "yes" if row["identical_to_baseline"] else "NO"
        print(
            f"| {mode} | {row['s_per_agent_step']:.2f} | {row['cpu_s_per_agent_step']:.2f} "
            f"| {row['speedup_vs_baseline']:.2f}x | {identical} |"
        )


if __name__ == "__main__":
    main()
