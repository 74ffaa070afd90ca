"""A client that disconnects from `POST /api/ask` cancels its run; the record says so."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import urlparse


def test_a_client_that_disconnects_cancels_its_run(server: str, tmp_path: Path) -> None:
    url = urlparse(server)
    body = json.dumps({"question": "Which Fans?", "model": "slow", "agents": 1}).encode()
    request = (
        f"POST /api/ask HTTP/1.1\r\nHost: {url.netloc}\r\nAccept: text/event-stream\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection((url.hostname, url.port), timeout=60) as client:
        client.sendall(request)
        received = b""
        while b"event: start" not in received:
            received += client.recv(4096)
    failures = None
    for _ in range(600):  # a bound on polls: the run is cancelled, or the test fails
        found = list((tmp_path / "runs").glob("*/failures.jsonl"))
        if found and found[0].read_text().strip():
            failures = [json.loads(line) for line in found[0].read_text().splitlines()]
            break
        time.sleep(0.05)
    assert failures is not None, "the disconnected run was not recorded"
    assert failures[0]["error_type"] == "Cancelled" and "disconnected" in failures[0]["error"]
