"""Invented names that read like real ones (coined words, people, places), unique per graph."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from graphs.errors import GraphError
from graphs.synth import vocab

NameMaker = Callable[[np.random.Generator, int], list[str]]
IndexedNameMaker = Callable[[np.random.Generator, np.ndarray], list[str]]


def pick(rng: np.random.Generator, options: Sequence[str], n: int) -> list[str]:
    """Draw `n` items of `options` uniformly, with replacement."""
    return [options[i] for i in rng.integers(0, len(options), size=n)]


def coined(
    rng: np.random.Generator, n: int, *, min_syllables: int = 2, max_syllables: int = 3
) -> list[str]:
    """Invent pronounceable capitalised words such as ``Korvane`` or ``Draxil``."""
    count = rng.integers(min_syllables, max_syllables + 1, size=n)
    onset = rng.integers(0, len(vocab.ONSETS), size=(n, max_syllables))
    vowel = rng.integers(0, len(vocab.VOWELS), size=(n, max_syllables))
    coda = rng.integers(0, len(vocab.CODAS), size=n)
    with_coda = rng.random(n) < 0.6
    out = []
    for i in range(n):
        body = "".join(
            vocab.ONSETS[onset[i, j]] + vocab.VOWELS[vowel[i, j]] for j in range(count[i])
        )
        out.append((body + vocab.CODAS[coda[i]] if with_coda[i] else body).capitalize())
    return out


def surnames(rng: np.random.Generator, n: int) -> list[str]:
    """Invent surnames from a root and an ending (``Brookford``), some of them coined words."""
    roots = pick(rng, vocab.SURNAME_ROOTS, n)
    ends = pick(rng, vocab.SURNAME_ENDS, n)
    built = [root + end for root, end in zip(roots, ends, strict=True)]
    coined_words = coined(rng, n)
    use_coined = rng.random(n) < 0.3
    return [c if flag else b for b, c, flag in zip(built, coined_words, use_coined, strict=True)]


def person_names(rng: np.random.Generator, n: int) -> list[str]:
    """Invent people's names, some with a middle initial (``Elena K. Brookford``)."""
    given = pick(rng, vocab.GIVEN_NAMES, n)
    family = surnames(rng, n)
    initials = rng.integers(0, 26, size=n)
    middle = rng.random(n) < 0.4
    return [
        f"{g} {chr(65 + int(m))}. {f}" if use else f"{g} {f}"
        for g, f, m, use in zip(given, family, initials, middle, strict=True)
    ]


def place_names(rng: np.random.Generator, n: int) -> list[str]:
    """Invent place names (``Northbrook``, ``Silverhaven``, or a coined word)."""
    heads = pick(rng, vocab.PLACE_HEADS, n)
    tails = pick(rng, vocab.PLACE_TAILS, n)
    coined_words = coined(rng, n)
    use_coined = rng.random(n) < 0.5
    return [
        c if flag else h + t
        for h, t, c, flag in zip(heads, tails, coined_words, use_coined, strict=True)
    ]


def unique_names(
    rng: np.random.Generator, n: int, make: NameMaker, taken: set[str], *, max_rounds: int = 60
) -> list[str]:
    """Draw `n` names with `make`, redrawing every clash until all are unique.

    See :func:`unique_names_for`; here a name does not depend on which node it is for.
    """
    return unique_names_for(
        rng, n, lambda r, which: make(r, which.size), taken, max_rounds=max_rounds
    )


def unique_names_for(
    rng: np.random.Generator,
    n: int,
    make: IndexedNameMaker,
    taken: set[str],
    *,
    max_rounds: int = 60,
) -> list[str]:
    """Draw a name for each of `n` nodes with `make`, redrawing clashes until all are unique.

    Names are compared case-insensitively with each other and with `taken`, which is
    updated in place so that several node types of one graph never share a name.

    Args:
        rng: The graph's random generator.
        n: How many names.
        make: Draws names for the given node positions (0..n-1), one per position.
        taken: Lower-cased names already in use; the new names are added.
        max_rounds: Redraw rounds before giving up.

    Returns:
        The names, in position order.

    Raises:
        GraphError: The name space is too small for `n` unique names.
    """
    pending = np.arange(n)
    names = make(rng, pending)
    for _ in range(max_rounds):
        clashes = []
        for i in pending.tolist():
            key = names[i].lower()
            if key in taken:
                clashes.append(i)
            else:
                taken.add(key)
        if not clashes:
            return names
        pending = np.asarray(clashes, dtype=np.int64)
        for i, name in zip(clashes, make(rng, pending), strict=True):
            names[i] = name
    raise GraphError(
        f"could not invent {n} unique names in {max_rounds} rounds; use a smaller --nodes value"
    )
