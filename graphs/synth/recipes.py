"""Declarative question recipes a domain hands to the question generator, one per pattern."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from graphs.synth.model import SynthGraph

Direction = Literal["out", "in", "both"]
"""``out``: follow edges from source to target; ``in``: against them; ``both``: either way."""


@dataclass(frozen=True)
class Step:
    """One relation traversal: from the current nodes along `relation` to nodes of `target_type`."""

    relation: str
    direction: Direction
    target_type: str

    def reverse(self, source_type: str) -> Step:
        """The same edges walked back, landing on `source_type`."""
        back: Direction = {"out": "in", "in": "out", "both": "both"}[self.direction]  # type: ignore[assignment]
        return Step(self.relation, back, source_type)


@dataclass(frozen=True)
class Trait:
    """A textual property: exactly the nodes in `mask` have `keyword` among their text tokens.

    Attributes:
        keyword: The token (lower case) that the node text holds iff the node has the trait.
        mask: bool[N] nodes with the trait.
        adj: Phrasings before a plural noun ("waterproof" products).
        rel: Phrasings after a plural noun (products "that are waterproof").
        pred: Phrasings after "are" (which ones are "waterproof").
    """

    keyword: str
    mask: np.ndarray
    adj: tuple[str, ...]
    rel: tuple[str, ...]
    pred: tuple[str, ...]


@dataclass(frozen=True)
class Facet:
    """One attribute a description question may mention.

    Attributes:
        codes: int[N] attribute value of every node (-1: the node has none).
        clauses: Per value code, alternative phrasings (empty: this value is never mentioned).
    """

    codes: np.ndarray
    clauses: tuple[tuple[str, ...], ...]

    @classmethod
    def spread(
        cls, n: int, nodes: np.ndarray, codes: np.ndarray, clauses: Sequence[tuple[str, ...]]
    ) -> Facet:
        """A facet over `n` nodes where only `nodes` (with `codes`) have a value."""
        full = np.full(n, -1, dtype=np.int64)
        full[nodes] = codes
        return cls(full, tuple(clauses))


@dataclass(frozen=True)
class TextOnly:
    """Describe one node of `node_type` by a few facets until no other node of its type fits.

    Templates hold ``{head}`` (the head facet's phrase, e.g. "a daypack") and ``{details}``.
    """

    node_type: str
    head: Facet
    facets: tuple[Facet, ...]
    templates: tuple[str, ...]
    min_facets: int = 2
    max_facets: int = 5


@dataclass(frozen=True)
class OneHop:
    """Gold = neighbours of a named anchor via `step` that also have one of `traits`.

    Templates hold ``{anchor}`` and one of ``{adj}``, ``{rel}``, ``{pred}`` (see :class:`Trait`).
    """

    anchor_type: str
    step: Step
    traits: tuple[str, ...]
    templates: tuple[str, ...]
    max_answers: int = 20


@dataclass(frozen=True)
class TwoHop:
    """Gold = nodes two steps from a named anchor, optionally also linked to a named filter node.

    `constraint` is walked from a gold node to the filter node (e.g. ``has_topic`` to a field).
    Templates hold ``{anchor}`` and, with a constraint, ``{filter}``.
    """

    anchor_type: str
    first: Step
    second: Step
    templates: tuple[str, ...]
    constraint: Step | None = None
    max_answers: int = 20


@dataclass(frozen=True)
class Multi:
    """Gold = every neighbour of a named anchor via `step` (and linked to the filter node).

    Templates hold ``{anchor}`` and, with a constraint, ``{filter}``.
    """

    anchor_type: str
    step: Step
    templates: tuple[str, ...]
    constraint: Step | None = None
    min_answers: int = 3
    max_answers: int = 20


@dataclass(frozen=True)
class Domain:
    """A generated graph together with the recipes its questions are drawn from."""

    name: str
    graph: SynthGraph
    traits: dict[str, Trait]
    text_only: tuple[TextOnly, ...]
    one_hop: tuple[OneHop, ...]
    two_hop: tuple[TwoHop, ...]
    multi: tuple[Multi, ...]
