"""A run-wide circuit breaker: stop a batch whose model endpoint is down, silent or too slow."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.models.base import EndpointUnreachableError, ModelError

UNREACHABLE = EndpointUnreachableError.__name__
"""`FailureRecord.error_type` of a question whose agents could not reach the endpoint, or got
no answer from it in time (EndpointTimeoutError shares EndpointUnreachableError's kind)."""


class EndpointDownError(ModelError):
    """The batch stopped: several questions in a row got no answer from the model endpoint."""


@dataclass
class CircuitBreaker:
    """Counts consecutive questions that failed because nothing answered at the endpoint.

    Refused connections, an endpoint that accepts connections and never answers (its
    liveness check fails) and calls that time out on every try all count; a question that
    reached the model (answered or failed otherwise) resets the count. At `threshold` the
    breaker opens and the runner starts no further question. With the adapter's defaults a
    silent endpoint stops a batch within about request_timeout_s + 5 s (questions run
    concurrently; later calls fail after the 5 s liveness check alone).

    Attributes:
        threshold: Consecutive unreachable questions that open the breaker.
        consecutive: The current run of unreachable questions.
        last_error: The last unreachable question's error (it names the URL).
    """

    threshold: int = 3
    consecutive: int = 0
    last_error: str = ""
    _tripped: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if self.threshold < 1:
            raise ValueError(f"circuit breaker threshold must be >= 1, got {self.threshold}")

    @property
    def tripped(self) -> bool:
        """True once `threshold` questions in a row could not reach the endpoint."""
        return self._tripped

    def record(self, error_type: str | None, error: str = "") -> None:
        """Count one finished question (`error_type` None when it succeeded)."""
        if error_type == UNREACHABLE:
            self.consecutive += 1
            self.last_error = error
            self._tripped = self._tripped or self.consecutive >= self.threshold
        else:
            self.consecutive = 0

    def error(self, out: Path, *, remaining: int) -> EndpointDownError:
        """The one message the batch stops with: what happened, what is kept, what to do."""
        return EndpointDownError(
            f"stopped the batch: {self.consecutive} questions in a row got no answer from the "
            f"model endpoint ({self.last_error}). Nothing is lost: finished questions are "
            f"saved in {out} and the {remaining} not yet answered stay pending; once the "
            "server answers, rerun the same command with --resume."
        )
