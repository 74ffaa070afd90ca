"""The one circuit breaker: stop a batch whose model endpoint is down, silent or too slow.

Every batch that calls a served model counts with it: `ark eval` (questions, evals/runs/runner.py)
and `ark graph extract --extractor llm` (passages, agent/extract/llm.py); the served reranker
stops at its first failure, a breaker of threshold 1 (rank/rerank/served.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphs.errors import ConfigError


@dataclass
class CircuitBreaker:
    """Counts consecutive items (questions, passages) that failed because nothing answered.

    Refused connections, an endpoint that accepts connections and never answers (its
    liveness check fails) and calls that time out on every try all count
    (`EndpointUnreachableError` and its `EndpointTimeoutError`); an item that reached the
    model (answered or failed otherwise) resets the count. At `threshold` the breaker opens
    and the batch starts no further item. With the adapter's defaults a silent endpoint stops
    a batch within about request_timeout_s + 5 s (items run concurrently; later calls fail
    after the 5 s liveness check alone).

    Attributes:
        threshold: Consecutive unreachable items that open the breaker.
        consecutive: The current run of unreachable items.
        last_error: The last unreachable item's error (it names the URL).
    """

    threshold: int = 3
    consecutive: int = 0
    last_error: str = ""
    _tripped: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if self.threshold < 1:
            raise ConfigError(f"circuit breaker threshold must be >= 1, got {self.threshold}")

    @property
    def tripped(self) -> bool:
        """True once `threshold` items in a row could not reach the endpoint."""
        return self._tripped

    def record(self, unreachable: bool, error: str = "") -> None:
        """Count one finished item: whether the endpoint failed to answer it, and why."""
        if unreachable:
            self.consecutive += 1
            self.last_error = error
            self._tripped = self._tripped or self.consecutive >= self.threshold
        else:
            self.consecutive = 0
