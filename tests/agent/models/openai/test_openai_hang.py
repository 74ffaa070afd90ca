"""An endpoint that accepts connections and never answers fails fast, and stops a batch."""

from __future__ import annotations

import asyncio
import random
import socket
import threading
import time
from pathlib import Path
from types import TracebackType

import pytest
from typer.testing import CliRunner

from agent.config import AgentConfig
from agent.models.base import EndpointTimeoutError, EndpointUnreachableError, ModelError
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy
from cli.app import build_app
from evals.runs.circuit import UNREACHABLE
from evals.runs.store import read_failures, read_results
from tests.agent.fake_openai_server import FakeOpenAIServer, Fault
from tests.evals.eval_graph import build_tiny

MESSAGES = [{"role": "user", "content": "hello"}]


class HangingServer:
    """A local socket that accepts every connection and never sends a byte."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(256)
        self.base_url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def __enter__(self) -> HangingServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._sock.close()
        for conn in self.accepted:
            conn.close()


class FakeClock:
    """A monotonic clock that the recorded sleeps advance."""

    def __init__(self) -> None:
        self.now = 0.0
        self.delays: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.delays.append(delay)
        self.now += delay


def generate(model: OpenAIChatModel) -> object:
    return asyncio.run(model.generate(MESSAGES, []))


def test_a_silent_endpoint_fails_after_one_timeout_and_one_liveness_check() -> None:
    with HangingServer() as server:
        model = OpenAIChatModel("fake", base_url=server.base_url, timeout_s=0.5)
        started = time.monotonic()
        with pytest.raises(EndpointUnreachableError, match="accepts connections but does not"):
            generate(model)
        first = time.monotonic() - started
        started = time.monotonic()
        with pytest.raises(EndpointUnreachableError, match=r"GET .*/models"):
            generate(model)  # the endpoint is known silent: only the liveness check is waited
        second = time.monotonic() - started
    assert first < 0.5 + 0.5 + 1.5  # one timeout, one liveness check, no retry
    assert second < 0.5 + 1.0


def test_a_slow_but_live_endpoint_is_retried_within_the_call_deadline() -> None:
    with FakeOpenAIServer(responder=lambda body: Fault.timeout(3.0)) as server:
        model = OpenAIChatModel(
            "fake", base_url=server.base_url, timeout_s=0.3, call_deadline_s=1.0,
            retry=RetryPolicy(max_retries=50, base_delay_s=0.0), rng=random.Random(0),
        )  # fmt: skip
        started = time.monotonic()
        with pytest.raises(EndpointTimeoutError, match="call deadline of 1s") as caught:
            generate(model)
        elapsed = time.monotonic() - started
        requests = len(server.requests)
    assert 2 <= requests <= 4  # the liveness check passed each time: retried, then cut off
    assert elapsed < 1.0 + 1.5
    assert caught.value.kind == EndpointUnreachableError.kind  # the breaker counts it


def test_the_call_deadline_bounds_every_retry_and_wait() -> None:
    clock = FakeClock()
    failing = Fault.http_error(503, "busy")
    with FakeOpenAIServer(responder=lambda body: failing) as server:
        model = OpenAIChatModel(
            "fake", base_url=server.base_url, timeout_s=5.0, call_deadline_s=2.0,
            retry=RetryPolicy(max_retries=50, base_delay_s=0.5), sleep=clock.sleep,
            monotonic=clock, rng=random.Random(0),
        )  # fmt: skip
        with pytest.raises(ModelError, match="call deadline of 2s"):
            generate(model)
        requests = len(server.requests)
    assert sum(clock.delays) < 2.0 and requests < 51


def test_config_maps_onto_the_adapter() -> None:
    config = AgentConfig(
        model="openai:x", base_url="http://127.0.0.1:9/v1", request_timeout_s=7.0,
        max_retries=0, call_deadline_s=30.0,
    )  # fmt: skip
    model = OpenAIChatModel.from_config(config, "x")
    assert (model.timeout_s, model.call_deadline_s) == (7.0, 30.0)
    assert (model.retry.max_retries, model.retry.max_connect_retries) == (0, 0)


@pytest.mark.slow
def test_a_hanging_endpoint_stops_the_batch_with_one_message(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    run = tmp_path / "run"
    timeout_s, bound_s = 0.5, 15.0  # one timeout + one liveness check per question in flight
    with HangingServer() as server:
        args = ["eval", "run", str(snapshot), "--qa", str(qa), "--out", str(run),
                "-m", "openai:fake", "--base-url", server.base_url, "--agents", "2",
                "--request-timeout", str(timeout_s)]  # fmt: skip
        started = time.monotonic()
        result = CliRunner().invoke(build_app(), args)
        elapsed = time.monotonic() - started
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert text.count("error:") == 1 and "Traceback" not in result.output
    assert "stopped the batch" in text and "does not answer" in text and "--resume" in text
    assert elapsed < bound_s
    failures = read_failures(run)
    assert failures and all(f.error_type == UNREACHABLE for f in failures)
    assert read_results(run) == []
