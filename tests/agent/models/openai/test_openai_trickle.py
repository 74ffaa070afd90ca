"""A server that sends its reply a few bytes at a time cannot hold a call past its bounds.

The request timeout bounds one attempt whole, reading included (not each read), and the call
deadline bounds every attempt and wait: for the agent's adapter and the served reranker,
which go through the same call path.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from types import TracebackType

import pytest

from agent.models.base import ModelError
from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy
from rank.rerank.served import OpenAIScorer
from tests.agent.models.openai.test_openai_hang import HangingServer

BYTE_EVERY_S = 0.05
"""The trickle: one byte of the body this often, forever (each read gets its byte in time)."""


class TrickleServer(HangingServer):
    """Answers every request with a 200, a long Content-Length and one body byte at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.posts = 0
        self._stop = threading.Event()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted.append(conn)
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        try:
            if conn.recv(65536).startswith(b"POST"):
                self.posts += 1
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000000\r\n\r\n"
            )
            while not self._stop.wait(BYTE_EVERY_S):
                conn.sendall(b" ")
        except OSError:
            pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        super().__exit__(exc_type, exc, tb)


def finishes(work: object, limit_s: float = 60.0) -> BaseException | None:
    """Run `work()` in a thread; the error it raised (fails the test if it is still running)."""
    raised: list[BaseException | None] = [None]

    def target() -> None:
        try:
            work()  # type: ignore[operator]
        except BaseException as error:
            raised[0] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(limit_s)  # generous: without the bound the call never ends at all
    assert not thread.is_alive(), "the call is still reading the trickle"
    return raised[0]


def test_the_request_timeout_bounds_an_attempt_reading_included() -> None:
    with TrickleServer() as server:
        model = OpenAIChatModel(
            "fake", base_url=server.base_url, timeout_s=0.5, call_deadline_s=None,
            retry=RetryPolicy(max_retries=0),
        )  # fmt: skip
        error = finishes(
            lambda: asyncio.run(model.generate([{"role": "user", "content": "hi"}], []))
        )
    assert isinstance(error, ModelError)
    assert "timed out after 0.5s" in str(error) or "does not answer" in str(error)


def test_the_call_deadline_bounds_the_whole_call() -> None:
    with TrickleServer() as server:
        model = OpenAIChatModel(
            "fake", base_url=server.base_url, timeout_s=30.0, call_deadline_s=0.6,
            retry=RetryPolicy(max_retries=50, base_delay_s=0.0),
        )  # fmt: skip
        error = finishes(
            lambda: asyncio.run(model.generate([{"role": "user", "content": "hi"}], []))
        )
    assert isinstance(error, ModelError)
    assert "within the call deadline of 0.6s" in str(error)  # nothing left for a probe


def test_the_served_reranker_is_bounded_alike() -> None:
    chats = [[{"role": "user", "content": "relevant?"}]] * 3
    with TrickleServer() as server:
        scorer = OpenAIScorer(
            "fake",
            base_url=server.base_url,
            timeout_s=30.0,
            call_deadline_s=0.6,
            max_retries=5,
            concurrency=1,
        )
        error = finishes(lambda: scorer.score(chats))
    assert isinstance(error, ModelError)
    assert "call deadline of 0.6s" in str(error)
    assert server.posts == 1  # the first failure stopped the batch


@pytest.mark.parametrize("deadline", [None, 0.6])
def test_a_server_that_answers_in_time_is_not_cut(deadline: float | None) -> None:
    from tests.agent.fake_openai_server import FakeOpenAIServer, text_reply

    with FakeOpenAIServer(responder=lambda body: text_reply("hello")) as server:
        model = OpenAIChatModel("fake", base_url=server.base_url, timeout_s=5.0,
                                call_deadline_s=deadline)  # fmt: skip
        reply = asyncio.run(model.generate([{"role": "user", "content": "hi"}], []))
    assert reply.message["content"] == "hello"
