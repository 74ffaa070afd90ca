"""The executor flags, declared once (ExecutorFlags): run a batch here or as Ray tasks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from cli.flags.groups import flag_group

if TYPE_CHECKING:
    from evals.runs.executor import ExecutorConfig

ExecutorOpt = Annotated[
    str,
    typer.Option(
        "--executor",
        help="local (this process) or ray (Ray tasks, the ray extra: RAY_ADDRESS picks the "
        "cluster; with none set a local Ray instance of --workers CPUs starts). Results "
        "stream into the same run directory either way; --resume works across both.",
    ),
]
WorkersOpt = Annotated[
    int,
    typer.Option(
        "--workers",
        min=1,
        help="With --executor ray: Ray workers, each opening the snapshot and building its "
        "agent, planner or extractor once (a local Ray instance gets this many CPUs).",
    ),
]
ShardOpt = Annotated[
    int,
    typer.Option(
        "--shard-size",
        min=0,
        help="With --executor ray: questions per Ray task (0: --concurrency).",
    ),
]
EndpointsOpt = Annotated[
    str | None,
    typer.Option(
        "--endpoints",
        help="With --executor ray: comma-separated model base URLs spread over the workers "
        "in turn (each overrides --base-url for its worker).",
    ),
]


@flag_group
@dataclass(frozen=True, kw_only=True)
class ExecutorFlags:
    """Where a batch of questions runs."""

    executor: ExecutorOpt = "local"
    workers: WorkersOpt = 2
    shard_size: ShardOpt = 0
    endpoints: EndpointsOpt = None

    def config(self) -> ExecutorConfig:
        """The ExecutorConfig these flags ask for (raises ConfigError on a bad mix)."""
        from evals.runs.executor import ExecutorConfig

        urls = tuple(url.strip() for url in (self.endpoints or "").split(",") if url.strip())
        return ExecutorConfig(
            kind=self.executor,  # type: ignore[arg-type]  # checked by ExecutorConfig
            workers=self.workers,
            shard_size=self.shard_size,
            endpoints=urls,
        )
