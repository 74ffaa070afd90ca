"""Reranker inputs: a candidate node serialised as GRASP does, and the yes/no chat around it.

The document (GRASP Appendix 8.6) is plain key/value lines: the node's type, its text fields
each cut to `max_field_tokens` whitespace tokens, then its one-hop neighbours grouped by
relation, both edge directions unioned, at most `max_neighbors_per_relation` names each::

    type: paper
    name: Multispectral scanning laser ophthalmoscopy ...
    text: We present ...
    [author_of] Jane Doe; Wei Zhang
    [cites] Longitudinal study of retinal degeneration ...

The prompts are files in prompts/ (rerank_system.md.j2, rerank_user.md.j2), rendered with
StrictUndefined; the same messages feed zero-shot scoring, training and trained scoring.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jinja2 import Environment

from prompts.loader import environment, read_prompt

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

SYSTEM_TEMPLATE = "rerank_system.md.j2"
USER_TEMPLATE = "rerank_user.md.j2"


@dataclass(frozen=True, kw_only=True)
class DocConfig:
    """How a candidate is serialised (GRASP Appendix 7 / 8.6 defaults).

    Attributes:
        max_field_tokens: Whitespace tokens kept per text field (GRASP: 300 for Amazon and
            Prime, 512 for MAG, in model tokens).
        max_neighbors_per_relation: Neighbour names listed per relation.
    """

    max_field_tokens: int = 300
    max_neighbors_per_relation: int = 10

    def __post_init__(self) -> None:
        if self.max_field_tokens < 1 or self.max_neighbors_per_relation < 0:
            raise ValueError(
                "max_field_tokens must be >= 1 and max_neighbors_per_relation >= 0, got "
                f"{self.max_field_tokens} and {self.max_neighbors_per_relation}"
            )


def _cut(text: str, limit: int) -> str:
    words = " ".join(text.split()).split(" ")
    return " ".join(words[:limit]) + (" ..." if len(words) > limit else "")


def serialize_node(snapshot: Snapshot, node: int, config: DocConfig = DocConfig()) -> str:
    """The document of internal node `node` (see the module docstring)."""
    lines = [
        f"type: {snapshot.type_name(node)}",
        f"name: {_cut(snapshot.name(node), config.max_field_tokens)}",
    ]
    text = snapshot.text(node)
    if text and text != snapshot.name(node):
        lines.append(f"text: {_cut(text, config.max_field_tokens)}")
    if config.max_neighbors_per_relation:
        neighborhood = snapshot.neighbors(node)
        grouped: dict[int, dict[str, None]] = {}
        for other, relation in zip(
            neighborhood.nodes.tolist(), neighborhood.relations.tolist(), strict=True
        ):
            names = grouped.setdefault(int(relation), {})
            if len(names) < config.max_neighbors_per_relation:
                names.setdefault(snapshot.name(int(other)), None)
        for relation in sorted(grouped):
            names_text = "; ".join(grouped[relation])
            lines.append(f"[{snapshot.relation_names[relation]}] {names_text}")
    return "\n".join(lines)


@dataclass(frozen=True)
class RerankPrompt:
    """The yes/no chat for one graph: system instruction + (query, document) user turn."""

    system: str
    user_template: str

    @classmethod
    def for_snapshot(cls, snapshot: Snapshot) -> RerankPrompt:
        """Render the system prompt with the graph's name and candidate types."""
        manifest = snapshot.manifest
        noun = " or ".join(manifest.candidate_types) if manifest.candidate_types else "node"
        return cls.from_names(manifest.name, noun)

    @classmethod
    def from_names(cls, graph_name: str, candidate_noun: str) -> RerankPrompt:
        """Render the system prompt for a graph known by name only (tests, JSONL pools)."""
        env = _environment()
        system = env.from_string(_read(SYSTEM_TEMPLATE)).render(
            graph_name=graph_name, candidate_noun=candidate_noun
        )
        return cls(system.strip(), _read(USER_TEMPLATE))

    def messages(self, query: str, document: str) -> list[dict[str, str]]:
        """The chat for one (query, candidate) pair, OpenAI format."""
        user = _environment().from_string(self.user_template).render(query=query, document=document)
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": user.strip()},
        ]

    @property
    def fingerprint(self) -> str:
        """A short hash of the prompt text (part of every cache key)."""
        return hashlib.sha256((self.system + "\0" + self.user_template).encode()).hexdigest()[:16]


def _environment() -> Environment:
    return environment()


def _read(name: str) -> str:
    return read_prompt(name)
