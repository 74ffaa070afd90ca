"""ServeContext: everything a route of `ark serve` reads, built once and passed in."""

from __future__ import annotations

from dataclasses import dataclass, field

from cli.serve.jobs import JobManager
from cli.serve.runs import RunRegistry
from cli.serve.state import GraphRegistry, ServeDeps, ServeOptions


@dataclass
class ServeContext:
    """The served snapshots, the options and replaceable parts, runs and document jobs."""

    graphs: GraphRegistry
    options: ServeOptions
    deps: ServeDeps
    runs: RunRegistry = field(default_factory=RunRegistry)
    jobs: JobManager = field(default_factory=JobManager)
