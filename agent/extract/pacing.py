"""A requests-per-minute pacer: spaces request starts evenly across concurrent tasks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class RequestPacer:
    """Lets at most `per_minute` requests start per minute, one every 60/per_minute seconds.

    Async-safe: concurrent callers reserve consecutive slots under a lock, so a burst is
    spread out instead of all starting at once and earning 429s.
    """

    def __init__(
        self,
        per_minute: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """Pace to `per_minute` (None or <= 0: no limit)."""
        self.interval = 60.0 / per_minute if per_minute and per_minute > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def wait(self) -> None:
        """Return when the caller may start its request."""
        if not self.interval:
            return
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:  # each batch may run its own loop
            self._lock, self._loop = asyncio.Lock(), loop
        async with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await self._sleep(start - now)
