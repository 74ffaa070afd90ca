"""Background jobs of `ark serve` (adding and removing documents), with their progress.

Jobs run on a small thread pool, never on the server's event loop; jobs on one snapshot take
its writer lock in turn (and the snapshot's lock file, so `ark graph extract --update` in
another process is refused rather than raced).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from graphs.errors import ArkError

logger = logging.getLogger(__name__)

JobState = Literal["queued", "running", "done", "failed"]
MAX_KEPT = 200
"""Finished jobs kept for GET /api/jobs (the oldest are forgotten first)."""


@dataclass
class Job:
    """One document job and where it stands.

    Attributes:
        id: The job id (GET /api/jobs/{id}).
        kind: What it does, e.g. "add" or "delete".
        snapshot: The snapshot label it writes.
        state: queued, running, done or failed.
        done: Passages extracted so far.
        total: Passages to extract (0 until known).
        result: What the job reports when done (the update summary).
        error: Why it failed (a message saying what to do).
    """

    kind: str
    snapshot: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    state: JobState = "queued"
    done: int = 0
    total: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None
    created: float = field(default_factory=time.time)
    finished: float | None = None

    def progress(self, done: int, total: int) -> None:
        """The extraction's progress callback."""
        self.done, self.total = done, total

    def view(self) -> dict[str, Any]:
        """The job as the API shows it."""
        return {
            "id": self.id, "kind": self.kind, "snapshot": self.snapshot, "state": self.state,
            "done": self.done, "total": self.total, "result": self.result, "error": self.error,
        }  # fmt: skip


class JobManager:
    """Runs jobs on worker threads and keeps their state for polling."""

    def __init__(self, workers: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ark-serve-job")
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def submit(self, job: Job, work: Callable[[Job], dict[str, Any]]) -> Job:
        """Queue `work(job)`; its return value becomes the job's result."""
        with self._lock:
            self._jobs[job.id] = job
            self._forget_old()
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[Job], dict[str, Any]]) -> None:
        job.state = "running"
        try:
            job.result = work(job)
            job.state = "done"
        except ArkError as error:
            job.error, job.state = str(error), "failed"
        except Exception as error:  # a bug: logged with its traceback, the server goes on
            logger.exception("job %s (%s on %s) failed", job.id, job.kind, job.snapshot)
            job.error = f"internal error: {type(error).__name__}: {error} (see the server log)"
            job.state = "failed"
        finally:
            job.finished = time.time()

    def _forget_old(self) -> None:
        finished = [job for job in self._jobs.values() if job.finished is not None]
        for job in sorted(finished, key=lambda j: j.created)[: max(0, len(finished) - MAX_KEPT)]:
            del self._jobs[job.id]

    def get(self, job_id: str) -> Job | None:
        """The job `job_id`, or None."""
        with self._lock:
            return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        """Every job kept, oldest first."""
        with self._lock:
            return sorted(self._jobs.values(), key=lambda job: job.created)

    def shutdown(self) -> None:
        """Finish running jobs and stop taking new ones."""
        self._pool.shutdown(wait=True, cancel_futures=True)
