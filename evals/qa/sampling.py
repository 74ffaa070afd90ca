"""QuestionSample: a seeded random subset of a question set (a count, or a fraction of it).

The paper runs its toolset ablations on "a random 10% subset of the test split" and distils
from "up to 6,000 training queries" subsampled at random; both are a `QuestionSample` with a
seed, so a run can be repeated exactly. The subset keeps the question set's own order, and
with one seed a smaller sample is nested in a larger one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from graphs.errors import ArkError

ItemT = TypeVar("ItemT")


class SampleError(ArkError, ValueError):
    """A sample was asked for with values that cannot work (the message says which)."""


@dataclass(frozen=True, kw_only=True)
class QuestionSample:
    """Which random subset of the questions to take.

    Attributes:
        size: Take this many questions at random (all of them when there are fewer).
        fraction: Take this share of the questions at random, rounded to the nearest count
            and at least one question; exclusive with `size`.
        seed: Seed of the random choice; the same seed picks the same questions.
    """

    size: int | None = None
    fraction: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.size is not None and self.fraction is not None:
            raise SampleError(
                "give either a sample size (--sample N) or a fraction (--sample-fraction F), "
                "not both"
            )
        if self.size is not None and (isinstance(self.size, bool) or self.size < 1):
            raise SampleError(f"sample size must be a positive integer, got {self.size!r}")
        if self.fraction is not None and not (
            math.isfinite(self.fraction) and 0.0 < self.fraction <= 1.0
        ):
            raise SampleError(
                f"sample fraction must be in (0, 1], e.g. 0.1 for 10%, got {self.fraction!r}"
            )

    @property
    def active(self) -> bool:
        """Whether a subset is taken at all (else every question is kept)."""
        return self.size is not None or self.fraction is not None

    def count(self, total: int) -> int:
        """How many of `total` questions the sample keeps."""
        if self.size is not None:
            return min(self.size, total)
        if self.fraction is not None:
            return min(total, max(1, round(total * self.fraction))) if total else 0
        return total

    def apply(self, items: Sequence[ItemT]) -> list[ItemT]:
        """The sampled items, in their original order (all of them when inactive).

        The choice is a prefix of one seeded permutation, so with the same seed a smaller
        sample is a subset of a larger one (600 of the 6,000 distillation questions).
        """
        if not self.active:
            return list(items)
        order = list(range(len(items)))
        random.Random(self.seed).shuffle(order)
        return [items[index] for index in sorted(order[: self.count(len(items))])]

    def to_record(self) -> dict[str, Any] | None:
        """The sample as stored in config.json (None when every question is kept)."""
        if not self.active:
            return None
        return {"size": self.size, "fraction": self.fraction, "seed": self.seed}

    def describe(self, total: int) -> str:
        """A one-line account, e.g. "a random 10% (28 of 280 questions, seed 0)"."""
        share = f"{self.fraction:.0%}" if self.fraction is not None else f"{self.size}"
        return f"a random {share} ({self.count(total)} of {total} questions, seed {self.seed})"
