"""Build an Answerer for a snapshot from a SargConfig: the one place the stages are wired."""

from __future__ import annotations

from typing import TYPE_CHECKING

from answer.config import SargConfig
from answer.direction import DirectionClassifier, FixedDirection, LLMDirection, RuleDirection
from answer.doc_graph import DocumentSource, is_document_snapshot
from answer.encoding import Embedder, KeyBertPhrases, KeyphraseExtractor, load_encoder
from answer.errors import AnswerConfigError
from answer.kg_graph import KGSource
from answer.pipeline import Answerer, EvidenceSource
from answer.query_graph import Direction
from answer.reader import Reader, load_reader
from answer.retrieve import (
    AgentRetriever,
    BM25Retriever,
    DenseRetriever,
    GoldPassages,
    Retriever,
)

if TYPE_CHECKING:
    from agent.ark import ArkAgent
    from agent.models.base import Model
    from graphs.snapshot import Snapshot


def make_answerer(
    snapshot: Snapshot,
    config: SargConfig,
    *,
    model: Model | None = None,
    encoder: Embedder | None = None,
    keyphrases: KeyphraseExtractor | None = None,
    agent: ArkAgent | None = None,
    reader: Reader | None = None,
) -> Answerer:
    """Wire an Answerer over `snapshot` (a document snapshot or a typed KG).

    Args:
        snapshot: The opened snapshot.
        config: The SARG settings.
        model: The generator; None answers offline (read from the best chain).
        encoder: Sentence encoder for Eq. 3 and Eq. 5 (default: all-MiniLM-L6-v2).
        keyphrases: Key-phrase extractor (default: KeyBERT over `encoder`).
        agent: ARK's agents, needed for `retriever="agents"`.
        reader: The offline reader (default without a model: spaCy's en_core_web_sm and
            `encoder`); unused with a model.

    Raises:
        AnswerConfigError: `agents` retrieval without an agent, or `llm` direction offline.
        EncoderSetupError, RetrievalError: as the stages raise them; ExtractorDownError
            offline without spaCy's weights.
    """
    encoder = encoder if encoder is not None else load_encoder()
    if keyphrases is None:
        keyphrases = KeyBertPhrases(encoder, max_words=config.keyphrase_max_words)
    documents = is_document_snapshot(snapshot)
    source: EvidenceSource
    if documents:
        source = DocumentSource(snapshot)
    else:
        source = KGSource(snapshot, max_neighbors=config.max_neighbors)
    node_types = [snapshot.type_code("passage")] if documents else None
    return Answerer(
        config,
        retriever=_retriever(snapshot, config, encoder, node_types, agent),
        gold=GoldPassages(snapshot, node_types=node_types),
        source=source,
        encoder=encoder,
        keyphrases=keyphrases,
        direction=_direction(config, model),
        model=model,
        reader=reader if reader is not None or model is not None else load_reader(encoder),
    )


def _retriever(
    snapshot: Snapshot,
    config: SargConfig,
    encoder: Embedder,
    node_types: list[int] | None,
    agent: ArkAgent | None,
) -> Retriever:
    if config.retriever == "dense":
        return DenseRetriever(snapshot, encoder, node_types=node_types)
    if config.retriever == "agents":
        if agent is None:
            raise AnswerConfigError("--retriever agents needs ARK's agents: pass agent=")
        return AgentRetriever(snapshot, agent)
    return BM25Retriever(snapshot, node_types=node_types)


def _direction(config: SargConfig, model: Model | None) -> DirectionClassifier:
    if config.direction == "rule":
        return RuleDirection()
    if config.direction == "llm":
        if model is None:
            raise AnswerConfigError(
                "--direction llm asks the model, but no model is given; pass -m MODEL "
                "or use --direction rule"
            )
        return LLMDirection(model)
    return FixedDirection(Direction(config.direction))
