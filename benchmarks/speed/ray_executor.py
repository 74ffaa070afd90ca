"""`--executor ray` throughput against a model with a fixed latency, local vs 1..N Ray workers.

    nice -n 5 python -m benchmarks.speed.ray_executor SNAPSHOT --questions 60 \
        --latency 0.25 --workers 1,2

The planner is the offline rules planner behind a fixed per-call latency (an awaited sleep:
a model endpoint that answers in exactly `--latency` seconds and serves one request per
worker at a time); each question then executes its plan on the snapshot (real CPU work).
Every run plans the same questions into a fresh run directory with concurrency 1 per
worker, so throughput can only grow with workers. Reports questions/s, the Ray start-up,
the per-question CPU cost and Ray's per-task overhead measured here, and a simulated
projection for more workers from those measured costs (nothing beyond this machine's 2
cores was run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.runs.executor import ExecutorConfig
from evals.runs.request import RunRequest
from rank.baselines.plan_run import run_plans


@dataclass(frozen=True)
class FixedLatencyPlanners:
    """The rules planner behind a model call of exactly `latency_s` (picklable for Ray)."""

    latency_s: float

    def __call__(self, snapshot: Any) -> _Delayed:
        from agent.planner import OfflinePlanner

        return _Delayed(OfflinePlanner(snapshot), self.latency_s)


class _Delayed:
    def __init__(self, inner: Any, latency_s: float) -> None:
        self.inner, self.latency_s, self.name = inner, latency_s, inner.name

    async def plan(self, question: str) -> Any:
        await asyncio.sleep(self.latency_s)
        return await self.inner.plan(question)


def timed_run(
    snapshot: Path, qa: Path, limit: int, planners: FixedLatencyPlanners, executor: ExecutorConfig
) -> float:
    """Seconds to plan `limit` questions into a fresh run directory."""
    with tempfile.TemporaryDirectory() as scratch:
        request = RunRequest(
            snapshot=snapshot, qa=qa, out=Path(scratch) / "run", limit=limit, concurrency=1
        )
        started = time.perf_counter()
        run_plans(request, planners, planner_name="rules", executor=executor)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--qa", type=Path, help="default: SNAPSHOT/qa/test.jsonl")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--shard-size", type=int, default=1)
    args = parser.parse_args()
    import ray

    qa = args.qa or args.snapshot / "qa" / "test.jsonl"
    n = args.questions
    print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    cpu = timed_run(args.snapshot, qa, n, FixedLatencyPlanners(0.0), ExecutorConfig())
    local = timed_run(args.snapshot, qa, n, FixedLatencyPlanners(args.latency), ExecutorConfig())
    print(
        f"{n} questions, model latency {args.latency * 1000:.0f} ms; per question CPU "
        f"{cpu / n * 1000:.1f} ms (no latency, local); local executor (concurrency 1): "
        f"{local:.1f} s = {n / local:.2f} q/s",
        flush=True,
    )
    rows = []
    for workers in [int(part) for part in args.workers.split(",")]:
        started = time.perf_counter()
        ray.init(
            num_cpus=workers, include_dashboard=False, configure_logging=False, log_to_driver=False
        )
        startup = time.perf_counter() - started
        executor = ExecutorConfig(kind="ray", workers=workers, shard_size=args.shard_size)
        # workers start per run (process, imports, snapshot open, asker): timed alone here
        warm = timed_run(args.snapshot, qa, workers, FixedLatencyPlanners(0.0), executor)
        seconds = timed_run(args.snapshot, qa, n, FixedLatencyPlanners(args.latency), executor)
        ray.shutdown()
        steady = (seconds - warm) * workers / n  # a worker's seconds per question, started
        rows.append((workers, steady))
        print(
            f"ray, {workers} worker(s), shard {args.shard_size}: {seconds:.1f} s = "
            f"{n / seconds:.2f} q/s, {seconds / local:.2f} x the local time (Ray start "
            f"{startup:.1f} s not included; starting the workers {warm:.1f} s included); "
            f"started workers: {1000 * steady:.0f} ms per question per worker "
            f"({1000 * (steady - args.latency - cpu / n):.0f} ms above latency + CPU)",
            flush=True,
        )
    workers, steady = rows[-1]
    print(
        f"simulated projection (per question {steady * 1000:.0f} ms of a started worker, as "
        f"measured with {workers} workers; endpoints, the driver's writes and worker start "
        "not the bottleneck):"
    )
    for count in (16, 128, 1_600):
        print(f"  {count:>5} workers: {count / steady:,.0f} q/s")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
