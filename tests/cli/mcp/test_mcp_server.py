"""`ark mcp`: an MCP client sees the agent's tools, schemas and observation texts, read-only."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from tiny_graph import drop_checksums
from typer.testing import CliRunner

from cli.app import build_app
from cli.commands.mcp import exposure_warning
from cli.mcp.http_app import HttpSecurity, http_app, http_security
from cli.mcp.server import ArkMcpCatalog, ServedSnapshot, build_server
from graphs.errors import SnapshotError
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.toolset import Toolset

REPO = Path(__file__).resolve().parents[3]
ARK = "import sys; from cli.app import main; sys.argv[0] = 'ark'; main()"

# (tool, MCP arguments, the same call as `ark` arguments after the snapshot)
SAME_CALLS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("search", {"query": "analytical engine"}, ["search", "analytical engine"]),
    (
        "search",
        {"query": "engine", "k": 2, "node_types": ["paper"]},
        ["search", "engine", "-k", "2", "--type", "paper"],
    ),
    ("neighbors", {"node_id": "A2"}, ["neighbors", "A2"]),
    (
        "neighbors",
        {"node_id": "P1", "query": "engine", "edge_types": ["cites"], "k": 1},
        ["neighbors", "P1", "--query", "engine", "--edge-type", "cites", "-k", "1"],
    ),
    ("node", {"node_id": "P3"}, ["node", "P3"]),
]

# Malformed calls (style guide list): each must be an MCP tool error with the agent's text.
MALFORMED: list[tuple[str, dict[str, Any]]] = [
    ("search", {}),
    ("search", {"q": "engine"}),
    ("search", {"query": 5}),
    ("search", {"query": ["analytical", "engine"]}),
    ("search", {"query": "engine", "k": "many"}),
    ("search", {"query": "engine", "k": 0}),
    ("search", {"query": "engine", "node_types": "paper"}),
    ("search", {"query": "engine", "node_types": ["papers"]}),
    ("neighbors", {"node_id": "P99"}),
    ("neighbors", {"node_id": "P1", "edge_types": ["citez"]}),
    ("node", {"node_id": "[P1]"}),
]


def _run(coroutine: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(coroutine())


def _ark(*args: str) -> str:
    result = CliRunner().invoke(build_app(), list(args))
    return result.stdout if result.exit_code == 0 else result.stderr


def _stdio(snapshot_args: list[str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", ARK, "mcp", *snapshot_args],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO)},
    )


def _text(result: Any) -> str:
    assert len(result.content) == 1
    return str(result.content[0].text)


def _catalog(snapshot: Snapshot, *labels: str) -> ArkMcpCatalog:
    toolset = Toolset(snapshot, ToolConfig(enable_node=True))
    return ArkMcpCatalog([ServedSnapshot(label, toolset) for label in labels or ("tiny",)])


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stdio_server_serves_the_agents_tools(tiny_snapshot: Snapshot, mode: str) -> None:
    path = str(tiny_snapshot.path)
    expected = [_ark(argv[0], path, *argv[1:]).removesuffix("\n") for _, _, argv in SAME_CALLS]
    agent = {s["function"]["name"]: s["function"] for s in Toolset(tiny_snapshot).schemas()}
    with_node = Toolset(tiny_snapshot, ToolConfig(enable_node=True)).schemas()
    agent["node"] = next(s["function"] for s in with_node if s["function"]["name"] == "node")

    async def session() -> None:
        async with Client(_stdio([f"tiny={path}"]), mode=mode, read_timeout_seconds=60) as client:
            listed = (await client.list_tools()).tools
            assert [tool.name for tool in listed] == ["search", "neighbors", "node"]
            for tool in listed:
                assert tool.input_schema == agent[tool.name]["parameters"]
                assert tool.description == agent[tool.name]["description"]
                assert tool.annotations is not None and tool.annotations.read_only_hint
            for (name, arguments, _), text in zip(SAME_CALLS, expected, strict=True):
                result = await client.call_tool(name, arguments)
                assert not result.is_error
                assert _text(result) == text
            bad = await client.call_tool("search", {"query": 5})
            assert bad.is_error
            agent_sees = Toolset(tiny_snapshot).call("search", '{"query": 5}').text
            assert _text(bad) == agent_sees
            for state_tool in ("select", "finish"):
                refused = await client.call_tool(state_tool, {"node_ids": ["P1"]})
                assert refused.is_error and "unknown tool" in _text(refused)
            again = await client.call_tool(*SAME_CALLS[0][:2])  # still serving
            assert _text(again) == expected[0]
            resources = (await client.list_resources()).resources
            assert [r.uri for r in resources] == ["ark://tiny/schema"]
            schema = json.loads((await client.read_resource("ark://tiny/schema")).contents[0].text)  # type: ignore[union-attr]
            assert schema["node_types"] == tiny_snapshot.manifest.node_types
            assert schema["candidate_types"] == ["paper"]

    _run(session)


@pytest.mark.parametrize(("name", "arguments"), MALFORMED)
def test_malformed_calls_are_tool_errors_with_the_agents_text(
    tiny_snapshot: Snapshot, name: str, arguments: dict[str, Any]
) -> None:
    agent_sees = Toolset(tiny_snapshot, ToolConfig(enable_node=True)).call(
        name, json.dumps(arguments)
    )
    assert agent_sees.error is not None

    async def session() -> None:
        async with Client(build_server(_catalog(tiny_snapshot))) as client:
            result = await client.call_tool(name, arguments)
            assert result.is_error
            assert _text(result) == agent_sees.text
            ok = await client.call_tool("search", {"query": "engine"})
            assert not ok.is_error

    _run(session)


def test_several_snapshots_are_namespaced(tiny_snapshot: Snapshot) -> None:
    catalog = _catalog(tiny_snapshot, "one", "two")
    names = [tool.name for tool in catalog.tools]
    tools = ("search", "neighbors", "node")
    assert names == [f"{label}__{tool}" for label in ("one", "two") for tool in tools]
    plain = {s["function"]["name"]: s["function"] for s in Toolset(tiny_snapshot).schemas()}
    search = catalog.tools[0]
    assert search.input_schema == plain["search"]["parameters"]
    assert search.description is not None
    assert search.description.startswith(plain["search"]["description"])
    assert search.description.endswith("its schema is the resource ark://one/schema.")
    direct = Toolset(tiny_snapshot).call("search", {"query": "babbage"}).text
    assert catalog.call("two__search", {"query": "babbage"}).text == direct
    assert catalog.call("search", {"query": "babbage"}).error is not None
    assert [r.uri for r in catalog.resources()] == ["ark://one/schema", "ark://two/schema"]
    assert json.loads(catalog.read_schema("ark://two/schema"))["tools"] == names[3:]
    with pytest.raises(MCPError, match="valid: ark://one/schema, ark://two/schema"):
        catalog.read_schema("ark://three/schema")


def test_labels_come_from_directories_or_label_equals_dir(tiny_snapshot: Snapshot) -> None:
    path = str(tiny_snapshot.path)
    same = CliRunner().invoke(build_app(), ["mcp", path, path])
    assert same.exit_code == 2
    assert "two snapshots are labelled 'snapshot'" in same.stderr
    assert "LABEL=DIR" in same.stderr
    missing = CliRunner().invoke(build_app(), ["mcp", "no/such/dir"])
    assert missing.exit_code == 2
    assert "error" in missing.stderr


def test_a_busy_port_is_a_clear_error(tiny_snapshot: Snapshot) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        args = ["mcp", str(tiny_snapshot.path), "--transport", "http", "--port", port]
        result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_only_loopback_hosts_are_quiet() -> None:
    assert exposure_warning("127.0.0.1") is None
    assert exposure_warning("localhost") is None
    assert exposure_warning("::1") is None
    warning = exposure_warning("0.0.0.0")
    assert warning is not None and "0.0.0.0" in warning and "--host 127.0.0.1" in warning


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_http_transport_serves_the_same_text(tiny_snapshot: Snapshot) -> None:
    port = _free_port()
    command = [sys.executable, "-c", ARK, "mcp", f"g={tiny_snapshot.path}", "--transport", "http"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [*command, "--port", str(port)], cwd=REPO, env=env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server never listened"
            time.sleep(0.05)

        async def session() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                assert names == ["search", "neighbors", "node"]
                result = await client.call_tool("neighbors", {"node_id": "A2"})
                direct = Toolset(tiny_snapshot).call("neighbors", {"node_id": "A2"})
                assert _text(result) == direct.text

        _run(session)
    finally:
        process.terminate()
        process.wait(timeout=30)


class _ExplodingToolset(Toolset):
    """A scripted fake: the query "boom" fails the way a bug would, anything else works."""

    def call(self, name: str, arguments: Any) -> Any:
        if isinstance(arguments, dict) and arguments.get("query") == "boom":
            raise RuntimeError("scripted failure")
        return super().call(name, arguments)


def test_a_failing_call_is_that_calls_error_and_the_server_keeps_serving(
    tiny_snapshot: Snapshot,
) -> None:
    toolset = _ExplodingToolset(tiny_snapshot, ToolConfig(enable_node=True))
    server = build_server(ArkMcpCatalog([ServedSnapshot("tiny", toolset)]))

    async def session() -> None:
        async with Client(server) as client:
            failed = await client.call_tool("search", {"query": "boom"})
            assert failed.is_error
            assert "internal error in search: RuntimeError: scripted failure" in _text(failed)
            assert "keeps serving" in _text(failed)
            again = await client.call_tool("search", {"query": "engine"})
            assert not again.is_error and "Analytical Engine" in _text(again)

    _run(session)


@pytest.mark.parametrize("relative", ["csr/neighbors.npy", "index/text.docs.npy", "nodes.arrow"])
def test_a_damaged_snapshot_is_refused_at_start_with_one_message(
    tiny_snapshot: Snapshot, tmp_path: Path, relative: str
) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(tiny_snapshot.path, damaged)
    data = bytearray((damaged / relative).read_bytes())
    start = data.index(b"\n") + 1 if relative.endswith(".npy") else 0
    data[start:] = b"\x7f" * (len(data) - start)
    (damaged / relative).write_bytes(bytes(data))
    result = CliRunner().invoke(build_app(), ["mcp", str(damaged)])
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    assert "rebuild" in message and "Traceback" not in result.stderr


def test_a_damaged_text_still_serves_and_verify_names_it(
    tiny_snapshot: Snapshot, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(tiny_snapshot.path, damaged)
    store = damaged / "nodes.arrow"
    data = bytearray(store.read_bytes())
    where = data.index(b"Bernoulli")
    data[where : where + 3] = b"\xff\xfe\xfd"  # invalid UTF-8, same size
    store.write_bytes(bytes(data))
    with pytest.raises(SnapshotError, match=r"nodes\.arrow was changed after the build"):
        Snapshot.open(damaged)  # the checksum sees it at once ...
    drop_checksums(damaged)  # ... a snapshot without checksums still serves it, as text
    toolset = Toolset(Snapshot.open(damaged), ToolConfig(enable_node=True))
    server = build_server(ArkMcpCatalog([ServedSnapshot("tiny", toolset)]))

    async def session() -> None:
        async with Client(server) as client:
            node = await client.call_tool("node", {"node_id": "P1"})
            assert not node.is_error and "\ufffd" in _text(node)  # replaced, never raised
            again = await client.call_tool("search", {"query": "engine"})
            assert not again.is_error

    _run(session)
    verdict = CliRunner().invoke(build_app(), ["graph", "verify", str(damaged)])
    assert verdict.exit_code == 2 and "nodes.arrow" in verdict.stdout


# --- HTTP: token, Host/Origin allow-lists, bounded sessions (binds 127.0.0.x only) ---

HTTP_HOST = "127.0.0.2"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


class _HttpServer:
    """`http_app` served by uvicorn in a thread on 127.0.0.2 (a loopback address)."""

    def __init__(self, snapshot: Snapshot, security: HttpSecurity) -> None:
        import uvicorn

        with socket.socket() as probe:
            probe.bind((HTTP_HOST, 0))
            self.port = int(probe.getsockname()[1])
        app = http_app(build_server(_catalog(snapshot)), security)
        config = uvicorn.Config(app, host=HTTP_HOST, port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> _HttpServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            assert time.monotonic() < deadline, "the HTTP server never started"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)

    def post(
        self, body: dict[str, Any], *, token: str | None = None, **headers: str
    ) -> httpx.Response:
        sent = {"Accept": "application/json, text/event-stream", **headers}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        return httpx.post(f"http://{HTTP_HOST}:{self.port}/mcp", json=body, headers=sent)

    def open_session(self, token: str) -> str:
        response = self.post(INITIALIZE, token=token)
        assert response.status_code == 200, response.text
        return response.headers["mcp-session-id"]

    def ping(self, session: str, token: str) -> int:
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        return self.post(ping, token=token, **headers).status_code


def test_binding_beyond_loopback_needs_a_token() -> None:
    with pytest.raises(ValueError, match=r"needs a bearer token.*ARK_MCP_TOKEN"):
        http_security("0.0.0.0", token=None)
    assert http_security("127.0.0.5", token=None).token is None  # loopback: optional
    wide = http_security("0.0.0.0", token="t", allow_hosts=["graphs.example"])
    assert "graphs.example:*" in wide.allowed_hosts and "0.0.0.0:*" not in wide.allowed_hosts
    assert "https://graphs.example:*" in wide.allowed_origins


def test_the_cli_refuses_a_wide_bind_without_a_token_and_reads_the_env_var() -> None:
    argv = ["mcp", "no/such/snapshot", "--transport", "http", "--host", "0.0.0.0"]
    refused = CliRunner().invoke(build_app(), argv, env={"ARK_MCP_TOKEN": ""})
    assert refused.exit_code == 2
    assert "needs a bearer token" in " ".join(refused.stderr.split())
    with_env = CliRunner().invoke(build_app(), argv, env={"ARK_MCP_TOKEN": "s3cret"})
    assert with_env.exit_code == 2  # past the token check: the snapshot does not exist
    assert "bearer token" not in with_env.stderr and "no/such/snapshot" in with_env.stderr


@pytest.mark.slow
def test_http_needs_the_token_and_refuses_foreign_hosts_and_origins(
    tiny_snapshot: Snapshot,
) -> None:
    security = http_security("0.0.0.0", token="s3cret", allow_hosts=[HTTP_HOST])
    with _HttpServer(tiny_snapshot, security) as server:
        assert server.post(INITIALIZE).status_code == 401
        assert server.post(INITIALIZE, token="wrong").status_code == 401
        foreign = server.post(INITIALIZE, token="s3cret", Origin="http://evil.example")
        assert foreign.status_code == 403
        rebound = server.post(INITIALIZE, token="s3cret", Host=f"evil.example:{server.port}")
        assert rebound.status_code == 421
        own = f"http://{HTTP_HOST}:{server.port}"
        assert server.post(INITIALIZE, token="s3cret", Origin=own).status_code == 200
        session = server.open_session("s3cret")
        assert server.ping(session, "s3cret") == 200


@pytest.mark.slow
def test_sessions_are_bounded_the_longest_idle_one_makes_room(tiny_snapshot: Snapshot) -> None:
    security = http_security(HTTP_HOST, token="t", max_sessions=2, session_idle_timeout=60)
    with _HttpServer(tiny_snapshot, security) as server:
        first, second = server.open_session("t"), server.open_session("t")
        assert server.ping(second, "t") == 200  # `first` is now the longest idle
        third = server.open_session("t")  # the SDK alone would answer 503 here
        assert server.ping(first, "t") == 404
        assert server.ping(second, "t") == 200 and server.ping(third, "t") == 200


@pytest.mark.slow
def test_idle_sessions_expire(tiny_snapshot: Snapshot) -> None:
    security = http_security(HTTP_HOST, token=None, session_idle_timeout=0.5)
    with _HttpServer(tiny_snapshot, security) as server:
        session = server.open_session("")
        time.sleep(1.2)
        assert server.ping(session, "") == 404


def test_the_sdk_hooks_the_session_cap_relies_on_still_exist() -> None:
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    manager = StreamableHTTPSessionManager(app=Server("hooks"))
    assert callable(manager._admit_session)
    assert isinstance(manager._server_instances, dict)
    assert isinstance(manager._session_owners, dict)


@pytest.mark.slow
def test_sessions_that_only_hold_streams_open_make_room_once_quiet(
    tiny_snapshot: Snapshot,
) -> None:
    security = http_security(HTTP_HOST, token="t", max_sessions=2, session_idle_timeout=0.5)
    with _HttpServer(tiny_snapshot, security) as server:
        sessions = [server.open_session("t"), server.open_session("t")]
        streams = []
        for session in sessions:  # each client holds its GET stream open and sends nothing
            client = httpx.Client(timeout=30)
            headers = {"Accept": "text/event-stream", "Authorization": "Bearer t",
                       "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}  # fmt: skip
            stream = client.stream("GET", f"http://{HTTP_HOST}:{server.port}/mcp", headers=headers)
            response = stream.__enter__()
            assert response.status_code == 200
            streams.append((client, stream))
        time.sleep(1.2)  # longer than the idle limit, with no request from either
        try:
            third = server.post(INITIALIZE, token="t")  # the SDK alone: 503 while they stay
            assert third.status_code == 200, third.text
            assert sum(server.ping(s, "t") == 200 for s in sessions) == 1  # one made room
        finally:
            for client, stream in streams:
                stream.__exit__(None, None, None)
                client.close()
