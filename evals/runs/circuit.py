"""`ark eval`'s use of the circuit breaker (agent/models/circuit.py): its stop message."""

from __future__ import annotations

from pathlib import Path

from agent.models.base import EndpointUnreachableError, ModelError
from agent.models.circuit import CircuitBreaker

__all__ = ["UNREACHABLE", "CircuitBreaker", "EndpointDownError", "stop_error"]

UNREACHABLE = EndpointUnreachableError.__name__
"""`FailureRecord.error_type` of a question whose agents could not reach the endpoint, or got
no answer from it in time (EndpointTimeoutError shares EndpointUnreachableError's kind)."""


class EndpointDownError(ModelError):
    """The batch stopped: several questions in a row got no answer from the model endpoint."""


def stop_error(breaker: CircuitBreaker, out: Path, *, remaining: int) -> EndpointDownError:
    """The one message a tripped batch stops with: what happened, what is kept, what to do."""
    return EndpointDownError(
        f"stopped the batch: {breaker.consecutive} questions in a row got no answer from the "
        f"model endpoint ({breaker.last_error}). Nothing is lost: finished questions are "
        f"saved in {out} and the {remaining} not yet answered stay pending; once the "
        "server answers, rerun the same command with --resume."
    )
