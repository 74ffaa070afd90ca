"""Long work off the server's event loop: a coroutine in its own thread, cancellable, streaming."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from cli.serve.state import NotFoundError, ServeError

T = TypeVar("T")
Emit = Callable[[Any], None]
_END = object()


class RunCancelledError(ServeError):
    """The run was cancelled (the client left, or asked to stop) before it finished."""

    status = 409


class ThreadedRun(Generic[T]):
    """Run `work(emit)` in a worker thread with its own event loop.

    What `work` emits (from any thread) is queued on the server's loop and read with
    `events()`; `cancel()` cancels the coroutine at its next await, from any thread, and
    `on_cancel` then runs in the worker thread (to record the cancelled run). The server's
    loop never runs the work, so a slow model cannot stall other requests.
    """

    def __init__(
        self,
        work: Callable[[Emit], Coroutine[Any, Any, T]],
        *,
        on_cancel: Callable[[], None] | None = None,
    ) -> None:
        self.id = uuid.uuid4().hex[:12]
        self._server = asyncio.get_running_loop()
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[T] | None = None
        self._on_cancel = on_cancel
        self.cancelled = False
        self.future: asyncio.Future[T] = self._server.run_in_executor(None, self._run, work)
        self.future.add_done_callback(_seen)  # a client that left never reads the outcome

    def _emit(self, item: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the server shut down: nobody reads them
            self._server.call_soon_threadsafe(self._queue.put_nowait, item)

    def _run(self, work: Callable[[Emit], Coroutine[Any, Any, T]]) -> T:
        loop = asyncio.new_event_loop()
        try:
            with self._lock:
                self._loop = loop
                self._task = loop.create_task(work(self._emit))
                if self.cancelled:
                    self._task.cancel()
            try:
                return loop.run_until_complete(self._task)
            except asyncio.CancelledError:
                if self._on_cancel is not None:
                    self._on_cancel()
                raise RunCancelledError(
                    "the run was cancelled before it finished (its record says so)"
                ) from None
        finally:
            self._emit(_END)
            loop.close()

    def cancel(self) -> None:
        """Stop the work at its next await (a no-op once it has finished); never blocks."""
        with self._lock:
            self.cancelled = True
            loop, task = self._loop, self._task
        if loop is None or task is None:
            return  # not started yet: `_run` cancels it as it starts
        with contextlib.suppress(RuntimeError):  # the loop has closed: the work finished
            loop.call_soon_threadsafe(task.cancel)

    async def events(self) -> AsyncIterator[Any]:
        """What the work emitted, in order, until it ends."""
        while (item := await self._queue.get()) is not _END:
            yield item


def _seen(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


@dataclass
class RunRegistry:
    """The runs in flight, by id, so that a client (or the page's Stop) can cancel one."""

    runs: dict[str, ThreadedRun[Any]] = field(default_factory=dict)

    def add(self, run: ThreadedRun[Any]) -> None:
        """Track `run` until it finishes."""
        self.runs[run.id] = run
        run.future.add_done_callback(lambda _: self.runs.pop(run.id, None))

    def cancel(self, run_id: str) -> None:
        """Cancel the run `run_id`.

        Raises:
            NotFoundError: no such run in flight (it finished, or never was).
        """
        run = self.runs.get(run_id)
        if run is None:
            raise NotFoundError(f"no run {run_id!r} in flight (finished runs are in --runs)")
        run.cancel()
