"""Open SESSIONS MCP sessions over HTTP and leave them idle: can a new client still connect?

Run: ``nice -n 10 .venv/bin/python -m benchmarks.studies.mcp_sessions --sessions 1000``.
Two servers over the same tiny snapshot on 127.0.0.1, both capped at SESSIONS sessions: the
SDK's own app (``Server.streamable_http_app``, which refuses new sessions with 503 until one
expires, 30 minutes by default) and ARK's (`cli.mcp.http_app.http_app`, which closes the longest
idle one). Prints the time to open the sessions and the next client's HTTP status. Then
--concurrent clients at once each open a session (with a bearer token) and call `search`.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import uvicorn

from cli.mcp.http_app import http_app, http_security
from cli.mcp.server import ArkMcpCatalog, ServedSnapshot, build_server
from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.toolset import Toolset

HOST = "127.0.0.1"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _server(snapshot: Snapshot) -> Any:
    toolset = Toolset(snapshot, ToolConfig(enable_node=True))
    return build_server(ArkMcpCatalog([ServedSnapshot("g", toolset)]))


def _serve(app: Any) -> tuple[uvicorn.Server, int]:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = int(probe.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return server, port


def _measure(name: str, app: Any, sessions: int) -> None:
    server, port = _serve(app)
    headers = {"Accept": "application/json, text/event-stream"}
    url = f"http://{HOST}:{port}/mcp"
    with httpx.Client(headers=headers, timeout=30) as client:
        began = time.perf_counter()
        statuses = [client.post(url, json=INITIALIZE).status_code for _ in range(sessions)]
        opened = time.perf_counter() - began
        began = time.perf_counter()
        late = client.post(url, json=INITIALIZE).status_code
        late_ms = (time.perf_counter() - began) * 1000
    server.should_exit = True
    ok = sum(status == 200 for status in statuses)
    print(
        f"| {name} | {sessions:,} | {ok:,} | {opened:.1f} s | HTTP {late} ({late_ms:.0f} ms) |",
        flush=True,
    )


async def _post(client: httpx.AsyncClient, url: str, body: dict, **headers: str) -> httpx.Response:
    """POST once more on a dropped keep-alive connection (uvicorn closes idle ones after 5 s)."""
    try:
        return await client.post(url, json=body, headers=headers)
    except httpx.TransportError:
        return await client.post(url, json=body, headers=headers)


async def _client(client: httpx.AsyncClient, url: str) -> bool:
    opened = await _post(client, url, INITIALIZE)
    if opened.status_code != 200:
        return False
    session = {
        "mcp-session-id": opened.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-06-18",
    }
    await _post(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **session)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "x"}},
    }
    answered = await _post(client, url, call, **session)
    return answered.status_code == 200 and '"isError":false' in answered.text.replace(" ", "")


async def _concurrent(url: str, clients: int, token: str) -> list[bool]:
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(headers=headers, timeout=300, limits=limits) as client:
        return await asyncio.gather(*(_client(client, url) for _ in range(clients)))


def _measure_concurrent(snapshot: Snapshot, clients: int) -> None:
    security = http_security(HOST, token="bench-token")
    server, port = _serve(http_app(_server(snapshot), security))
    began = time.perf_counter()
    results = asyncio.run(_concurrent(f"http://{HOST}:{port}/mcp", clients, "bench-token"))
    seconds = time.perf_counter() - began
    server.should_exit = True
    answered = sum(results)
    print(f"{clients} concurrent clients (session + search): {answered} answered, {seconds:.1f}s")


def main() -> None:
    """Measure both servers and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=200)
    parser.add_argument("--skip-cap", action="store_true", help="Only the concurrent clients.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        nodes = pa.table(
            {"id": ["a", "b"], "type": ["t", "t"], "name": ["A", "B"], "text": ["x", "y"]}
        )
        edges = pa.table({"src": ["a"], "dst": ["b"], "relation": ["r"]})
        snapshot = Snapshot.open(build_snapshot(nodes, edges, Path(temp) / "s", name="s"))
        if not args.skip_cap:
            _measure_cap(snapshot, args.sessions)
        _measure_concurrent(snapshot, args.concurrent)


def _measure_cap(snapshot: Snapshot, sessions: int) -> None:
    print("| server | cap | sessions opened | time | next new client |")
    print("|---|---|---|---|---|")
    sdk = _server(snapshot).streamable_http_app(host=HOST, max_sessions=sessions)
    _measure("MCP SDK app (503 at the cap)", sdk, sessions)
    security = http_security(HOST, token=None, max_sessions=sessions)
    _measure("ark mcp (evicts longest idle)", http_app(_server(snapshot), security), sessions)
    print()


if __name__ == "__main__":
    main()
