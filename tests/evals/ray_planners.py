"""Picklable planners for the Ray tests: slow ones, and one that kills its worker (not a test)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.planner import OfflinePlanner


@dataclass(frozen=True)
class RulesPlanners:
    """Builds the offline (rules) planner, optionally slowed down or killing its worker once.

    Attributes:
        delay_s: Sleep before each plan (a model's fixed latency).
        die_once: If set and absent, the first plan creates this file and the worker process
            exits on the spot (a worker killed mid-shard); Ray reruns the shard elsewhere.
    """

    delay_s: float = 0.0
    die_once: str | None = None

    def __call__(self, snapshot: Any) -> _Planner:
        return _Planner(OfflinePlanner(snapshot), self)


class _Planner:
    def __init__(self, inner: OfflinePlanner, spec: RulesPlanners) -> None:
        self.inner, self.spec, self.name = inner, spec, inner.name

    async def plan(self, question: str) -> Any:
        if self.spec.die_once and not Path(self.spec.die_once).exists():
            Path(self.spec.die_once).write_text(str(os.getpid()))
            os._exit(1)
        if self.spec.delay_s:
            await asyncio.sleep(self.spec.delay_s)
        return await self.inner.plan(question)
