"""Every command that calls a served model goes through one call path: OpenAIChatModel.call.

A recorder wraps `OpenAIChatModel.call` and each model-calling command runs against a fake
endpoint: the recorder must see every request the endpoint got. And the rule that tells a busy
endpoint from a hung one (the liveness check) is used in one place only.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.models.openai import OpenAIChatModel
from cli.app import build_app
from tests.agent.fake_openai_server import FakeOpenAIServer, text_reply
from tests.evals.eval_graph import build_tiny

ROOT = Path(__file__).resolve().parents[3]
YES = {"token": "yes", "logprob": -0.1, "bytes": None}


def reply(body: dict[str, Any]) -> dict[str, Any]:
    """A one-token yes with logprobs for the reranker; a short answer for everyone else."""
    if body.get("logprobs"):
        return {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "length",
                         "message": {"role": "assistant", "content": "yes"},
                         "logprobs": {"content": [{**YES, "top_logprobs": [YES]}]}}],
        }  # fmt: skip
    return text_reply("Answer: Acme")


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    calls: list[str] = []
    original = OpenAIChatModel.call

    async def call(self: OpenAIChatModel, request: dict[str, Any], parse: Any) -> Any:
        calls.append(request["model"])
        return await original(self, request, parse)

    monkeypatch.setattr(OpenAIChatModel, "call", call)
    yield calls


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("one-door")
    snapshot, qa_file = build_tiny(root)
    qa = root / "qa"
    qa.mkdir()
    rows = qa_file.read_text().splitlines()[:2]
    (qa / "test.jsonl").write_text("\n".join(rows) + "\n")
    ranking = root / "stage2.jsonl"
    ranking.write_text(
        "".join(json.dumps({"id": json.loads(r)["id"], "ranking": ["p0", "p1"]}) + "\n"
                for r in rows)
    )  # fmt: skip
    docs = root / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Marie Curie was born in Warsaw. She studied in Paris.")
    return {"snapshot": snapshot, "qa": qa, "stage2": ranking, "docs": docs, "root": root}


def commands(tiny: dict[str, Path], out: Path) -> dict[str, list[str]]:
    snap, qa = str(tiny["snapshot"]), str(tiny["qa"])
    return {
        "ask": ["ask", snap, "Which brand makes kettles?", "--agents", "1", "--max-steps", "2"],
        "eval run": ["eval", "run", snap, "--qa", qa, "--agents", "1", "--max-steps", "2",
                     "--out", str(out / "eval")],
        "plan": ["plan", snap, "Which brand makes kettles?"],
        "graph extract": ["graph", "extract", str(tiny["docs"]), "--out", str(out / "x"),
                          "--extractor", "llm", "--cache", str(out / "c.sqlite")],
        "rerank": ["rerank", str(tiny["stage2"]), "--qa", qa, "--out", str(out / "r"),
                   "--depth", "2", "--tune-split", "none", "--snapshot", snap,
                   "--cache", str(out / "r.sqlite")],
    }  # fmt: skip


@pytest.mark.parametrize("command", ["ask", "eval run", "plan", "graph extract", "rerank"])
def test_every_model_calling_command_goes_through_the_one_call_path(
    tiny: dict[str, Path], tmp_path: Path, recorded: list[str], command: str
) -> None:
    with FakeOpenAIServer(responder=reply, strict=False) as server:
        argv = commands(tiny, tmp_path)[command]
        CliRunner().invoke(build_app(), [*argv, "-m", "openai:fake", "--base-url",
                                          server.base_url, "--max-retries", "0"])  # fmt: skip
        posts = len(server.requests)
    assert posts >= 1, f"{command} sent no request"
    assert len(recorded) == posts  # every request the endpoint got went through `call`


def test_the_liveness_rule_lives_in_one_function() -> None:
    """Only the adapter's call path decides busy or hung (`endpoint_answers` has one caller)."""
    callers = []
    for file in sorted(ROOT.glob("*/**/*.py")):
        if ".venv" in file.parts or "tests" in file.parts:
            continue
        tree = ast.parse(file.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "endpoint_answers":
                callers.append(file.relative_to(ROOT).as_posix())
    assert callers == ["agent/models/openai/model.py"]
