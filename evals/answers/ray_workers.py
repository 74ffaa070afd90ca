"""SARG answer runs on Ray: each worker builds its answerer once and answers questions sent to it.

`ark eval answers --executor ray` starts `workers` Ray actors; each opens the snapshot and
builds its SARG answerer once (its own encoder, KeyBERT and reader, its own client of the
model endpoint: `--endpoints` spread over the workers in turn). The driver's answer run
(evals/answers/run.py) keeps one question in flight per worker and writes every record itself,
into the same resumable run directory as a local run. RAY_ADDRESS picks the cluster; with
none set a local Ray instance of `workers` CPUs starts (and stops at `close`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from typing import Any

from evals.runs.ray_executor import import_ray


class _AnswerWorker:
    """One Ray actor: its answerer, built once."""

    def __init__(self, make: Callable[[int], Any], index: int) -> None:
        self.answerer = make(index)

    def answer(self, question: str, supporting: Sequence[str]) -> Any:
        return asyncio.run(self.answerer.answer(question, supporting))


class RayAnswers:
    """`answer(question, supporting)` on a pool of Ray workers (see the module doc).

    Args:
        make: Builds worker i's answerer (picklable: a module-level function or a partial).
        workers: Ray actors to start; at most this many questions are answered at once.
    """

    def __init__(self, make: Callable[[int], Any], workers: int) -> None:
        self.workers = workers
        self._ray = import_ray()
        self._started = not self._ray.is_initialized()
        if self._started:
            local = {} if os.environ.get("RAY_ADDRESS") else {"num_cpus": workers}
            self._ray.init(
                **local, include_dashboard=False, configure_logging=False, log_to_driver=False
            )
        actor = self._ray.remote(num_cpus=1)(_AnswerWorker)
        self._actors = [actor.remote(make, index) for index in range(workers)]
        self._idle: asyncio.Queue[Any] | None = None

    async def answer(self, question: str, supporting: Sequence[str] = ()) -> Any:
        """The answer of an idle worker; its errors (ModelError, ArkError) are raised here."""
        if self._idle is None:
            self._idle = asyncio.Queue()
            for actor in self._actors:
                self._idle.put_nowait(actor)
        actor = await self._idle.get()
        try:
            return await actor.answer.remote(question, list(supporting))
        except self._ray.exceptions.RayTaskError as error:
            cause = getattr(error, "cause", None)
            if isinstance(cause, Exception):
                raise cause from None
            raise
        finally:
            self._idle.put_nowait(actor)

    def close(self) -> None:
        """Stop the workers (and the local Ray instance this pool started)."""
        for actor in self._actors:
            self._ray.kill(actor)
        if self._started:
            self._ray.shutdown()
