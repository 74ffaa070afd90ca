"""`ark graph extract --extractor llm` takes the endpoint flags of AgentFlags, records them
(credentials redacted) and stops on a hanging endpoint with one message."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.extract.llm import TOOL_NAME, LLMExtractConfig, LLMExtractor
from agent.models.base import EndpointTimeoutError, EndpointUnreachableError, ModelReply
from cli.app import build_app
from graphs.importers.documents.extractor import ExtractorDownError
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault, tool_call_reply
from tests.agent.models.openai.test_openai_hang import HangingServer

SECRET = "s3cret-pw"
MARIE = {
    "entities": [{"name": "Marie Curie", "type": "person"}, {"name": "Warsaw", "type": "place"}],
    "triples": [
        {"subject": "Marie Curie", "relation": "born_in", "object": "Warsaw", "sentence": 2}
    ],
}


def write_docs(root: Path, count: int) -> Path:
    docs = root / "docs"
    docs.mkdir()
    for number in range(count):
        (docs / f"d{number}.txt").write_text(
            f"Marie Curie was physicist number {number}. She was born in Warsaw."
        )
    return docs


def with_credentials(base_url: str) -> str:
    return base_url.replace("http://", f"http://ark:{SECRET}@")


def extract(tmp_path: Path, docs: Path, base_url: str, *flags: str) -> Any:
    args = ["graph", "extract", str(docs), "--out", str(tmp_path / "snap"),
            "--extractor", "llm", "-m", "openai:fake", "--base-url", base_url,
            "--cache", str(tmp_path / "cache.sqlite"), "--json", *flags]  # fmt: skip
    return CliRunner().invoke(build_app(), args)


def every_file_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def test_endpoint_flags_reach_the_client_and_are_recorded_redacted(tmp_path: Path) -> None:
    docs = write_docs(tmp_path, 2)
    reply = tool_call_reply(TOOL_NAME, MARIE)
    # two 503s: with --max-retries 1 the first passage fails after exactly two requests (one
    # of two failed: within --max-failed-share), the second is extracted
    with FakeOpenAIServer([Fault.server_error(503)] * 2, responder=lambda body: reply) as server:
        url = with_credentials(server.base_url)
        result = extract(tmp_path, docs, url, "--request-timeout", "7", "--max-retries", "1",
                         "--call-deadline", "30", "--concurrency", "1")  # fmt: skip
        posts = len(server.requests)
    assert result.exit_code == 0, result.output
    assert posts == 3
    expected = {
        "base_url": server.base_url.replace("http://", "http://***@") + "/",  # as the client has it
        "request_timeout_s": 7.0,
        "max_retries": 1,
        "call_deadline_s": 30.0,
    }
    summary = json.loads(result.stdout)
    assert summary["failed"] == 1 and summary["endpoint"] == expected
    stored = json.loads((tmp_path / "snap" / "extraction.json").read_text())
    assert stored["endpoint"] == expected
    assert SECRET not in result.output and SECRET not in every_file_text(tmp_path / "snap")
    info = CliRunner().invoke(build_app(), ["graph", "info", str(tmp_path / "snap")])
    assert "request timeout 7.0 s, 1 retries, call deadline 30.0 s" in " ".join(info.output.split())


def test_defaults_are_the_agent_flags_and_timeout_is_an_alias(tmp_path: Path) -> None:
    docs = write_docs(tmp_path, 1)
    reply = tool_call_reply(TOOL_NAME, MARIE)
    with FakeOpenAIServer(responder=lambda body: reply) as server:
        result = extract(tmp_path, docs, server.base_url, "--timeout", "9")
        assert result.exit_code == 0, result.output
        endpoint = json.loads(result.stdout)["endpoint"]
        assert (endpoint["request_timeout_s"], endpoint["max_retries"]) == (9.0, 6)
        assert endpoint["call_deadline_s"] == 180.0
        assert "--timeout is deprecated; use --request-timeout" in result.stderr
        clash = extract(tmp_path, docs, server.base_url, "--timeout", "9",
                        "--request-timeout", "8", "--overwrite")  # fmt: skip
    assert clash.exit_code == 2
    assert "error:" in clash.output and "--request-timeout" in clash.output


def test_a_hanging_endpoint_stops_extract_with_one_message(tmp_path: Path) -> None:
    docs = write_docs(tmp_path, 12)
    timeout_s, bound_s = 0.5, 6.0  # one timeout + one liveness check per passage in flight
    with HangingServer() as server:
        started = time.monotonic()
        result = extract(tmp_path, docs, server.base_url, "--request-timeout", str(timeout_s),
                         "--call-deadline", "2", "--max-retries", "1")  # fmt: skip
        elapsed = time.monotonic() - started
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert text.count("error:") == 1 and "Traceback" not in result.output
    assert "does not answer" in text and "rerun the same command to resume" in text
    assert elapsed < bound_s
    assert not (tmp_path / "snap").exists()


class SilentModel:
    """Every call ends as a call to a silent (or too slow) endpoint does."""

    name = "silent"

    def __init__(self, error: EndpointUnreachableError) -> None:
        self.error = error
        self.calls = 0

    async def generate(self, messages: list[Any], tools: list[Any], **_: Any) -> ModelReply:
        self.calls += 1
        raise self.error


@pytest.mark.parametrize(
    "error",
    [
        EndpointUnreachableError("accepts connections but does not answer", url="u"),
        EndpointTimeoutError("timed out within the call deadline", url="u"),
    ],
)
def test_timeouts_count_and_no_passage_starts_once_the_breaker_trips(
    error: EndpointUnreachableError,
) -> None:
    model = SilentModel(error)
    extractor = LLMExtractor(model, LLMExtractConfig(concurrency=1, unreachable_limit=3))
    with pytest.raises(ExtractorDownError, match="3 passages in a row") as caught:
        extractor.extract([f"Passage {n}." for n in range(10)])
    assert model.calls == 3  # the 7 passages after the third are never sent
    assert caught.value.finished[3:] == [None] * 7


def test_an_unknown_structured_mode_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Marie Curie was born in Warsaw.")
    args = ["graph", "extract", str(tmp_path / "a.txt"), "--out", str(tmp_path / "s")]
    done = CliRunner().invoke(
        build_app(), [*args, "--extractor", "llm", "-m", "x", "--structured", "grammar"]
    )
    assert done.exit_code == 2 and "choose one of: auto, schema, prompt" in done.output
