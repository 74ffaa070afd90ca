"""Per-question extraction (SARG Sec. 3.2): the model reads each retrieved passage."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent.extract.schemas import TOOL_NAME, reasoning_schema, schema_named
from agent.models.base import Message, ModelReply
from answer.config import SargConfig
from answer.errors import AnswerConfigError
from answer.factory import make_answerer
from answer.per_query import concept_key
from answer.pipeline import Answerer
from graphs.importers.documents.cache import ExtractionCache
from graphs.snapshot import Snapshot
from prompts.loader import render_prompt
from tests.answer.conftest import QUESTION
from tests.answer.word_encoder import FixedPhrases, WordEncoder

TRIPLES = {
    "professor at Moscow": [
        {"cause": "Sergei Tokarev", "relation": "professor_at", "effect": "Moscow State University",
         "sentence": 1},
    ],
    "founded in 1755": [
        {"cause": "the Moscow State University", "relation": "founded_in", "effect": "1755",
         "sentence": 1},
    ],
}  # fmt: skip


class ExtractingModel:
    """Extracts by the passage's words (a tool call when offered, else JSON text), and answers
    the SARG prompt with text."""

    name = "fake-extractor"

    def __init__(self) -> None:
        self.extractions: list[str] = []
        self.prompts: list[list[Message]] = []
        self.pause_s = 0.0

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        passage = str(messages[-1]["content"])
        if passage.startswith("Passage:"):
            self.extractions.append(passage)
            await asyncio.sleep(self.pause_s)
            found = [t for cue, ts in TRIPLES.items() if cue in passage for t in ts]
            arguments = json.dumps({"triples": found})
            if not tools:  # asked through the prompt: the JSON, after some reasoning
                text = f"<think>the passage links two things</think>{arguments}"
                return ModelReply(message={"role": "assistant", "content": text})
            call = {"id": "c", "type": "function",
                    "function": {"name": TOOL_NAME, "arguments": arguments}}  # fmt: skip
            return ModelReply(message={"role": "assistant", "content": None, "tool_calls": [call]})
        self.prompts.append(messages)
        return ModelReply(message={"role": "assistant", "content": "Answer: 1755"})


def _answerer(
    snapshot: Snapshot, model: ExtractingModel, cache: ExtractionCache, **kw: Any
) -> Answerer:
    config = SargConfig(passages=2, extraction="per-query", tau=-1.0, **kw)
    return make_answerer(
        snapshot,
        config,
        model=model,
        encoder=WordEncoder(),
        keyphrases=FixedPhrases(["sergei tokarev"]),
        extraction_cache=cache,
    )


def test_the_reasoning_prompt_renders_the_schema_and_its_tool() -> None:
    schema = reasoning_schema()
    text = render_prompt(schema.system_prompt, entity_types=(), tools=True)
    assert "cause" in text and "effect" in text and "{{" not in text
    fields = schema.tool["function"]["parameters"]["properties"]["triples"]["items"]["required"]
    assert fields == ["cause", "relation", "effect", "sentence"]
    assert schema_named("entity").name == "entity"
    with pytest.raises(ValueError, match="choose one of: entity, reasoning"):
        schema_named("causal")


def test_per_query_extraction_builds_the_graph_then_hits_the_cache(
    snapshot: Snapshot, tmp_path: Path
) -> None:
    cache = ExtractionCache(tmp_path / "cache.sqlite")
    model = ExtractingModel()
    result = asyncio.run(_answerer(snapshot, model, cache).answer(QUESTION))
    assert result.extraction is not None
    assert result.extraction["schema"] == "reasoning" and result.extraction["extracted"] == 2
    assert result.extraction["cached"] == 0 and len(model.extractions) == 2
    assert result.extraction["asked_as"] == {"prompt": 2}  # no response_format door here
    assert result.extraction["failures"] == {}
    labels = {label for chain in result.chains for label in chain.labels}
    assert {"Sergei Tokarev", "Moscow State University", "1755"} <= labels  # one resolved node
    assert result.answer == "1755"
    again = ExtractingModel()
    second = asyncio.run(_answerer(snapshot, again, cache).answer(QUESTION))
    assert again.extractions == [] and second.extraction is not None
    assert second.extraction["cached"] == 2 and second.extraction["extracted"] == 0
    other = ExtractingModel()  # another schema is another cache entry
    asyncio.run(_answerer(snapshot, other, cache, schema="entity").answer(QUESTION))
    assert len(other.extractions) == 2
    tools = ExtractingModel()  # a tool call is another prompt version
    asyncio.run(_answerer(snapshot, tools, cache, structured="tools").answer(QUESTION))
    assert len(tools.extractions) == 2


def test_concepts_resolve_across_passages_by_their_wording() -> None:
    assert concept_key("The  Moscow State University") == concept_key("moscow state university")
    assert concept_key("A") == "a"


def test_per_query_extraction_needs_a_model(snapshot: Snapshot) -> None:
    with pytest.raises(AnswerConfigError, match="--extraction snapshot"):
        make_answerer(
            snapshot,
            SargConfig(extraction="per-query"),
            encoder=WordEncoder(),
            keyphrases=FixedPhrases([]),
        )


def test_extraction_time_is_apart_from_construction(snapshot: Snapshot, tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "cache.sqlite")
    model = ExtractingModel()
    model.pause_s = 0.05  # each extraction takes at least this long (a lower bound, not a race)
    result = asyncio.run(_answerer(snapshot, model, cache).answer(QUESTION))
    assert result.timings["extract_s"] >= 0.05 and "construct_s" in result.timings


class MumblingModel(ExtractingModel):
    """Writes prose instead of JSON for every passage."""

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        if str(messages[-1]["content"]).startswith("Passage:"):
            return ModelReply(message={"role": "assistant", "content": "It is about a school."})
        return await super().generate(messages, tools, temperature=temperature, seed=seed)


def test_a_passage_with_no_usable_json_is_counted_with_its_reason(
    snapshot: Snapshot, tmp_path: Path
) -> None:
    cache = ExtractionCache(tmp_path / "cache.sqlite")
    result = asyncio.run(_answerer(snapshot, MumblingModel(), cache).answer(QUESTION))
    assert result.extraction is not None and result.extraction["failed"] == 2
    [(reason, count)] = result.extraction["failures"].items()
    assert "no JSON object" in reason and count == 2
    assert result.fallback == "no-chain" and result.chains == []  # nothing extracted: no chain
