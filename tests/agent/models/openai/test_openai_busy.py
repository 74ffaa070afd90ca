"""A busy single-slot server is not mistaken for a hung one; a never-answering one still stops.

llama-cpp-python's server handles one request at a time, GET /models included: while it
generates, the liveness check waits in line like any request.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agent.models.base import EndpointTimeoutError, EndpointUnreachableError
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy

_TOP = [{"token": "yes", "logprob": -0.1, "bytes": None},
        {"token": "no", "logprob": -2.3, "bytes": None}]  # fmt: skip
COMPLETION = {
    "id": "c", "object": "chat.completion", "created": 0, "model": "fake",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                 "finish_reason": "stop",
                 "logprobs": {"content": [{**_TOP[0], "top_logprobs": _TOP}]}}],
}  # fmt: skip
"""A reply with first-token logprobs, so the served reranker can use the server too."""


class SingleSlotServer:
    """Serves one request at a time: POST number i holds the slot `service_s[i]` seconds (the
    last value repeats; inf: until the server stops), even after its client gave up."""

    def __init__(self, service_s: list[float]) -> None:
        self.service_s = service_s
        self.slot = threading.Lock()
        self.stopping = threading.Event()
        self.posts = 0
        self._count = threading.Lock()
        handler = type("_SlotHandler", (_SlotHandler,), {"server_fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def next_service(self) -> float:
        with self._count:
            index, self.posts = self.posts, self.posts + 1
        return self.service_s[min(index, len(self.service_s) - 1)]

    def __enter__(self) -> SingleSlotServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


class _SlotHandler(BaseHTTPRequestHandler):
    server_fake: SingleSlotServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        service = self.server_fake.next_service()
        with self.server_fake.slot:
            self.server_fake.stopping.wait(None if math.isinf(service) else service)
            self._send(COMPLETION)

    def do_GET(self) -> None:
        with self.server_fake.slot:
            self._send({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def _send(self, body: dict[str, Any]) -> None:
        raw = json.dumps(body).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except OSError:
            pass  # the client gave up waiting


def model(server: SingleSlotServer, *, deadline_s: float) -> OpenAIChatModel:
    return OpenAIChatModel(
        "fake", base_url=server.base_url, timeout_s=0.5, call_deadline_s=deadline_s,
        retry=RetryPolicy(max_retries=6, base_delay_s=0.1), rng=random.Random(0),
    )  # fmt: skip


def ask(chat: OpenAIChatModel) -> str:
    reply = asyncio.run(chat.generate([{"role": "user", "content": "hi"}], []))
    return str(reply.message["content"])


def test_a_busy_single_slot_server_that_answered_before_is_waited_for() -> None:
    # the second request holds the slot 1.2 s: its 0.5 s attempt and the 0.5 s liveness
    # check both go unanswered, yet the endpoint answered a moment ago: busy, not hung
    with SingleSlotServer([0.0, 1.2, 0.0]) as server:
        chat = model(server, deadline_s=5.0)
        assert ask(chat) == "ok"
        started = time.monotonic()
        assert ask(chat) == "ok"
        elapsed = time.monotonic() - started
        posts = server.posts
    assert posts >= 3 and elapsed < 1.2 + 1.5  # retried until the slot was free, not given up


def test_an_endpoint_that_never_answered_still_stops_after_one_timeout_and_check() -> None:
    with SingleSlotServer([math.inf]) as server:
        chat = model(server, deadline_s=5.0)
        started = time.monotonic()
        with pytest.raises(EndpointUnreachableError, match="does not answer"):
            ask(chat)
        elapsed = time.monotonic() - started
    assert elapsed < 0.5 + 0.5 + 1.0  # one timeout, one liveness check: not the deadline


def test_an_endpoint_that_answered_then_hangs_for_good_stops_at_the_call_deadline() -> None:
    with SingleSlotServer([0.0, math.inf]) as server:
        chat = model(server, deadline_s=1.5)
        assert ask(chat) == "ok"
        started = time.monotonic()
        with pytest.raises(EndpointTimeoutError, match=r"call deadline of 1\.5s") as caught:
            ask(chat)
        elapsed = time.monotonic() - started
    assert elapsed < 1.5 + 1.0
    assert caught.value.kind == EndpointUnreachableError.kind  # the breaker counts it
