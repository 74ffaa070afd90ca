"""Reranker inputs: a candidate node serialised as GRASP does, and the yes/no chat around it.

The document (GRASP Appendix 8.6) is plain key/value lines: the node's type, its text fields
each cut to `max_field_tokens` tokens of the reranker's tokenizer (whitespace words when no
tokenizer is at hand, e.g. for a served model), then its one-hop neighbours (the open
neighbourhood: never the node itself) grouped by relation, both edge directions unioned, at
most `max_neighbors_per_relation` names each::

    type: paper
    name: Multispectral scanning laser ophthalmoscopy ...
    text: We present ...
    [author_of] Jane Doe; Wei Zhang
    [cites] Longitudinal study of retinal degeneration ...

The prompts are files in prompts/ (rerank_system.md.j2, rerank_user.md.j2), rendered with
StrictUndefined; the same messages feed zero-shot scoring, training and trained scoring. A chat
longer than the model's limit is fitted by cutting the *document* from its end
(:func:`fit_document`), never the instruction or the question; GRASP's limits per dataset
(Appendix 7: 2,048 tokens for Prime, 1,024 otherwise; 512 tokens per field for MAG, 300
otherwise) come from :func:`grasp_limits`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jinja2 import Environment

from prompts.loader import environment, read_prompt
from rank.rerank.models import chat_text
from tools.neighbor_set import open_neighborhood

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

SYSTEM_TEMPLATE = "rerank_system.md.j2"
USER_TEMPLATE = "rerank_user.md.j2"


@dataclass(frozen=True, kw_only=True)
class DocConfig:
    """How a candidate is serialised (GRASP Appendix 7 / 8.6 defaults).

    Attributes:
        max_field_tokens: Tokens kept per text field; None (the default) takes GRASP's limit
            for the graph (300 for Amazon and Prime, 512 for MAG: :func:`grasp_limits`).
            Counted by the reranker's tokenizer when one is given to `serialize_node`, else
            in whitespace words.
        max_neighbors_per_relation: Neighbour names listed per relation.
    """

    max_field_tokens: int | None = None
    max_neighbors_per_relation: int = 10

    def __post_init__(self) -> None:
        too_few = self.max_field_tokens is not None and self.max_field_tokens < 1
        if too_few or self.max_neighbors_per_relation < 0:
            raise ValueError(
                "max_field_tokens must be >= 1 and max_neighbors_per_relation >= 0, got "
                f"{self.max_field_tokens} and {self.max_neighbors_per_relation}"
            )


@dataclass(frozen=True, kw_only=True)
class RerankLimits:
    """GRASP's per-dataset reranker limits (Appendix 7).

    Attributes:
        max_length: Tokens per chat (system, question and document together).
        max_field_tokens: Tokens per text field of the document.
    """

    max_length: int = 1024
    max_field_tokens: int = 300


def grasp_limits(graph_name: str) -> RerankLimits:
    """The limits GRASP uses for a graph: Prime 2,048 / 300, MAG 1,024 / 512, else 1,024 / 300.

    The dataset is recognised from the graph's name (``prime``, ``mag``, as `ark graph
    import-stark` names them); any other graph gets the Amazon / default limits.
    """
    words = set(graph_name.lower().replace("-", "_").split("_"))
    if "prime" in words or "primekg" in words:
        return RerankLimits(max_length=2048, max_field_tokens=300)
    if "mag" in words:
        return RerankLimits(max_length=1024, max_field_tokens=512)
    return RerankLimits()


def cut_text(text: str, limit: int, tokenizer: Any = None) -> str:
    """`text` cut to `limit` tokens of `tokenizer` (whitespace words without one), + " ..."."""
    if tokenizer is None:
        words = " ".join(text.split()).split(" ")
        return " ".join(words[:limit]) + (" ..." if len(words) > limit else "")
    ids = tokenizer.encode(text, add_special_tokens=False)
    if len(ids) <= limit:
        return text
    return tokenizer.decode(ids[:limit]).rstrip() + " ..."


def serialize_node(
    snapshot: Snapshot, node: int, config: DocConfig = DocConfig(), tokenizer: Any = None
) -> str:
    """The document of internal node `node` (see the module docstring).

    Args:
        snapshot: The graph.
        node: Internal node id.
        config: Field and neighbour limits.
        tokenizer: The reranker's tokenizer: fields are cut in its tokens (GRASP counts
            tokens); None cuts by whitespace words.
    """
    limit = config.max_field_tokens or grasp_limits(snapshot.manifest.name).max_field_tokens
    lines = [
        f"type: {snapshot.type_name(node)}",
        f"name: {cut_text(snapshot.name(node), limit, tokenizer)}",
    ]
    text = snapshot.text(node)
    if text and text != snapshot.name(node):
        lines.append(f"text: {cut_text(text, limit, tokenizer)}")
    if config.max_neighbors_per_relation:
        neighborhood = open_neighborhood(snapshot.neighbors(node), node)
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


def fit_document(
    tokenizer: Any, prompt: RerankPrompt, query: str, document: str, max_length: int
) -> str:
    """`document` cut from its end so that the whole chat fits `max_length` tokens.

    The instruction and the question are never cut (a left-truncated chat loses the question;
    GRASP cuts the candidate). When they alone exceed the limit the document is emptied and
    the caller's own truncation decides.

    Args:
        tokenizer: The reranker's tokenizer (its chat template is applied).
        prompt: The yes/no chat.
        query: The question.
        document: The serialised candidate.
        max_length: Tokens per chat.
    """

    def length(text: str) -> int:
        chat = chat_text(tokenizer, prompt.messages(query, text))
        return len(tokenizer.encode(chat, add_special_tokens=False))

    total = length(document)
    if total <= max_length:
        return document
    ids = tokenizer.encode(document, add_special_tokens=False)
    keep = len(ids) - (total - max_length)
    while keep > 0:
        fitted = tokenizer.decode(ids[:keep]).rstrip() + " ..."
        over = length(fitted) - max_length
        if over <= 0:
            return fitted
        keep -= max(over, 1)  # tokens can merge at the cut; shrink by what is still over
    return ""


def _environment() -> Environment:
    return environment()


def _read(name: str) -> str:
    return read_prompt(name)
