"""Turning templates and clause lists into sentences that read like a person wrote them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

_SLOT = re.compile(r"\{(\w+)\}")


def render(template: str, slots: Mapping[str, str]) -> str:
    """Fill a template's ``{slot}`` markers and tidy spacing and the first letter.

    Args:
        template: Text with ``{name}`` markers (no other braces).
        slots: Values for the markers; unused values are ignored.

    Returns:
        The sentence, starting with a capital letter.

    Raises:
        KeyError: A marker has no value (a bug in a domain's templates).
    """
    text = _SLOT.sub(lambda match: slots[match.group(1)], template)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.?!;:])", r"\1", text)
    return text[:1].upper() + text[1:]


def join_details(details: Sequence[str], rng: np.random.Generator) -> str:
    """Join clauses as a person lists them: "a, b and c" (sometimes with an Oxford comma)."""
    if len(details) == 1:
        return details[0]
    oxford = "," if rng.random() < 0.3 and len(details) > 2 else ""
    return ", ".join(details[:-1]) + f"{oxford} and {details[-1]}"


def choose(rng: np.random.Generator, options: Sequence[str], n: int) -> list[str]:
    """Draw `n` of `options` uniformly with replacement (for vectorised text rendering)."""
    return [options[i] for i in rng.integers(0, len(options), size=n)]


def series(items: Sequence[str]) -> str:
    """Join a short list for node text: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def article(word: str) -> str:
    """`word` with "a" or "an" in front, by its first letter."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word
