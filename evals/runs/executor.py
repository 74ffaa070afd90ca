"""ExecutorConfig: where a batch of questions runs, in this process or as Ray tasks.

The local executor is the asyncio runner of evals/runs/runner.py. The Ray executor
(evals/runs/ray_executor.py, the `ray` extra, imported only when chosen) cuts the pending
questions into shards, hands them to Ray workers that each opened the snapshot read-only
and built their own asker, and streams each finished shard back into the same run directory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

from graphs.errors import ConfigError

if TYPE_CHECKING:
    from evals.runs.outcomes import Asker
    from graphs.snapshot import Snapshot

ExecutorKind = Literal["local", "ray"]
EXECUTORS: tuple[ExecutorKind, ...] = ("local", "ray")
ItemT = TypeVar("ItemT")

EndpointAsker = Callable[["Snapshot", str], "Asker"]
"""Builds the asker of a shard bound to one model endpoint (a base URL) of --endpoints."""


@dataclass(frozen=True, kw_only=True)
class ExecutorConfig:
    """How a batch of questions is spread.

    Attributes:
        kind: "local" (this process) or "ray" (Ray tasks; RAY_ADDRESS picks the cluster, and
            with none set a local Ray instance of `workers` CPUs starts and stops with the run).
        workers: Ray workers (actors of one CPU each): shards answered at once, each
            `concurrency` questions at a time. A local Ray instance gets this many CPUs.
        shard_size: Questions per Ray task (0: the request's concurrency). Smaller shards
            stream results back sooner and lose less work to a killed worker.
        endpoints: Model base URLs spread over the workers in turn (worker i uses endpoint
            i mod len); empty: every worker uses the configured endpoint.
        max_retries: Times Ray restarts a worker that died, and reruns its shard.
    """

    kind: ExecutorKind = "local"
    workers: int = 2
    shard_size: int = 0
    endpoints: tuple[str, ...] = ()
    max_retries: int = 3

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ConfigError(f"unknown executor {self.kind!r}; choose from local, ray")
        if self.workers < 1 or self.shard_size < 0 or self.max_retries < 0:
            raise ConfigError(
                "executor workers must be >= 1, shard_size >= 0 (0: the concurrency) and "
                "max_retries >= 0"
            )
        if self.endpoints and self.kind != "ray":
            raise ConfigError(
                "--endpoints spreads Ray shards over several model servers; add "
                "--executor ray, or pass one server with --base-url"
            )

    def shards(self, items: Sequence[ItemT], concurrency: int) -> list[list[ItemT]]:
        """`items` cut in order into shards of `shard_size` (or `concurrency`) questions."""
        size = self.shard_size or concurrency
        return [list(items[start : start + size]) for start in range(0, len(items), size)]

    def endpoint_of(self, worker: int) -> str | None:
        """The base URL worker number `worker` calls (None: the configured one)."""
        return self.endpoints[worker % len(self.endpoints)] if self.endpoints else None


LOCAL = ExecutorConfig()
