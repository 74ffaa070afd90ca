"""GenerationBatcher: concurrent agents' greedy turns gathered into shared decoding batches."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from agent.models.greedy_batch import GreedyBatch, GreedyRequest

logger = logging.getLogger(__name__)

RECENT_BATCHES = 4
"""A new batch waits for as many agents as the largest of the last few batches had."""


@dataclass
class _Pending:
    request: GreedyRequest
    future: Future[list[int]] = field(default_factory=Future)


class GenerationBatcher:
    """Runs the greedy turns that concurrent agents ask for together, in one worker thread.

    The n agents of a question call the model at nearly the same time (each after its own
    tool calls). The first request waits up to `gather_s` for as many requests as the largest
    recent batch had (the agents still running; a new question's agents start together while
    the last batch may have held only the old question's last agent), then they decode as one
    batch (`GreedyBatch`); requests arriving meanwhile form the next batch. Each request gets
    its tokens as soon as its own row finishes. Any number of agents may submit: at most
    `max_rows` share a batch. Identical requests (greedy agents whose conversations are still
    the same) share one row.

    A batch that fails fails every request in it with the error (after `on_error` turns it
    into the error callers should see); later batches still run, and nothing waits forever.
    """

    def __init__(
        self,
        decoder: GreedyBatch,
        lock: threading.Lock,
        *,
        max_rows: int = 8,
        gather_s: float = 0.2,
        on_error: Callable[[Exception], Exception] | None = None,
    ) -> None:
        """Batch requests for `decoder`, holding `lock` (the model's) while one runs.

        Args:
            decoder: Decodes a batch.
            lock: Taken around every batch, so other users of the model wait for it.
            max_rows: Most requests decoded together.
            gather_s: Longest wait for the expected companions of a first request.
            on_error: Maps a batch's exception to the one its requests fail with.
        """
        if max_rows < 1:
            raise ValueError(f"max_rows must be >= 1, got {max_rows}")
        self.decoder = decoder
        self.max_rows = max_rows
        self.gather_s = gather_s
        self.batch_sizes: list[int] = []
        self._lock = lock
        self._on_error = on_error
        self._queue: list[_Pending] = []
        self._wake = threading.Condition()
        self._worker: threading.Thread | None = None

    def submit(self, ids: list[int], max_new_tokens: int) -> Future[list[int]]:
        """Queue a greedy continuation of `ids`; the future resolves to the generated ids."""
        if not ids:
            raise ValueError("cannot continue an empty prompt")
        pending = _Pending(GreedyRequest(list(ids), max_new_tokens))
        with self._wake:
            self._queue.append(pending)
            self._wake.notify_all()
            if self._worker is None:
                self._worker = threading.Thread(
                    target=self._work, name="ark-hf-batcher", daemon=True
                )
                self._worker.start()
        return pending.future

    def _work(self) -> None:
        """Serve batches until the queue is empty; on an unexpected exit, fail what is left."""
        try:
            while batch := self._next_batch():
                self._run(batch)
        except BaseException:
            with self._wake:
                self._worker = None
                leftover, self._queue = self._queue, []
            for pending in leftover:
                if pending.future.set_running_or_notify_cancel():
                    pending.future.set_exception(RuntimeError("the generation worker stopped"))
            raise

    def _next_batch(self) -> list[_Pending]:
        with self._wake:
            if not self._queue:
                self._worker = None
                return []
            deadline = time.monotonic() + self.gather_s
            expected = max(self.batch_sizes[-RECENT_BATCHES:], default=self.max_rows)
            while len(self._queue) < min(expected, self.max_rows):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._wake.wait(remaining)
            batch, self._queue = self._queue[: self.max_rows], self._queue[self.max_rows :]
        live = [pending for pending in batch if pending.future.set_running_or_notify_cancel()]
        return live or self._next_batch()

    def _run(self, batch: list[_Pending]) -> None:
        """Decode a batch; identical requests (agents with the same conversation) share a row."""
        rows: dict[tuple[tuple[int, ...], int], list[_Pending]] = {}
        for pending in batch:
            key = (tuple(pending.request.ids), pending.request.max_new_tokens)
            rows.setdefault(key, []).append(pending)
        groups = list(rows.values())

        def done(row: int, generated: list[int]) -> None:
            for pending in groups[row]:
                pending.future.set_result(list(generated))

        self.batch_sizes.append(len(batch))
        try:
            with self._lock:
                self.decoder.run([group[0].request for group in groups], done)
        except Exception as exc:  # every waiting agent gets the batch's error
            error = self._on_error(exc) if self._on_error else exc
            logger.debug("generation batch of %d failed: %s", len(batch), exc)
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(error)
        finally:
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(
                        RuntimeError("generation stopped before this request finished")
                    )
