"""Seconds per step of the `hf:` adapter with and without KV-cache reuse, on real trajectories.

Replays the first --questions trajectories of an `ark eval` run (the teacher's): for every
assistant turn the adapter generates a greedy turn (at most --max-tokens tokens) for the
conversation up to that turn, as an agent would, questions one after the other. The same
prompts run once with `reuse_kv=False` and once with the default reuse; the script checks the
generated turns are identical and reports seconds per step and tokens computed.

    .venv/bin/python benchmarks/bench_local_hf.py --model DIR --run RUN_DIR --questions 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any


def prompts(run_dir: Path, questions: int) -> list[tuple[list[dict[str, Any]], list[dict]]]:
    """(conversation up to an assistant turn, tools) for every turn of the first questions."""
    from evals.runstore import read_results

    turns = []
    for record in read_results(run_dir)[:questions]:
        trajectory = record.result.trajectories[0]
        messages = trajectory.messages
        for index, message in enumerate(messages):
            if message["role"] == "assistant":
                turns.append((messages[:index], trajectory.tools))
    return turns


def replay(model: Any, turns: list[tuple[list[dict[str, Any]], list[dict]]]) -> dict[str, Any]:
    seconds, outputs = [], []
    for messages, tools in turns:
        started = time.perf_counter()
        reply = asyncio.run(model.generate(messages, tools, temperature=0))
        seconds.append(time.perf_counter() - started)
        outputs.append(reply.message)
    return {"seconds": seconds, "outputs": outputs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="model directory (hf:)")
    parser.add_argument("--run", type=Path, required=True, help="run directory to replay")
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=30)
    args = parser.parse_args()

    import torch
    import transformers

    from agent.models.local_hf import LocalHFModel

    tokenizer = transformers.AutoTokenizer.from_pretrained(args.model)
    if not tokenizer.chat_template or "<tool_call>" not in tokenizer.chat_template:
        from distill.template import inference_template, load_training_template

        tokenizer.chat_template = inference_template(load_training_template())
    model = transformers.AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    model.eval()
    turns = prompts(args.run, args.questions)
    results = {}
    for label, reuse in (("no reuse", False), ("kv reuse", True)):
        adapter = LocalHFModel(
            model, tokenizer, name=label, max_tokens=args.max_tokens, reuse_kv=reuse
        )
        results[label] = replay(adapter, turns)
        if adapter.prefix_cache is not None:
            cache = adapter.prefix_cache
            results[label]["tokens"] = {
                "reused": cache.reused_tokens,
                "computed": cache.computed_tokens,
            }
    identical = results["no reuse"]["outputs"] == results["kv reuse"]["outputs"]
    summary = {
        "turns": len(turns),
        "prompt_tokens_mean": statistics.mean(
            len(tokenizer.apply_chat_template(m, tools=t, tokenize=False)) / 4 for m, t in turns
        ),
        "identical_outputs": identical,
        "torch_threads": torch.get_num_threads(),
    }
    for label, result in results.items():
        summary[label] = {
            "s_per_step_mean": statistics.mean(result["seconds"]),
            "s_per_step_median": statistics.median(result["seconds"]),
            "total_s": sum(result["seconds"]),
            **({"tokens": result["tokens"]} if "tokens" in result else {}),
        }
    summary["speedup_mean"] = (
        summary["no reuse"]["s_per_step_mean"] / summary["kv reuse"]["s_per_step_mean"]
    )
    print(json.dumps(summary, indent=2))
    print("\n| mode | s/step (mean) | s/step (median) | total s |\n|---|---|---|---|")
    for label in results:
        row = summary[label]
        print(
            f"| {label} | {row['s_per_step_mean']:.2f} | {row['s_per_step_median']:.2f} "
            f"| {row['total_s']:.1f} |"
        )
    print(f"\nspeed-up {summary['speedup_mean']:.2f}x; identical greedy outputs: {identical}")


if __name__ == "__main__":
    main()
