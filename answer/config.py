"""SargConfig: one frozen object with the SARG paper's settings for answering a question."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from answer.errors import AnswerConfigError

DirectionMode = Literal["rule", "learned", "llm", "forward", "backward", "bidirectional"]
"""How the traversal direction is chosen: a classifier (`rule`, `learned`, `llm`) or forced."""

Method = Literal["sarg", "direct", "rag", "cot-rag", "flat-chains"]
"""What produces the answer: SARG, or a baseline / ablation under the same retrieval."""

Retriever = Literal["bm25", "agents", "dense"]
"""Where the passages / nodes come from."""

Schema = Literal["reasoning", "entity"]
"""What per-question extraction asks for: SARG's ⟨cause, relation, effect⟩ or generic SPO."""

Extraction = Literal["auto", "per-query", "snapshot"]
"""Where the query graph's triples come from (auto: per-query with a model on documents)."""

Structured = Literal["auto", "schema", "prompt", "tools"]
"""How per-query extraction asks for its JSON (agent/models/structured.py, or a tool call)."""

Retrieval = Literal["search", "gold"]
"""Search the whole snapshot, or only the passages each QA row names (the paper's protocol)."""

METHODS: tuple[str, ...] = ("sarg", "direct", "rag", "cot-rag", "flat-chains")
DIRECTIONS: tuple[str, ...] = ("rule", "learned", "llm", "forward", "backward", "bidirectional")
RETRIEVERS: tuple[str, ...] = ("bm25", "agents", "dense")
RETRIEVALS: tuple[str, ...] = ("search", "gold")
SCHEMAS: tuple[str, ...] = ("reasoning", "entity")
EXTRACTIONS: tuple[str, ...] = ("auto", "per-query", "snapshot")
STRUCTURED: tuple[str, ...] = ("auto", "schema", "prompt", "tools")


@dataclass(frozen=True, kw_only=True)
class SargConfig:
    """Everything that shapes one answer (the CLI maps its flags onto this and nothing else).

    Attributes:
        method: `sarg`, or a baseline under the same retrieval: `direct` (no context), `rag`
            (the top passages as flat context), `cot-rag` (flat context, step-by-step), or the
            ablation `flat-chains` (the chains' nodes and sources as flat context, no chains).
        retriever: `bm25` (the snapshot's index), `agents` (ARK's agents' fused ranking) or
            `dense` (the snapshot's embeddings; needs `ark graph embed`).
        retrieval: `search` (the retriever over the whole snapshot) or `gold`: only the
            passages / documents the QA row names under `supporting` (or `context`), all of
            them, ranked by BM25 (how the paper evaluates; `ark eval answers` only).
        passages: Passages / nodes retrieved per question (paper: 10–50 documents).
        extraction: Where G_D's triples come from: `per-query` (the model extracts them from
            the retrieved passages for each question, as the paper does; cached), `snapshot`
            (the facts `ark graph extract` stored, or a typed KG's own edges), or `auto`
            (per-query when a model is given and the snapshot holds documents).
        schema: What per-query extraction asks for: `reasoning` (the paper's ⟨cause,
            relation, effect⟩ schema, App. C) or `entity` (generic subject–predicate–object,
            the paper's App. E.1 ablation).
        structured: How per-query extraction asks for JSON: `auto` (the schema as
            `response_format`, enforced while decoding, where the endpoint takes it; else the
            prompt), `schema`, `prompt` (lenient repair only) or `tools` (a tool call).
        tau: Cosine threshold for entry nodes, Eq. 3 (the paper gives no value).
        keyphrases: Key phrases KeyBERT keeps from the question (K_q, Sec. 3.3).
        keyphrase_max_words: Longest key phrase, in words.
        direction: `rule` (the default classifier), `learned` (a trained logistic head over
            the encoder, `direction_head`), `llm` (the model classifies), or a forced
            `forward` / `backward` / `bidirectional` (the paper's blind-traversal ablation).
        direction_head: The head `learned` reads (default: the one shipped in answer/).
        beam_width: Chains kept at each depth, β (paper: 3).
        shared_beam: All entry nodes share one beam of β chains; by default each entry node
            keeps its own (the paper does not say which).
        top_k: Chains given to the generator, K (paper: 3).
        max_depth: Hops after the start node before a chain stops (a cap on "until dead ends").
        max_neighbors: Neighbours added per retrieved node of a typed KG (the most
            query-relevant by BM25 first); 0 keeps only edges among the retrieved nodes.
        evidence_chars: Characters of each source text shown in a prompt.
        max_tokens: Cap on the tokens the generator writes.
        temperature: Generator sampling temperature (0: greedy, comparable runs).
    """

    method: Method = "sarg"
    retriever: Retriever = "bm25"
    retrieval: Retrieval = "search"
    extraction: Extraction = "auto"
    schema: Schema = "reasoning"
    structured: Structured = "auto"
    passages: int = 10
    tau: float = 0.5
    keyphrases: int = 5
    keyphrase_max_words: int = 3
    direction: DirectionMode = "rule"
    direction_head: str | None = None
    beam_width: int = 3
    shared_beam: bool = False
    top_k: int = 3
    max_depth: int = 4
    max_neighbors: int = 30
    evidence_chars: int = 600
    max_tokens: int = 256
    temperature: float = 0.0

    def __post_init__(self) -> None:
        _choice("method", self.method, METHODS)
        _choice("retriever", self.retriever, RETRIEVERS)
        _choice("retrieval", self.retrieval, RETRIEVALS)
        _choice("extraction", self.extraction, EXTRACTIONS)
        _choice("schema", self.schema, SCHEMAS)
        _choice("structured", self.structured, STRUCTURED)
        _choice("direction", self.direction, DIRECTIONS)
        for name in ("passages", "keyphrases", "keyphrase_max_words", "beam_width", "top_k"):
            if getattr(self, name) < 1:
                raise AnswerConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.max_depth < 1:
            raise AnswerConfigError(f"max_depth must be >= 1, got {self.max_depth}")
        if self.max_neighbors < 0:
            raise AnswerConfigError(f"max_neighbors must be >= 0, got {self.max_neighbors}")
        if not -1.0 <= self.tau <= 1.0:
            raise AnswerConfigError(f"tau is a cosine threshold in [-1, 1], got {self.tau}")

    def to_record(self) -> dict[str, Any]:
        """Plain-dict form stored in run directories and --json output."""
        return asdict(self)


def _choice(name: str, value: str, options: tuple[str, ...]) -> None:
    if value not in options:
        raise AnswerConfigError(f"unknown {name} {value!r}; choose one of: {', '.join(options)}")
