"""The answerer: retrieve, build the query graph, search chains, prompt, answer (SARG Sec. 3)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.models.base import Message, Model
from agent.reply_limit import bounded_reply
from answer.beam import BeamResult, beam_search
from answer.config import SargConfig
from answer.direction import DirectionClassifier, LLMDirection
from answer.encoding import Embedder, KeyphraseExtractor
from answer.entry import EntryMatch, cosine_to, entry_nodes, named_entries
from answer.prompt import Evidence, PromptBuilder, chain_evidence, clip, parse_answer
from answer.query_graph import Direction, Passage, QueryGraph
from answer.reader import EvidenceText, Reader, Reading
from answer.records import chain_record, entry_record
from answer.result import AnswerResult
from answer.retrieve import GoldPassages, Retriever

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

NO_CHAIN = "no-chain"
"""SARG found no chain, so the prompt (and the offline reader) took the flat top passages."""
CHAIN_WEIGHT = 1.0
"""Reader weight of a chain's source text, on top of the chain's score (Eq. 5)."""
END_WEIGHT = 0.5
"""Further reader weight of the node a chain arrives at, where it is evidence (a KG's node)."""
RANK_WEIGHT = 0.5
"""Reader weight of the top retrieved passage; the k-th weighs RANK_WEIGHT / sqrt(k)."""


class EvidenceSource(Protocol):
    """Turns retrieved internal ids into a query graph (Eq. 2) and into flat passages."""

    snapshot: Snapshot
    """The snapshot the query graph's node keys (external ids) belong to."""

    async def query_graph(self, retrieved: Sequence[int], question: str) -> QueryGraph:
        """G_D over the retrieved evidence."""
        ...

    def passages(self, retrieved: Sequence[int]) -> list[Passage]:
        """The retrieved items as flat context, in retrieval order."""
        ...


@dataclass(frozen=True)
class ChainSearch:
    """What SARG's construction stage produced for one question."""

    graph: QueryGraph
    keyphrases: list[str]
    entries: list[EntryMatch]
    entry_fallback: bool
    direction: Direction
    beam: BeamResult
    direction_llm_s: float
    extract_s: float = 0.0
    """Seconds the model spent extracting the query graph (per-query extraction only)."""


class Answerer:
    """Answers questions with SARG or a baseline, with or without a model."""

    def __init__(
        self,
        config: SargConfig,
        *,
        retriever: Retriever,
        gold: GoldPassages,
        source: EvidenceSource,
        encoder: Embedder,
        keyphrases: KeyphraseExtractor,
        direction: DirectionClassifier,
        model: Model | None = None,
        reader: Reader | None = None,
    ) -> None:
        """Wire the stages (each built once by the caller and passed in).

        Without a model the answer is read offline by `reader`; without either it is "".
        """
        self.config = config
        self.retriever = retriever
        self.gold = gold
        self.source = source
        self.encoder = encoder
        self.keyphrases = keyphrases
        self.direction = direction
        self.model = model
        self.reader = reader
        self.prompts = PromptBuilder()

    async def answer(self, question: str, supporting: Sequence[str] = ()) -> AnswerResult:
        """Answer one question; the result carries its chains, citations and timings.

        Args:
            question: The question.
            supporting: Ids of the passages / documents to answer from under
                `retrieval="gold"` (a QA row's `supporting`); ignored otherwise.

        Raises:
            RetrievalError: gold retrieval with no (or unknown) supporting ids.
        """
        started = time.perf_counter()
        if self.config.retrieval == "gold":
            retrieved = self.gold.retrieve(question, supporting)
        else:
            retrieved = await self.retriever.retrieve(question, self.config.passages)
        retrieve_s = time.perf_counter() - started
        passages = self.source.passages(retrieved)
        constructed = time.perf_counter()
        search = None
        if self.config.method in ("sarg", "flat-chains"):
            search = await self.search(question, retrieved)
        messages, evidence, fallback = self._prompt(question, passages, search)
        model_s = search.direction_llm_s + search.extract_s if search else 0.0
        construct_s = time.perf_counter() - constructed - model_s
        reading, read_s = None, 0.0
        if self.model is None and self.reader is not None and self.config.method != "direct":
            began = time.perf_counter()
            reading = self.reader.read(question, self._reader_evidence(passages, search))
            read_s = time.perf_counter() - began
        answer, reply = (reading.answer if reading else ""), ""
        generated = time.perf_counter()
        if self.model is not None:
            turn = await self.model.generate(messages, [], temperature=self.config.temperature)
            answer = parse_answer(turn.message.get("content") or "")  # its last line: whole
            reply = bounded_reply(turn.message)[0].get("content") or ""  # what is recorded
        timings = {
            "retrieve_s": retrieve_s,
            "construct_s": construct_s,
            "direction_llm_s": search.direction_llm_s if search else 0.0,
            "extract_s": search.extract_s if search else 0.0,
            "generate_s": time.perf_counter() - generated if self.model is not None else 0.0,
            "read_s": read_s,
        }
        result = self._result(
            question, answer, reply, passages, search, evidence, timings, messages
        )
        return result.model_copy(update={"fallback": fallback, "reading": _reading(reading)})

    async def search(self, question: str, retrieved: Sequence[int]) -> ChainSearch:
        """SARG steps 1–3: the query graph, entry nodes (Eq. 3), direction, beam search (Eq. 5)."""
        config = self.config
        began = time.perf_counter()
        graph = await self.source.query_graph(retrieved, question)
        extract_s = time.perf_counter() - began if graph.built else 0.0
        labels = [graph.labels[node] for node in graph.nodes]
        node_vectors = self.encoder.encode(labels)
        query_vector = self.encoder.encode([question])[0]
        scores = cosine_to(query_vector, node_vectors).tolist()
        similarity = dict(zip(graph.nodes, scores, strict=True))
        phrases = self.keyphrases.extract(question, config.keyphrases) if graph.nodes else []
        phrase_vectors = self.encoder.encode(phrases)
        entries = entry_nodes(phrases, phrase_vectors, graph.nodes, node_vectors, tau=config.tau)
        if not entries:
            entries = named_entries(self.source.snapshot, question, graph.nodes)
        fallback = not entries and bool(phrases) and bool(graph.nodes)
        if fallback:
            entries = entry_nodes(phrases, phrase_vectors, graph.nodes, node_vectors, tau=-2.0)[:1]
        classified = time.perf_counter()
        direction = await self.direction.classify(question)
        llm_s = time.perf_counter() - classified if isinstance(self.direction, LLMDirection) else 0
        beam = beam_search(
            graph,
            [entry.node for entry in entries],
            similarity,
            direction=direction,
            beam_width=config.beam_width,
            top_k=config.top_k,
            max_depth=config.max_depth,
            per_entry=not config.shared_beam,
        )
        return ChainSearch(graph, phrases, entries, fallback, direction, beam, llm_s, extract_s)

    def _prompt(
        self, question: str, passages: list[Passage], search: ChainSearch | None
    ) -> tuple[list[Message], list[Evidence], str | None]:
        """The messages for the method, the evidence they show, and the fallback taken, if any.

        SARG with no chain (no entry node, or a query graph with no edge) shows the model the
        top passages as flat context; the returned fallback says so, and it is recorded.
        """
        chars = self.config.evidence_chars
        flat = [Evidence(p.id, clip(p.text, chars)) for p in passages]
        method = self.config.method
        if method == "direct":
            return self.prompts.direct(question), [], None
        if method in ("rag", "cot-rag"):
            return self.prompts.flat(question, flat, step_by_step=method == "cot-rag"), flat, None
        if search is None or not search.beam.chains:
            return self.prompts.flat(question, flat), flat, NO_CHAIN
        chains = search.beam.chains
        graph = search.graph
        evidence = chain_evidence(chains, graph, chars=chars)
        if method == "flat-chains":
            return self.prompts.flat(question, evidence), evidence, None
        serialized = [chain_record(chain, graph).text for chain in chains]
        return self.prompts.sarg(question, serialized, evidence), evidence, None

    def _reader_evidence(
        self, passages: list[Passage], search: ChainSearch | None
    ) -> list[EvidenceText]:
        """What the offline reader reads, chain sources first.

        The chains' sources come first (weighted by the chain's score), then the retrieved
        passages in retrieval order (weighted by rank). A typed KG's node also offers its own
        name, with its type, as a candidate answer.
        """
        weights: dict[str, float] = {}
        if search is not None and self.config.method in ("sarg", "flat-chains"):
            for chain in search.beam.chains:  # where a chain arrives is what it argues for
                if chain.end in search.graph.sources:  # a KG's node (documents cite passages)
                    weights.setdefault(chain.end, CHAIN_WEIGHT + END_WEIGHT + chain.score)
            for chain in search.beam.chains:
                for source in chain.sources():
                    if source in search.graph.sources:
                        weights.setdefault(source, CHAIN_WEIGHT + chain.score)
        for rank, passage in enumerate(passages):
            weights.setdefault(passage.id, RANK_WEIGHT / math.sqrt(1 + rank))
        known = {passage.id: passage for passage in passages}  # fetched once, by `answer`
        missing = [key for key in weights if key not in known]
        if missing:
            internal = self.source.snapshot.find_internal_ids(missing)
            fetched = self.source.passages([int(n) for n in internal if n >= 0])
            known |= {passage.id: passage for passage in fetched}
        return [
            EvidenceText(
                item.id,
                item.text,
                weights[item.id],
                name=item.name if item.answerable else "",
                kind=item.kind,
            )
            for item in (known[key] for key in weights if key in known)
        ]

    def _result(
        self,
        question: str,
        answer: str,
        reply: str,
        passages: list[Passage],
        search: ChainSearch | None,
        evidence: list[Evidence],
        timings: dict[str, float],
        messages: list[Message],
    ) -> AnswerResult:
        result = AnswerResult(
            question=question,
            answer=answer,
            method=self.config.method,
            model=self.model.name if self.model is not None else "offline",
            retrieved=[p.id for p in passages],
            citations=[item.id for item in evidence],
            messages=messages if self.model is not None else [],
            reply=reply,
            timings=timings,
        )
        if search is None:
            return result
        graph = search.graph
        return result.model_copy(
            update={
                "keyphrases": search.keyphrases,
                "entries": [entry_record(entry, graph) for entry in search.entries],
                "entry_fallback": search.entry_fallback,
                "direction": search.direction.value,
                "chains": [chain_record(chain, graph) for chain in search.beam.chains],
                "graph_nodes": len(graph.nodes),
                "graph_triples": len(graph.triples),
                "expanded": search.beam.expanded,
                "extraction": graph.built or None,
            }
        )


def _reading(reading: Reading | None) -> dict[str, object] | None:
    """The offline reader's answer and why, as stored in the result."""
    if reading is None:
        return None
    return {
        "asked": reading.asked.kind.value,
        "labels": sorted(reading.asked.labels),
        "noun": reading.asked.noun,
        "options": list(reading.asked.options),
        "source": reading.source,
        "score": reading.score,
        "candidates": [list(pair) for pair in reading.candidates],
    }
