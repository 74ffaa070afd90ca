"""The LLM extractor: a few-shot prompt through any model, as a tool call or schema-bound JSON."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.extract.pacing import RequestPacer
from agent.extract.parse import ExtractionReplyError, extraction_from_payload, reply_payload
from agent.extract.schemas import ENTITY_TYPES, TOOL_NAME, ExtractionSchema, entity_schema
from agent.models.base import (
    ContextLengthError,
    EndpointTimeoutError,
    EndpointUnreachableError,
    Message,
    Model,
    ModelError,
)
from agent.models.circuit import CircuitBreaker
from agent.models.structured import StructuredMode, StructuredReply, StructuredStats, ask_structured
from graphs.importers.documents.chunker import sentence_spans
from graphs.importers.documents.extractor import ExtractorDownError
from graphs.importers.documents.model import Extraction, ExtractionFailure
from prompts.loader import read_prompt, render_prompt

logger = logging.getLogger(__name__)

USER_PROMPT = "extract_user.md.j2"
__all__ = ["TOOL_NAME", "LLMExtractConfig", "LLMExtractStats", "LLMExtractor"]


@dataclass(frozen=True, kw_only=True)
class LLMExtractConfig:
    """How the LLM extractor calls the model.

    Attributes:
        concurrency: Requests in flight at once (--concurrency); 4 keeps a local llama.cpp
            server's slots busy without queueing past its timeout.
        requests_per_minute: Start at most this many requests a minute (--rpm; None: no
            limit). Hosted APIs' free tiers allow a few hundred.
        batch_size: Passages per batch; the cache is written after each (a killed build loses
            at most one batch).
        use_tools: Ask for a tool call (default); off: ask for bare JSON in the reply text,
            for servers that cannot call tools.
        structured: Ask for the JSON through agent/models/structured.py instead of a tool
            call: `auto` sends the schema as `response_format` where the endpoint takes it
            (enforced during decoding), else the prompt; `schema` / `prompt` force one.
            None (default) keeps `use_tools`.
        max_tokens: Cap on a structured reply (None: the model's own cap); SARG's extraction
            shares its model with the answer writer, whose cap is short.
        unreachable_limit: Passages in a row that get no answer from the endpoint before the
            build stops: refused connections (after the adapter's connection retries), an
            endpoint that accepts connections and answers nothing (its liveness check fails)
            and calls that time out on every try within their deadline all count, as they do
            for `ark eval run`'s circuit breaker. Once it trips no further passage starts.
    """

    concurrency: int = 4
    requests_per_minute: float | None = None
    batch_size: int = 16
    use_tools: bool = True
    structured: StructuredMode | None = None
    max_tokens: int | None = None
    unreachable_limit: int = 3

    @property
    def asks_tools(self) -> bool:
        """A tool call is asked for (not bare or schema-enforced JSON)."""
        return self.use_tools and self.structured is None


@dataclass
class LLMExtractStats:
    """Counts over the extractor's life: requests sent, failures, repaired replies, tokens."""

    requests: int = 0
    failures: int = 0
    repaired: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


class LLMExtractor:
    """Extracts through a Model (OpenAI-compatible adapter: strict-server handling, retries).

    A reply that is not usable (no JSON even after lenient repair, wrong shape) or a model
    error costs that passage only; `unreachable_limit` passages in a row that cannot reach the
    endpoint stop the build with ExtractorDownError (the cache keeps what finished).
    """

    def __init__(
        self,
        model: Model,
        config: LLMExtractConfig | None = None,
        *,
        schema: ExtractionSchema | None = None,
    ) -> None:
        """Wrap `model` (its `name` is the cache key's model).

        Args:
            model: The model that extracts.
            config: Concurrency, pacing, batching and tool use.
            schema: What is asked for (default: the entity schema of `ark graph extract`);
                its name and prompt are part of `prompt_version`, so caches never mix them.
        """
        self.config = config or LLMExtractConfig()
        self.schema = schema or entity_schema()
        self._model = model
        self.model = str(getattr(model, "name", type(model).__name__))
        self.name = "llm" if self.schema.name == "entity" else f"llm-{self.schema.name}"
        self.batch_size = self.config.batch_size
        template = read_prompt(self.schema.system_prompt) + read_prompt(USER_PROMPT)
        template += json.dumps(self.schema.tool, sort_keys=True)  # the schema is the prompt too
        mode = "tools" if self.config.asks_tools else "json"
        self.prompt_version = hashlib.sha256(f"{mode}\n{template}".encode()).hexdigest()[:12]
        self._system = render_prompt(
            self.schema.system_prompt, entity_types=ENTITY_TYPES, tools=self.config.asks_tools
        )
        self._tools = [self.schema.tool] if self.config.asks_tools else []
        self.structured = StructuredStats()
        self._pacer = RequestPacer(self.config.requests_per_minute)
        self._breaker = CircuitBreaker(self.config.unreachable_limit)
        self.stats = LLMExtractStats()

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        """Extract a batch concurrently (one request per passage).

        Raises:
            ExtractorDownError: The endpoint could not be reached for `unreachable_limit`
                passages in a row.
        """
        return asyncio.run(self._extract_all(texts, close=True))

    async def extract_async(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        """`extract` inside a running event loop; the model stays open for its other users.

        Raises:
            ExtractorDownError: as `extract`.
        """
        return await self._extract_all(texts, close=False)

    async def _extract_all(
        self, texts: Sequence[str], *, close: bool
    ) -> list[Extraction | ExtractionFailure]:
        gate = asyncio.Semaphore(max(self.config.concurrency, 1))

        down: list[ExtractorDownError] = []

        async def one(text: str) -> Extraction | ExtractionFailure | None:
            async with gate:
                if down:  # the endpoint is down: start no further passage
                    return None
                try:
                    return await self._extract_one(text)
                except ExtractorDownError as error:
                    down.append(error)
                    raise

        try:
            results = await asyncio.gather(*(one(text) for text in texts), return_exceptions=True)
        finally:
            closer = getattr(self._model, "aclose", None)
            if close and closer is not None:
                await closer()
        finished = [r if isinstance(r, Extraction | ExtractionFailure) else None for r in results]
        for result in results:
            if isinstance(result, ExtractorDownError):
                raise ExtractorDownError(str(result), finished=finished) from result
            if isinstance(result, BaseException):
                raise result
        return [r for r in finished if r is not None]

    async def _extract_one(self, text: str) -> Extraction | ExtractionFailure:
        sentences = [text[a:b] for a, b in sentence_spans(text)] or [text]
        messages = [
            {"role": "system", "content": self._system},
            {"role": "user", "content": render_prompt(USER_PROMPT, sentences=sentences)},
        ]
        await self._pacer.wait()
        self.stats.requests += 1
        try:
            if self.config.structured is not None:
                return self._from_structured(await self._ask_structured(messages), sentences)
            reply = await self._model.generate(messages, self._tools, temperature=0.0)
        except EndpointUnreachableError as error:  # EndpointTimeoutError included
            self._breaker.record(True, str(error))
            if self._breaker.tripped:
                raise ExtractorDownError(
                    f"{error} (stopped after {self._breaker.consecutive} passages in a row got "
                    "no answer; rerun the same command to resume: finished passages are cached)"
                ) from error
            timed_out = isinstance(error, EndpointTimeoutError)
            return self._failed("endpoint timed out" if timed_out else "endpoint unreachable")
        except ContextLengthError:
            return self._failed("passage too long for the model's context (lower --chunk-tokens)")
        except ModelError as error:
            return self._failed(f"model error: {str(error)[:120]}")
        self._breaker.record(False)
        usage = reply.usage or {}
        self.stats.prompt_tokens += usage.get("prompt_tokens", 0)
        self.stats.completion_tokens += usage.get("completion_tokens", 0)
        try:
            payload, repaired = reply_payload(reply.message)
            extraction = extraction_from_payload(payload, sentences, repaired=repaired)
        except ExtractionReplyError as error:
            return self._failed(str(error))
        self.stats.repaired += int(repaired)
        return extraction

    async def _ask_structured(self, messages: list[Message]) -> StructuredReply:
        assert self.config.structured is not None
        return await ask_structured(
            self._model,
            messages,
            self.schema.tool["function"]["parameters"],
            name=TOOL_NAME,
            mode=self.config.structured,
            stats=self.structured,
            max_tokens=self.config.max_tokens,
        )

    def _from_structured(
        self, asked: StructuredReply, sentences: list[str]
    ) -> Extraction | ExtractionFailure:
        self._breaker.record(False)
        usage = asked.reply.usage if asked.reply is not None else None
        self.stats.prompt_tokens += (usage or {}).get("prompt_tokens", 0)
        self.stats.completion_tokens += (usage or {}).get("completion_tokens", 0)
        if asked.value is None:
            return self._failed(f"no usable JSON ({asked.mode.value}): {asked.error}")
        try:
            extraction = extraction_from_payload(asked.value, sentences, repaired=asked.repaired)
        except ExtractionReplyError as error:
            return self._failed(str(error))
        self.stats.repaired += int(asked.repaired)
        return extraction

    def _failed(self, reason: str) -> ExtractionFailure:
        self.stats.failures += 1
        self.stats.reasons[reason] = self.stats.reasons.get(reason, 0) + 1
        logger.info("extraction failed: %s", reason)
        return ExtractionFailure(reason)
