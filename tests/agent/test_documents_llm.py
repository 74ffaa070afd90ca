"""The LLM extractor of `ark graph extract` against the strict fake OpenAI server."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from agent.extract.llm import TOOL_NAME, LLMExtractConfig, LLMExtractor
from agent.extract.pacing import RequestPacer
from agent.models.base import EndpointUnreachableError, ModelReply
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import CacheKey, ExtractionCache
from graphs.importers.documents.extractor import ExtractorDownError
from graphs.importers.documents.vocabulary import VocabularyConfig
from graphs.snapshot import Snapshot
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, text_reply, tool_call_reply

MARIE = {
    "entities": [
        {"name": "Marie Curie", "type": "person"},
        {"name": "Warsaw", "type": "place"},
    ],
    "triples": [
        {"subject": "Marie Curie", "relation": "born_in", "object": "Warsaw", "sentence": 2}
    ],
}
# an unescaped quote and the closing brackets cut off: repaired by tools.lenient_json
PIERRE = (
    '{"entities": [{"name": "Pierre Curie", "type": "person"}, {"name": "Marie Curie", '
    '"type": "person"}], "triples": [{"subject": "Pierre Curie", "relation": "married", '
    '"object": "Marie Curie", "sentence": 1, "note": "the "Curies""}'
)


async def no_sleep(_: float) -> None:
    return None


def answer(body: dict[str, Any]) -> dict[str, Any]:
    passage = body["messages"][-1]["content"]
    if "Warsaw" in passage:
        return tool_call_reply(TOOL_NAME, MARIE)
    if "Pierre" in passage:
        return tool_call_reply(TOOL_NAME, PIERRE)
    return text_reply("Sure! Here are the facts: Becquerel found rays.")  # no JSON at all


MARIE_TEXT = "Marie Curie was a physicist. She was born in Warsaw."


def write_docs(root: Path, names: tuple[str, ...] = ("marie", "pierre", "henri")) -> Path:
    texts = {
        "marie": MARIE_TEXT,
        "pierre": "Pierre Curie married Marie Curie in 1895.",
        "henri": "Henri Becquerel discovered radioactivity.",
    }
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    for name in names:
        (docs / f"{name}.txt").write_text(texts[name])
    return docs


def extractor_for(server: FakeOpenAIServer, **config: Any) -> LLMExtractor:
    model = OpenAIChatModel(
        "fake-extractor",
        base_url=server.base_url,
        sleep=no_sleep,
        retry=RetryPolicy(max_retries=2, max_connect_retries=0),
    )
    return LLMExtractor(model, LLMExtractConfig(**config))


def build(docs: Path, out: Path, extractor: LLMExtractor, cache: Path) -> Any:
    with ExtractionCache(cache) as store:
        return build_document_snapshot(
            [docs],
            out,
            extractor=extractor,
            cache=store,
            config=DocumentBuildConfig(vocabulary=VocabularyConfig(min_count=1)),
        )


def test_llm_build_reads_tool_calls_repairs_and_survives_garbage(tmp_path: Path) -> None:
    docs = write_docs(tmp_path)
    # one transient 500 first: retried by the adapter, not a passage failure
    with FakeOpenAIServer([Fault.server_error()], responder=answer) as server:
        summary = build(docs, tmp_path / "snap", extractor_for(server), tmp_path / "c.sqlite")
        sent = [request.body for request in server.requests if request.fault is None]
        assert server.rejected == []  # every request passed the strict schema checks
    assert len(sent) == 3
    assert sent[0]["tools"][0]["function"]["name"] == TOOL_NAME
    # the passage goes in as numbered sentences, so a triple can name its evidence
    assert any("[2] She was born in Warsaw." in b["messages"][-1]["content"] for b in sent)
    assert summary.extracted == 2 and summary.failed == 1 and summary.repaired == 1
    assert summary.failures == {"unparseable JSON (JSONDecodeError)": 1}
    assert summary.failed_passages == [
        {"passage": "henri.txt#0", "reason": "unparseable JSON (JSONDecodeError)"}
    ]
    snapshot = Snapshot.open(tmp_path / "snap")
    marie = snapshot.internal_id("entity:marie curie")
    assert snapshot.type_name(marie) == "person"
    born = snapshot.neighbors(marie, relations=[snapshot.relation_code("born_in")])
    assert [snapshot.external_id(int(n)) for n in born.nodes] == ["entity:warsaw"]
    married = snapshot.neighbors(marie, relations=[snapshot.relation_code("married")])
    assert [snapshot.external_id(int(n)) for n in married.nodes] == ["entity:pierre curie"]
    fact = snapshot.internal_id("fact:marie.txt#0:0")
    assert "She was born in Warsaw." in snapshot.text(fact)  # sentence 2 is the evidence
    # the passage that failed is still a passage node: a failure costs extraction, not text
    assert snapshot.text(snapshot.internal_id("passage:henri.txt#0")).startswith("Henri")


def test_rebuild_hits_cache_and_retries_only_the_failed_passage(tmp_path: Path) -> None:
    docs = write_docs(tmp_path)
    cache = tmp_path / "c.sqlite"
    with FakeOpenAIServer(responder=answer) as server:
        build(docs, tmp_path / "one", extractor_for(server), cache)
        first = len(server.requests)
        summary = build(docs, tmp_path / "two", extractor_for(server), cache)
        assert len(server.requests) - first == 1  # only henri.txt, which failed, is asked again
    assert summary.cache_hits == 2 and summary.extracted == 0 and summary.failed == 1


def test_added_document_extracts_only_its_passages(tmp_path: Path) -> None:
    docs = write_docs(tmp_path, ("marie",))
    cache = tmp_path / "c.sqlite"
    with FakeOpenAIServer(responder=answer) as server:
        build(docs, tmp_path / "one", extractor_for(server), cache)
        write_docs(tmp_path, ("pierre",))
        summary = build(docs, tmp_path / "two", extractor_for(server), cache)
        asked = [r.body["messages"][-1]["content"] for r in server.requests]
    assert len(asked) == 2 and "Pierre" in asked[1]
    assert summary.cache_hits == 1 and summary.extracted == 1


def test_unreachable_endpoint_stops_the_build_without_a_snapshot(tmp_path: Path) -> None:
    docs = write_docs(tmp_path)
    with FakeOpenAIServer() as server:
        url = server.base_url  # the port is closed once the server stops
    model = OpenAIChatModel(
        "fake", base_url=url, sleep=no_sleep, retry=RetryPolicy(max_connect_retries=0)
    )
    extractor = LLMExtractor(model, LLMExtractConfig(unreachable_limit=2, concurrency=1))
    with pytest.raises(ExtractorDownError, match="cannot reach"):
        build(docs, tmp_path / "snap", extractor, tmp_path / "c.sqlite")
    assert not (tmp_path / "snap").exists()


def test_json_mode_reads_bare_json_in_the_reply_text(tmp_path: Path) -> None:
    docs = write_docs(tmp_path, ("marie",))
    reply = text_reply("```json\n" + json.dumps(MARIE) + "\n```")
    with FakeOpenAIServer([reply]) as server:
        summary = build(
            docs, tmp_path / "snap", extractor_for(server, use_tools=False), tmp_path / "c.db"
        )
        assert "tools" not in server.requests[0].body
    assert summary.extracted == 1 and summary.triples == 1


@pytest.mark.parametrize("per_minute", [60.0, 120.0])
def test_pacer_spaces_request_starts(per_minute: float) -> None:
    import asyncio

    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    pacer = RequestPacer(per_minute, clock=lambda: 100.0, sleep=record)

    async def burst() -> None:
        await asyncio.gather(*(pacer.wait() for _ in range(3)))

    asyncio.run(burst())
    gap = 60.0 / per_minute
    assert sorted(waits) == [gap, 2 * gap]  # the first starts at once, the others spaced


class HalfDownModel:
    """Answers the Marie passage, then behaves like an endpoint that stopped answering."""

    name = "half-down"

    async def generate(self, messages: list[Any], tools: list[Any], **_: Any) -> ModelReply:
        if "Warsaw" in messages[-1]["content"]:
            return ModelReply(message=tool_call_reply(TOOL_NAME, MARIE))
        raise EndpointUnreachableError("nothing answers", url="http://127.0.0.1:9/v1")


def test_a_stopped_batch_keeps_its_finished_passages(tmp_path: Path) -> None:
    docs = write_docs(tmp_path, ("marie", "pierre"))
    extractor = LLMExtractor(
        HalfDownModel(), LLMExtractConfig(concurrency=1, unreachable_limit=1, batch_size=16)
    )
    with pytest.raises(ExtractorDownError, match="nothing answers"):
        build(docs, tmp_path / "snap", extractor, tmp_path / "c.db")
    assert not (tmp_path / "snap").exists()
    # Marie finished inside the stopped batch: cached, so a rerun resumes after her
    key = CacheKey("llm", "half-down", extractor.prompt_version)
    with ExtractionCache(tmp_path / "c.db") as cache:
        cached = cache.get_many([hashlib.sha256(MARIE_TEXT.encode()).hexdigest()], key)
    assert [len(e.triples) for e in cached.values()] == [1]
