"""One distilled student served two ways: in process (`-m hf:DIR`) vs llama.cpp's server.

`ark eval` runs the same questions with n agents twice, first through the in-process
transformers adapter (`generate` + prefix KV reuse, the only local path ARK keeps) and then
through llama-cpp-python's OpenAI-compatible server with the same student converted to GGUF
(`-m openai:student --base-url ...`), and reports wall time, seconds per model turn and the
metrics of each. The server is started and stopped by this script on 127.0.0.1.

The server renders prompts with the chat template the GGUF carries (the student's own, saved
by `ark distill merge`), so tools and calls look exactly as in training, and ARK reads the
`<tool_call>` blocks of its text replies; no `--chat_format` is set on purpose.

The GGUF comes from the merged student with llama.cpp's own converter, which the
llama-cpp-python source distribution on PyPI carries (offline; it needs `sentencepiece`):

    pip download --no-deps --no-binary :all: llama-cpp-python   # the sdist, ~77 MB
    tar xzf llama_cpp_python-*.tar.gz
    PYTHONPATH=llama_cpp_python-*/vendor/llama.cpp/gguf-py .venv/bin/python \\
        llama_cpp_python-*/vendor/llama.cpp/convert_hf_to_gguf.py STUDENT_DIR \\
        --outfile student.gguf --outtype f16

    .venv/bin/python -m benchmarks.quality.served_student --student STUDENT_DIR \\
        --gguf student.gguf --snapshot SNAP --qa SNAP/qa --llama-python LLAMA_VENV/bin/python \\
        --questions 20 --agents 3 --work W
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ARK = [sys.executable, "-c", "from cli.app import main; main()"]
SERVE = Path(__file__).resolve().parents[1] / "llama_serve.py"  # the server, AMX-safe


def serve(args: argparse.Namespace, log: Path) -> subprocess.Popen[bytes]:
    """Start llama-cpp-python's server on the student's GGUF and wait until it answers."""
    command = [
        str(args.llama_python), str(SERVE), "--model", str(args.gguf),
        "--model_alias", "student",
        "--n_ctx", str(args.n_ctx), "--n_threads", str(args.threads),
        "--host", "127.0.0.1", "--port", str(args.port),
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base_url(args)}/models", timeout=5):
                return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"the server exited; see {log}") from None
            time.sleep(2)
    server.terminate()
    raise SystemExit(f"the server did not answer within 300 s; see {log}")


def base_url(args: argparse.Namespace) -> str:
    return f"http://127.0.0.1:{args.port}/v1"


def evaluate(args: argparse.Namespace, model: str, out: Path, extra: list[str]) -> float:
    """Run `ark eval` and return its wall time in seconds (kept from a finished earlier run)."""
    timing = out.with_name(out.name + "-wall.json")
    if timing.is_file():
        return float(json.loads(timing.read_text())["wall_s"])
    argv = [
        "eval", "run", str(args.snapshot), "--qa", str(args.qa), "--split", "test",
        "--limit", str(args.questions), "--agents", str(args.agents),
        "--max-steps", str(args.max_steps), "--max-tokens", str(args.max_tokens),
        "--brief-prompt", "-m", model, "--out", str(out), "--json", *extra,
    ]  # fmt: skip
    if (out / "config.json").is_file():
        argv.append("--resume")
    started = time.perf_counter()
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    subprocess.run([*ARK, *argv], check=True, env=env)
    wall_s = time.perf_counter() - started
    timing.write_text(json.dumps({"wall_s": wall_s, "load_average": os.getloadavg()}))
    return wall_s


def summary(out: Path, wall_s: float) -> dict[str, Any]:
    """Metrics and model-turn timings of one run directory."""
    from evals.runs.store import read_failures, read_results

    records = read_results(out)
    turn_s = [
        step.wall_s
        for record in records
        for trajectory in record.result.trajectories
        for step in trajectory.steps
        if step.kind == "model" and not step.error_kind
    ]
    metrics = ("hit@1", "hit@5", "recall@20", "mrr")
    means = {m: statistics.mean(r.metrics["ark"][m] for r in records) for m in metrics}
    return {
        "questions": len(records),
        "failed": len(read_failures(out)),
        "wall_s": wall_s,
        "model_turns": len(turn_s),
        "s_per_turn_median": statistics.median(turn_s) if turn_s else None,
        **means,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--student", type=Path, required=True, help="merged student (hf:)")
    parser.add_argument("--gguf", type=Path, required=True, help="the same student as GGUF")
    parser.add_argument("--snapshot", type=Path, required=True)
    parser.add_argument("--qa", type=Path, required=True)
    parser.add_argument("--llama-python", type=Path, required=True, help="llama-cpp-python's")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=192)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--port", type=int, default=8093)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    results: dict[str, Any] = {"load_average_start": os.getloadavg()}
    hf_out = args.work / "hf"
    results["hf"] = summary(hf_out, evaluate(args, f"hf:{args.student}", hf_out, []))
    server = serve(args, args.work / "server.log")
    try:
        served_out = args.work / "served"
        # One server slot answers one request at a time and its /models waits too: questions go
        # one by one and a queued turn may wait for the agents ahead of it.
        served_flags = ["--base-url", base_url(args), "--concurrency", "1"]
        served_flags += ["--request-timeout", "600"]
        wall = evaluate(args, "openai:student", served_out, served_flags)
        results["served"] = summary(served_out, wall)
    finally:
        server.terminate()
        server.wait(timeout=30)
    results["load_average_end"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    print("\n| served as | questions | wall s | model turns | s / turn (median) | Hit@1 | MRR |")
    print("|---|---|---|---|---|---|---|")
    for label in ("hf", "served"):
        row = results[label]
        print(
            f"| {label} | {row['questions']} | {row['wall_s']:.0f} | {row['model_turns']} "
            f"| {row['s_per_turn_median'] or 0:.2f} | {row['hit@1']:.3f} | {row['mrr']:.3f} |"
        )


if __name__ == "__main__":
    main()
