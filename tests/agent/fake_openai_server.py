"""A local OpenAI-compatible chat-completions server for tests: scripted replies, injected faults.

Usage::

    script = [Fault.rate_limited(retry_after="2"), tool_call_reply("search", {"q": "x"})]
    with FakeOpenAIServer(script) as srv:
        model = OpenAIChatModel("fake", base_url=srv.base_url, sleep=recorder)
        ...
        assert len(srv.requests) == 2

Each POST to /v1/chat/completions consumes the next script item: an assistant message dict
(wrapped in a completion), a full completion body (a dict with "choices"), or a `Fault`. A fault
does not consume a reply, so `[Fault.server_error(), text_reply("ok")]` fails once then answers.
With `fault_rate > 0`, each request first draws (seeded) whether to inject one of `rate_faults`
instead of consuming the script. When the script is empty, `responder(request_body)` answers if
given; otherwise the server returns HTTP 400 "script exhausted" (not retried, so a test that
under-scripts fails loudly instead of looping on retries).

The server is strict by default: a request breaking the chat-completions schema as real
servers enforce it (see `strict_requests.request_problems`) is answered with HTTP 500 and the
problems, as llama.cpp answers, without consuming the script; `rejected` lists them.
"""

from __future__ import annotations

import json
import random
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from tests.agent.strict_requests import request_problems

FaultKind = Literal["status", "timeout", "garbled", "disconnect", "empty_choices"]


@dataclass(frozen=True)
class Fault:
    """One injected failure. Build with the classmethods."""

    kind: FaultKind
    status: int = 500
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay_s: float = 0.0

    @classmethod
    def http_error(cls, status: int, message: str = "injected error", **headers: str) -> Fault:
        """An HTTP error with an OpenAI-style JSON error body."""
        body = json.dumps({"error": {"message": message, "type": "fake", "code": status}})
        return cls("status", status=status, headers=headers, body=body.encode())

    @classmethod
    def rate_limited(
        cls, retry_after: str | None = None, *, retry_after_ms: str | None = None
    ) -> Fault:
        """HTTP 429, with `Retry-After` / `retry-after-ms` headers when given."""
        headers = {}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
        if retry_after_ms is not None:
            headers["retry-after-ms"] = retry_after_ms
        return cls.http_error(429, "rate limited", **headers)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        """An HTTP 5xx."""
        return cls.http_error(status, f"injected {status}")

    @classmethod
    def timeout(cls, delay_s: float = 2.0) -> Fault:
        """Answer only after `delay_s` (set it past the client's timeout)."""
        return cls("timeout", delay_s=delay_s)

    @classmethod
    def garbled(cls, body: bytes = b'{"id": "x", "choices": [{"mess') -> Fault:
        """HTTP 200 with a body that is not JSON."""
        return cls("garbled", status=200, body=body)

    @classmethod
    def disconnect(cls) -> Fault:
        """Close the connection without answering."""
        return cls("disconnect")

    @classmethod
    def empty_choices(cls) -> Fault:
        """HTTP 200 with a well-formed completion whose `choices` is empty."""
        return cls("empty_choices", status=200)


ScriptItem = Mapping[str, Any] | Fault
Responder = Callable[[dict[str, Any]], Mapping[str, Any] | Fault]


def text_reply(content: str) -> dict[str, Any]:
    """An assistant message with text only."""
    return {"role": "assistant", "content": content}


