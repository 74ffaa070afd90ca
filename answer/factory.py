"""Build an Answerer for a snapshot from a SargConfig: the one place the stages are wired."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.extract.llm import LLMExtractConfig, LLMExtractor
from agent.extract.schemas import schema_named
from agent.models.structured import StructuredMode
from answer.config import SargConfig
from answer.direction import DirectionClassifier, FixedDirection, LLMDirection, RuleDirection
from answer.direction_head import SHIPPED_HEAD, DirectionHead, LearnedDirection
from answer.doc_graph import DocumentSource, is_document_snapshot
from answer.encoding import Embedder, KeyBertPhrases, KeyphraseExtractor, load_encoder
from answer.errors import AnswerConfigError
from answer.kg_graph import KGSource
from answer.per_query import PerQuerySource
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
from graphs.importers.documents.cache import ExtractionCache, default_cache_path

if TYPE_CHECKING:
    from agent.ark import ArkAgent
    from agent.models.base import Model
    from graphs.manifest import Manifest
    from graphs.snapshot import Snapshot

EXTRACTION_MAX_TOKENS = 1024
"""Cap on one passage's extraction reply (the generator's `--max-tokens` is an answer's cap)."""
OFFLINE_SPECS = ("", "offline")


def generator_model(
    spec: str | None,
    config: SargConfig,
    manifest: Manifest,
    endpoint: Mapping[str, Any] | None = None,
) -> Model | None:
    """SARG's generator for a `-m` spec; None (answer offline) for no spec or `offline`.

    Args:
        spec: The model spec (`hf:PATH`, `openai:NAME`, a served name) or None.
        config: The SARG settings (its token cap and temperature go to the model).
        manifest: The snapshot's schema (the registry needs it).
        endpoint: Endpoint settings (base_url, timeouts) as AgentConfig fields.

    Raises:
        AnswerConfigError: `rules`, which retrieves but does not write answers.
        ModelSpecError, ModelError: as the registry raises them.
    """
    from agent.config import AgentConfig
    from agent.models.registry import load_model

    if spec is None or spec.strip() in OFFLINE_SPECS:
        return None
    if spec.strip() == "rules":
        raise AnswerConfigError(
            "`rules` is ARK's retrieval policy, not a generator; omit -m to answer offline "
            "(leave the model out), or name a served or hf: model"
        )
    settings = AgentConfig(
        model=spec, max_tokens=config.max_tokens, temperature=config.temperature,
        **dict(endpoint or {}),
    )  # fmt: skip
    return load_model(settings, manifest=manifest)


def make_answerer(
    snapshot: Snapshot,
    config: SargConfig,
    *,
    model: Model | None = None,
    encoder: Embedder | None = None,
    keyphrases: KeyphraseExtractor | None = None,
    agent: ArkAgent | None = None,
    reader: Reader | None = None,
    extraction_cache: ExtractionCache | None = None,
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
        extraction_cache: Where per-question extractions are kept (default: the extraction
            cache in ARK's cache directory).

    Raises:
        AnswerConfigError: `agents` retrieval without an agent, `llm` direction or
            per-query extraction offline.
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
    if _per_query(config, model, documents):
        assert model is not None  # _per_query refuses per-query extraction without one
        cache = extraction_cache or ExtractionCache(default_cache_path())
        mode = None if config.structured == "tools" else StructuredMode(config.structured)
        settings = LLMExtractConfig(structured=mode, max_tokens=EXTRACTION_MAX_TOKENS)
        extractor = LLMExtractor(model, settings, schema=schema_named(config.schema))
        source = PerQuerySource(source, extractor, cache)
    node_types = [snapshot.type_code("passage")] if documents else None
    return Answerer(
        config,
        retriever=_retriever(snapshot, config, encoder, node_types, agent),
        gold=GoldPassages(snapshot, node_types=node_types),
        source=source,
        encoder=encoder,
        keyphrases=keyphrases,
        direction=_direction(config, model, encoder),
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


def _per_query(config: SargConfig, model: Model | None, documents: bool) -> bool:
    if config.method not in ("sarg", "flat-chains") or config.extraction == "snapshot":
        return False
    if config.extraction == "per-query" and model is None:
        raise AnswerConfigError(
            "--extraction per-query has the model extract each question's passages, but no "
            "model is given; pass -m MODEL or use --extraction snapshot"
        )
    return model is not None and (config.extraction == "per-query" or documents)


def _direction(config: SargConfig, model: Model | None, encoder: Embedder) -> DirectionClassifier:
    if config.direction == "rule":
        return RuleDirection()
    if config.direction == "learned":
        path = Path(config.direction_head) if config.direction_head else SHIPPED_HEAD
        return LearnedDirection(DirectionHead.load(path), encoder)
    if config.direction == "llm":
        if model is None:
            raise AnswerConfigError(
                "--direction llm asks the model, but no model is given; pass -m MODEL "
                "or use --direction rule"
            )
        return LLMDirection(model)
    return FixedDirection(Direction(config.direction))
