"""RetryPolicy backoff and Retry-After parsing."""

from __future__ import annotations

import random

import pytest

from agent.models.openai.retry import (
    RetryPolicy,
    is_context_overflow,
    is_retryable_status,
    parse_retry_after,
)

NOW = 1767225600.0  # 2026-01-01T00:00:00Z


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "4"}, 4.0),
        ({"retry-after": " 2.5 "}, 2.5),
        ({"RETRY-AFTER": "-3"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "Thu, 01 Jan 2026 00:01:00 GMT"}, 60.0),
        ({"retry-after": "Wed, 31 Dec 2025 23:00:00 GMT"}, 0.0),
        ({"retry-after": "tomorrow-ish"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "inf"}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == (
        None if expected is None else pytest.approx(expected)
    )


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (502, True),
        (503, True),
        (504, True),
    ],
)
def test_retryable_statuses(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


def test_backoff_is_full_jitter_under_a_growing_capped_ceiling() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    rng = random.Random(0)
    for attempt, ceiling in enumerate([1, 2, 4, 8, 8, 8]):
        draws = [policy.delay_s(attempt, rng) for _ in range(200)]
        assert all(0.0 <= draw <= ceiling for draw in draws)
        assert max(draws) > 0.8 * ceiling  # spread over the whole range, not a fixed value
        assert min(draws) < 0.2 * ceiling


def test_backoff_survives_huge_attempt_numbers() -> None:
    assert 0.0 <= RetryPolicy().delay_s(10_000, random.Random(1)) <= 30.0


def test_retry_after_wins_and_is_capped() -> None:
    policy = RetryPolicy(max_retry_after_s=10.0)
    rng = random.Random(0)
    assert policy.delay_s(0, rng, retry_after_s=3.0) == 3.0
    assert policy.delay_s(5, rng, retry_after_s=3.0) == 3.0
    assert policy.delay_s(0, rng, retry_after_s=99.0) == 10.0
    assert policy.delay_s(0, rng, retry_after_s=-1.0) == 0.0


@pytest.mark.parametrize("kwargs", [{"max_retries": -1}, {"base_delay_s": -0.1}])
def test_policy_rejects_negative_settings(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=">= 0"):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "message", "overflow"),
    [
        (400, "This model's maximum context length is 2048 tokens. However, you requested", True),
        (400, "the request exceeds the available context size, try increasing it", True),
        (400, "Trying to keep the first 3000 tokens when context the overflows", True),
        (500, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096", True),
        (400, "invalid tool call: 'tool_call_id' is required", False),
        (500, "Conversation roles must alternate user/assistant", False),
        (200, "maximum context length", False),
    ],
)
def test_context_overflow_is_told_from_other_rejections(
    status: int, message: str, overflow: bool
) -> None:
    assert is_context_overflow(status, message) is overflow