def tool_call_reply(
    name: str,
    arguments: str | Mapping[str, Any],
    *,
    call_id: str | None = "call_fake_0",
    content: str | None = None,
) -> dict[str, Any]:
    """An assistant message with one tool call.

    `arguments` is sent verbatim when a string (so it can be malformed JSON); `call_id=None`
    omits the id, as Ollama and llama.cpp do.
    """
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": raw}}
    if call_id is not None:
        call["id"] = call_id
    return {"role": "assistant", "content": content, "tool_calls": [call]}


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, and the fault it answered with (if any)."""

    path: str
    headers: dict[str, str]
    body: Any
    fault: Fault | None


class FakeOpenAIServer:
    """Threaded chat-completions server on 127.0.0.1 (port chosen by the OS)."""

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        responder: Responder | None = None,
        fault_rate: float = 0.0,
        rate_faults: Iterable[Fault] = (Fault.server_error(500),),
        seed: int = 0,
        latency_s: float = 0.0,
        usage: bool = True,
        strict: bool = True,
        reject_status: int = 500,
        port: int = 0,
    ) -> None:
        """Configure the server; `start()` (or `with`) binds it.

        Args:
            script: Replies and faults answered in order.
            responder: Answers requests once the script is empty.
            fault_rate: Probability that a request gets one of `rate_faults` instead.
            rate_faults: Faults drawn uniformly when `fault_rate` fires.
            seed: Seed of the fault draw.
            latency_s: Delay before every non-fault answer (to test concurrency).
            usage: Whether completions report token usage.
            strict: Reject requests that break the chat-completions schema.
            reject_status: HTTP status of a strict rejection (llama.cpp answers 500).
            port: Port to bind (0: chosen by the OS).
        """
        self._script: deque[ScriptItem] = deque(script)
        self._responder = responder
        self._fault_rate = fault_rate
        self._rate_faults = list(rate_faults)
        self._rng = random.Random(seed)
        self._latency_s = latency_s
        self._usage = usage
        self._strict = strict
        self._reject_status = reject_status
        self._port = port
        self.rejected: list[list[str]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI root to pass as base_url (ends in /v1)."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def push(self, *items: ScriptItem) -> None:
        """Append replies or faults to the script."""
        with self._lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        """Script items not yet consumed."""
        with self._lock:
            return len(self._script)

    def start(self) -> FakeOpenAIServer:
        """Bind and serve in a daemon thread."""
        handler = type("_Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; sleeping timeout handlers wake up and exit."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, body: dict[str, Any]) -> Mapping[str, Any] | Fault | None:
        with self._lock:
            if self._fault_rate and self._rng.random() < self._fault_rate:
                return self._rng.choice(self._rate_faults)
            if self._script:
                return self._script.popleft()
        return self._responder(body) if self._responder is not None else None

    def _completion(self, item: Mapping[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        if "choices" in item:
            return dict(item)
        completion: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": dict(item), "finish_reason": "stop"}],
        }
        if self._usage:
            prompt = len(json.dumps(body.get("messages", []))) // 4
            completion_tokens = len(json.dumps(item)) // 4
            completion["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt + completion_tokens,
            }
        return completion


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers: clients reuse connections
    disable_nagle_algorithm = True  # headers and body go out in separate writes

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request stderr log."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._record(body, None)
            self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}).encode())
            return
        problems = request_problems(body) if self.fake._strict else []
        if problems:
            with self.fake._lock:
                self.fake.rejected.append(problems)
            self._record(body, None)
            message = "invalid request: " + "; ".join(problems)
            error = {"error": {"message": message, "type": "invalid_request_error"}}
            self._send(self.fake._reject_status, json.dumps(error).encode())
            return
        item = self.fake._next(body)
        fault = item if isinstance(item, Fault) else None
        self._record(body, fault)
        try:
            if isinstance(item, Fault):
                self._apply(item)
            elif item is None:
                message = "fake server: script exhausted (push more replies or pass responder=)"
                self._send(400, json.dumps({"error": {"message": message}}).encode())
            else:
                if self.fake._latency_s and self.fake._stopping.wait(self.fake._latency_s):
                    return
                completion = self.fake._completion(item, body)
                self._send(200, json.dumps(completion).encode())
        except OSError:
            pass  # the client went away (it timed out); nothing to answer

    def _record(self, body: Any, fault: Fault | None) -> None:
        headers = {key.lower(): value for key, value in self.headers.items()}
        with self.fake._lock:
            self.fake.requests.append(RecordedRequest(self.path, headers, body, fault))

    def _apply(self, fault: Fault) -> None:
        if fault.kind == "timeout":
            if not self.fake._stopping.wait(fault.delay_s):
                self._send(200, json.dumps(self.fake._completion(text_reply("late"), {})).encode())
        elif fault.kind == "disconnect":
            self.close_connection = True
            self.connection.close()
        elif fault.kind == "empty_choices":
            body = {"id": "x", "object": "chat.completion", "created": 0, "choices": []}
            self._send(200, json.dumps(body).encode())
        else:
            self._send(fault.status, fault.body, fault.headers)

    def _send(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)


async def _no_sleep(_: float) -> None:
    return None


def served_model(server: FakeOpenAIServer, *, retries: int = 0) -> Any:
    """The OpenAI-compatible adapter pointed at `server`: no waits, no connect retries."""
    from agent.models.openai.model import OpenAIChatModel
    from agent.models.openai.retry import RetryPolicy

    retry = RetryPolicy(max_retries=retries, max_connect_retries=0)
    return OpenAIChatModel("fake", base_url=server.base_url, sleep=_no_sleep, retry=retry)
