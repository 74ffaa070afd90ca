"""Build progress: each phase reports rows done of a total; lines with rate and ETA for people."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


class Progress(Protocol):
    """Called as a phase advances: ``progress("csr", 1_000_000, 40_000_000, "edges")``.

    ``total`` is None when it is not known yet; the last call of a phase has done == total.
    """

    def __call__(self, phase: str, done: int, total: int | None, unit: str) -> None:
        """Report that ``done`` of ``total`` ``unit`` of ``phase`` are done."""


def no_progress(phase: str, done: int, total: int | None, unit: str) -> None:
    """A Progress that reports nothing."""


class RateLines:
    """A Progress printing plain lines with rate and ETA, at most one per phase every interval.

    Args:
        emit: Where each line goes (``print`` in the CLI, a logger elsewhere).
        interval_s: Seconds between lines of one phase (its first and last always print).
        clock: Monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(
        self,
        emit: Callable[[str], None],
        *,
        interval_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit = emit
        self._interval = interval_s
        self._clock = clock
        self._started: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._finished: set[str] = set()

    def __call__(self, phase: str, done: int, total: int | None, unit: str) -> None:
        """Print a line for this call if it is a phase's first or last, or one is due."""
        now = self._clock()
        first = phase not in self._started
        started = self._started.setdefault(phase, now)
        finished = total is not None and done >= total
        if phase in self._finished:
            return
        if not (first or finished or now - self._last.get(phase, started) >= self._interval):
            return
        if finished:
            self._finished.add(phase)
        self._last[phase] = now
        self._emit(line(phase, done, total, unit, now - started))


def line(phase: str, done: int, total: int | None, unit: str, elapsed: float) -> str:
    """``csr: 12,000,000 of 40,000,000 edges, 1.2M edges/s, 23 s left`` (or ``... done in``)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    head = f"{phase}: {done:,}" + (f" of {total:,}" if total is not None else "") + f" {unit}"
    if total is not None and done >= total:
        return f"{head}, done in {elapsed:.1f} s" + (f" ({_rate(rate)} {unit}/s)" if rate else "")
    if not rate:
        return f"{head} ..."
    left = f", {(total - done) / rate:.0f} s left" if total is not None else ""
    return f"{head}, {_rate(rate)} {unit}/s{left}"


def _rate(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.1f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.0f}K"
    return f"{rate:.0f}"
