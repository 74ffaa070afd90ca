"""`--executor ray`: a batch's pending questions as Ray tasks, streamed into the run directory.

`workers` Ray actors (`ShardRunner`) each open the snapshot read-only once (the path must be
readable there: shared storage on a cluster) and build their asker once (bound to one of the
executor's endpoints in turn, when given); shards of questions go to whichever worker is
idle, which answers its shard `concurrency` questions at a time and returns the outcomes.
Only the driver writes: as each shard finishes, its outcomes are appended to the run
directory exactly as the local runner appends them, so a killed driver leaves complete lines
and `--resume` runs only what is missing, and a worker killed mid-shard is restarted by Ray
and the shard rerun (nothing of it was written). Ray is imported only here, and this module
only when the Ray executor is chosen.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.runs.executor import EndpointAsker, ExecutorConfig
from evals.runs.outcomes import Asker, Outcome, OutcomeHandler, attempt, record_outcome
from graphs.errors import MissingExtraError

if TYPE_CHECKING:
    from evals.qa.sets import QAItem
    from evals.runs.circuit import CircuitBreaker
    from evals.runs.store import RunStore
    from graphs.snapshot import Snapshot

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class RayBatch:
    """What every shard's task needs besides its questions (pickled once per task).

    Attributes:
        snapshot: The snapshot directory (opened read-only by each worker).
        make_asker: Builds the asker over the opened snapshot.
        asker_at: Builds it bound to an endpoint (with the executor's endpoints).
        concurrency: Questions in flight at once inside one task.
    """

    snapshot: Path
    make_asker: Callable[[Snapshot], Asker]
    asker_at: EndpointAsker | None = None
    concurrency: int = 4


class ShardRunner:
    """A Ray worker's state: the snapshot opened read-only and the asker, built once.

    Made a Ray actor by `run_on_ray`; each call answers one shard.
    """

    def __init__(self, batch: RayBatch, endpoint: str | None) -> None:
        from evals.metrics import CandidateFilter
        from graphs.snapshot import Snapshot

        snapshot = Snapshot.open(batch.snapshot)
        if endpoint is not None and batch.asker_at is not None:
            self.asker = batch.asker_at(snapshot, endpoint)
        else:
            self.asker = batch.make_asker(snapshot)
        self.is_candidate = CandidateFilter.from_snapshot(snapshot)
        self.concurrency = batch.concurrency

    def run(self, items: Sequence[QAItem]) -> list[Outcome]:
        """Answer `items`, `concurrency` at a time, and return every outcome."""
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(item: QAItem) -> Outcome:
            async with semaphore:
                return await attempt(self.asker, item, self.is_candidate)

        async def every() -> list[Outcome]:
            return list(await asyncio.gather(*(one(item) for item in items)))

        return asyncio.run(every())


def import_ray() -> Any:
    """The `ray` module, or a MissingExtraError naming the extra."""
    try:
        import ray
    except ImportError as error:
        raise MissingExtraError("ray", "ray", what="--executor ray") from error
    return ray


def run_on_ray(
    batch: RayBatch,
    pending: Sequence[QAItem],
    store: RunStore,
    executor: ExecutorConfig,
    breaker: CircuitBreaker,
    on_outcome: OutcomeHandler | None = None,
) -> list[Outcome]:
    """Run `pending` as Ray tasks and record each shard's outcomes as it finishes.

    Connects to the cluster RAY_ADDRESS names, else starts a local Ray instance with
    `executor.workers` CPUs (stopped again at the end). Once `breaker` trips, the shards not
    yet finished are cancelled.

    Returns:
        The outcomes recorded, in the order the shards finished.
    """
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        local = {} if os.environ.get("RAY_ADDRESS") else {"num_cpus": executor.workers}
        ray.init(
            **local,
            include_dashboard=False,
            configure_logging=False,
            log_to_driver=False,
        )
    try:
        return _stream(ray, batch, pending, store, executor, breaker, on_outcome)
    finally:
        if started_here:
            ray.shutdown()


def _stream(
    ray: Any,
    batch: RayBatch,
    pending: Sequence[QAItem],
    store: RunStore,
    executor: ExecutorConfig,
    breaker: CircuitBreaker,
    on_outcome: OutcomeHandler | None,
) -> list[Outcome]:
    shards = executor.shards(pending, batch.concurrency)
    actor = ray.remote(
        num_cpus=1, max_restarts=executor.max_retries, max_task_retries=executor.max_retries
    )(ShardRunner)
    runners = [
        actor.remote(batch, executor.endpoint_of(number))
        for number in range(min(executor.workers, len(shards)))
    ]
    logger.info(
        "%d questions in %d shards over %d Ray workers", len(pending), len(shards), len(runners)
    )
    idle = list(runners)
    queued = list(reversed(shards))
    running: dict[Any, Any] = {}
    ran: list[Outcome] = []
    try:
        while queued or running:
            while idle and queued:
                runner = idle.pop()
                running[runner.run.remote(queued.pop())] = runner
            done, _ = ray.wait(list(running), num_returns=1)
            idle.append(running.pop(done[0]))
            for outcome in ray.get(done[0]):
                record_outcome(outcome, store, breaker=breaker, on_outcome=on_outcome)
                ran.append(outcome)
            if breaker.tripped:
                break
    finally:
        for runner in runners:  # also ends shards still running (breaker, Ctrl-C, an error)
            ray.kill(runner)
    return ran
