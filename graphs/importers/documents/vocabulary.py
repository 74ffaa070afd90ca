"""Relation vocabulary: canonical labels, the frequent ones as edge types, the tail as one type."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from graphs.errors import GraphImportError
from graphs.importers.documents.schema import STRUCTURAL

"""Edge types the document graph itself uses; a relation label never takes one of them."""
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def canonical_label(label: str) -> str:
    """Lower-case snake_case: `Founded By` -> `founded_by`, `is a` -> `is_a`."""
    text = _NOT_WORD.sub("_", label.casefold()).strip("_")
    return f"{text}_rel" if text in STRUCTURAL else text


@dataclass(frozen=True, kw_only=True)
class VocabularyConfig:
    """How relation labels become edge types.

    Attributes:
        max_types: The most frequent labels that become edge types of their own
            (--relation-types). 24 keeps the `neighbors` tool's relation enum and the agent's
            schema prompt short (about as many relations as STaRK's graphs, the largest
            schemas ARK's agents are run on) while covering the head of a Zipf-shaped label
            distribution.
        min_count: A label needs at least this many edges to become a type (--relation-min);
            a label seen once or twice is noise or too rare to be worth a tool argument.
        generic: The edge type every other label maps to; the label stays in the fact's text.
    """

    max_types: int = 24
    min_count: int = 3
    generic: str = "related_to"

    def __post_init__(self) -> None:
        if self.max_types < 0 or self.min_count < 1:
            raise GraphImportError("--relation-types must be >= 0 and --relation-min >= 1")


@dataclass(frozen=True)
class RelationVocabulary:
    """Canonical label -> edge type, with the label counts it was built from."""

    types: dict[str, str]
    counts: dict[str, int]
    generic: str

    def edge_type(self, label: str) -> str:
        """The edge type of canonical `label` (the generic type for the long tail)."""
        return self.types.get(label, self.generic)

    @property
    def generic_labels(self) -> int:
        """How many distinct labels fell to the generic type."""
        return len(self.counts) - len(self.types)


def build_vocabulary(
    labels: Iterable[str], config: VocabularyConfig | None = None
) -> RelationVocabulary:
    """Count canonical labels and keep the `max_types` most frequent (>= `min_count`) as types."""
    config = config or VocabularyConfig()
    counts = Counter(labels)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    head = [label for label, count in ranked[: config.max_types] if count >= config.min_count]
    return RelationVocabulary(
        types={label: label for label in head},
        counts=dict(ranked),
        generic=config.generic,
    )
