"""Credentials in --base-url never reach a stored config, trajectory, failure or message."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.config import AgentConfig
from agent.models.endpoint_url import redact_url
from agent.models.openai.model import OpenAIChatModel
from cli.app import build_app
from evals.runs.store import read_failures, read_results
from tests.agent.fake_openai_server import FakeOpenAIServer
from tests.evals.eval_graph import build_tiny
from tests.evals.runs.test_eval_faults import scripted_agent

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"http://bob:{SECRET}@host:8000/v1", "http://***@host:8000/v1"),
        (f"https://{SECRET}@host/v1", "https://***@host/v1"),
        (f"http://host/v1?api_key={SECRET}&x=1", "http://host/v1?api_key=***&x=1"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_config_record_and_adapter_show_no_credentials() -> None:
    url = f"http://bob:{SECRET}@127.0.0.1:9/v1"
    config = AgentConfig(model="openai:x", base_url=url)
    assert SECRET not in str(config.to_record())
    model = OpenAIChatModel.from_config(config, "x")
    assert SECRET not in repr(model) and SECRET not in str(vars(model))


def dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def files_text(root: Path) -> str:
    return "\n".join(path.read_text(errors="replace") for path in root.rglob("*") if path.is_file())


def test_runs_store_no_credentials(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    common = ["--qa", str(qa), "-m", "openai:fake", "--agents", "1", "--limit", "2"]
    with FakeOpenAIServer(responder=scripted_agent) as server:
        url = server.base_url.replace("http://", f"http://bob:{SECRET}@")
        args = ["eval", "run", str(snapshot), *common, "--out", str(tmp_path / "ok"),
                "--base-url", url]  # fmt: skip
        ok = CliRunner().invoke(build_app(), args)
    assert ok.exit_code == 0, ok.output
    assert len(read_results(tmp_path / "ok")) == 2
    down_url = f"http://bob:{SECRET}@127.0.0.1:{dead_port()}/v1"
    args = ["eval", "run", str(snapshot), *common, "--out", str(tmp_path / "down"),
            "--base-url", down_url, "--max-retries", "0"]  # fmt: skip
    down = CliRunner().invoke(build_app(), args)
    assert read_failures(tmp_path / "down")
    assert "bob:" not in files_text(tmp_path / "ok") and SECRET not in files_text(tmp_path / "ok")
    assert SECRET not in files_text(tmp_path / "down") and SECRET not in down.output
    assert "***@127.0.0.1" in files_text(tmp_path / "down")


@pytest.mark.parametrize(
    "url",
    [f"http://bob:{SECRET}@HOST/v1", f"http://HOST/v1?api_key={SECRET}"],
    ids=["userinfo", "query"],
)
def test_credentials_a_server_echoes_back_are_redacted(url: str) -> None:
    import asyncio

    from agent.models.base import ModelError
    from tests.agent.fake_openai_server import Fault

    echo = Fault.http_error(400, f"bad request for {url} with key sk-live-{SECRET}")
    with FakeOpenAIServer(responder=lambda body: echo) as server:
        base = url.replace("HOST", server.base_url.split("//")[1].split("/")[0])
        model = OpenAIChatModel("x", base_url=base, api_key=f"sk-live-{SECRET}")
        with pytest.raises(ModelError) as caught:
            asyncio.run(model.generate([{"role": "user", "content": "hi"}], []))
    assert SECRET not in str(caught.value)
