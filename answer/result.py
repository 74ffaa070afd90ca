"""AnswerResult: one answered question with its chains, citations, prompt and timings."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

ANSWER_VERSION = 1


class ChainRecord(BaseModel):
    """One reasoning chain as stored: its nodes, hops, Eq. 5 score and serialisation.

    Attributes:
        nodes: Node keys v1..vL (external ids).
        labels: Their names, aligned with `nodes`.
        relations: Relation of each hop, with `<-` prefixed when walked tail to head.
        score: S_L of Eq. 5.
        sources: Evidence ids behind the hops (the chain's citations).
        text: The chain as the generator saw it.
    """

    nodes: list[str]
    labels: list[str]
    relations: list[str]
    score: float
    sources: list[str]
    text: str


class EntryRecord(BaseModel):
    """An entry node of Eq. 3: the node, its best cosine and the key phrase that gave it."""

    node: str
    label: str
    similarity: float
    phrase: str


class AnswerResult(BaseModel):
    """Everything needed to audit an answer (and to distil from it later).

    Attributes:
        question: The question.
        answer: The short answer (parsed from the model's reply, or read offline).
        method: `sarg` or the baseline that answered.
        model: The model spec, or `offline`.
        retrieved: External ids of the retrieved passages / nodes, best first.
        keyphrases: K_q.
        entries: The entry nodes S (Eq. 3).
        entry_fallback: No node passed τ, so the best-matching node was used as the entry.
        direction: The traversal direction used.
        chains: The top-K chains, best first.
        citations: Ids of the passages / nodes the answer rests on (the chains' sources, or
            the flat context for baselines).
        messages: The prompt sent to the model (empty offline).
        reply: The model's raw reply text ("" offline).
        graph_nodes: |V| of the query graph.
        graph_triples: |E| of the query graph.
        expanded: Nodes expanded by the beam search.
        timings: Seconds per stage: retrieve_s, construct_s (graph, entries, direction by rule,
            search, prompt; no LLM), extract_s (the model extracting the query graph, per-query
            extraction only), direction_llm_s, generate_s (the model), read_s (the
            offline reader).
        fallback: `no-chain` when SARG found no chain and the top passages stood in for the
            chains (in the prompt and for the offline reader); None otherwise.
        extraction: Per-question extraction only (`--extraction per-query`): the schema,
            the model, passages read, cache hits, extracted, failed (with each `failures`
            reason counted) and repaired replies, and how the JSON was asked (`asked_as`).
        reading: Offline only: what the reader took the question to ask for (`asked`, entity
            `labels`, `noun`, choice `options`), the evidence it read the answer from
            (`source`), its `score` and the best `candidates`.
    """

    version: int = ANSWER_VERSION
    question: str
    answer: str
    method: str
    model: str
    retrieved: list[str] = Field(default_factory=list)
    keyphrases: list[str] = Field(default_factory=list)
    entries: list[EntryRecord] = Field(default_factory=list)
    entry_fallback: bool = False
    direction: str | None = None
    chains: list[ChainRecord] = Field(default_factory=list)
    citations: list[str] = Field(default_factory=list)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    reply: str = ""
    graph_nodes: int = 0
    graph_triples: int = 0
    expanded: int = 0
    timings: dict[str, float] = Field(default_factory=dict)
    fallback: str | None = None
    extraction: dict[str, Any] | None = None
    reading: dict[str, Any] | None = None
