"""Retry policy for model calls: which failures retry, backoff with full jitter, Retry-After."""

from __future__ import annotations

import email.utils
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass

from graphs.errors import ConfigError

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Client-side statuses worth retrying (timeout, conflict, rate limit); every 5xx retries too."""


# Words servers use when they reject a request as invalid (llama.cpp, vLLM, pydantic, jinja):
# the same request would fail the same way, so it is not retried even under a 5xx status.
# Only phrases that say the *request* is wrong: a busy server's one-off "unexpected error" or
# "missing response from worker" must still be retried.
_VALIDATION = re.compile(
    r"validation error|invalid (?:request|message|role|tool|value|type|json)|field required|"
    r"is required|must (?:be|have|contain)|input should|extra (?:inputs|fields) (?:are|not) "
    r"permitted|not supported|unsupported|chat template|jinja",
    re.IGNORECASE,
)
_TRANSIENT_STATUSES = frozenset({502, 503, 504})

# How servers say the prompt (plus max_tokens) is longer than the model's context: OpenAI, vLLM
# and llama-cpp-python ("maximum context length is 2048 tokens"), llama.cpp's server ("exceeds
# the available context size"), TGI ("must be <= 4096 ... tokens"), LM Studio ("context
# overflows"), others ("context window", "too many tokens", "prompt is too long").
_CONTEXT_OVERFLOW = re.compile(
    r"context[ _](?:length|size|window)|context (?:the )?overflows|too many tokens|"
    r"prompt is too long|input is too long|tokens? \+ `?max_new_tokens`? must be",
    re.IGNORECASE,
)


def is_retryable_status(status: int) -> bool:
    """Return True for HTTP statuses that a later identical request may get past."""
    return status in RETRYABLE_STATUSES or status >= 500


def is_validation_rejection(status: int, message: str) -> bool:
    """True for a 5xx whose message says the request itself is invalid (retrying is futile).

    llama.cpp's server, for one, answers HTTP 500 when a message breaks its chat template's
    rules. Gateway statuses (502, 503, 504) always count as transient.
    """
    return status >= 500 and status not in _TRANSIENT_STATUSES and bool(_VALIDATION.search(message))


def is_context_overflow(status: int, message: str) -> bool:
    """True for a rejection that says the prompt does not fit the model's context window."""
    return 400 <= status < 600 and bool(_CONTEXT_OVERFLOW.search(message))


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How often and how long to wait before retrying a failed model call.

    Backoff is exponential with full jitter (a uniform draw in [0, min(cap, base * 2**attempt)]),
    so n agents hitting the same rate limit spread out instead of retrying in lockstep. A
    server-sent Retry-After wins over the backoff, capped at `max_retry_after_s` so a
    misconfigured server cannot park a run for hours.

    Attributes:
        max_retries: Retries after the first attempt (so at most max_retries + 1 calls).
        max_connect_retries: Retries when nothing answers at the URL (connection refused,
            DNS or TLS failure): a down server stays down, so a batch learns it quickly.
        base_delay_s: Backoff ceiling of the first retry.
        max_delay_s: Cap on the backoff ceiling.
        max_retry_after_s: Cap on a server-requested wait.
    """

    max_retries: int = 6
    max_connect_retries: int = 2
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def __post_init__(self) -> None:
        if min(self.max_retries, self.max_connect_retries) < 0:
            raise ConfigError(
                f"max_retries and max_connect_retries must be >= 0, got {self.max_retries}, "
                f"{self.max_connect_retries}"
            )
        if self.base_delay_s < 0 or self.max_delay_s < 0 or self.max_retry_after_s < 0:
            raise ConfigError("retry delays must be >= 0")

    @classmethod
    def for_max_retries(cls, max_retries: int) -> RetryPolicy:
        """The default policy with `max_retries`, `max_connect_retries` capped at it."""
        return cls(
            max_retries=max_retries,
            max_connect_retries=min(cls().max_connect_retries, max_retries),
        )

    def delay_s(
        self, attempt: int, rng: random.Random, *, retry_after_s: float | None = None
    ) -> float:
        """Seconds to wait after failed attempt number `attempt` (0-based).

        Args:
            attempt: Index of the attempt that just failed.
            rng: Source of jitter (seed it for reproducible tests).
            retry_after_s: Server-requested wait, if the failure carried one.

        Returns:
            The wait in seconds, never negative.
        """
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.max_retry_after_s)
        ceiling = min(self.max_delay_s, self.base_delay_s * 2.0 ** min(attempt, 62))
        return rng.uniform(0.0, ceiling)


def parse_retry_after(headers: Mapping[str, str], *, now: float) -> float | None:
    """Read a server-requested wait from response headers.

    Understands `retry-after-ms` (milliseconds, sent by OpenAI) and `retry-after` as either
    delta-seconds or an HTTP date (RFC 9110). Header names are matched case-insensitively.

    Args:
        headers: Response headers.
        now: Current POSIX time, used to turn an HTTP date into a delay.

    Returns:
        The wait in seconds (>= 0), or None when no usable header is present.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _as_float(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(millis / 1000.0, 0.0)
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _as_float(raw)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - now, 0.0)


def _as_float(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None
