"""`ark mcp`: serve snapshots' read-only tools and schemas to MCP clients (stdio or HTTP)."""

from __future__ import annotations

from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.flags.agent import DenseSearchOpt
from cli.guards import fail
from cli.listening import check_listen, labelled_snapshots
from graphs.errors import ConfigError, GraphError
from tools.config import ToolConfig

if TYPE_CHECKING:
    from graphs.dense.encoder import TextEncoder
    from tools.toolset import Toolset

_SDK_MODULES = frozenset({"mcp", "mcp_types", "uvicorn", "starlette", "anyio"})


class Transport(StrEnum):
    """How clients reach the server."""

    stdio = "stdio"
    http = "http"


def register(app: typer.Typer) -> None:
    """Add this module's command to the `ark` application."""
    app.command("mcp")(mcp_serve)


def mcp_serve(
    snapshots: Annotated[
        list[str],
        typer.Argument(
            help="Snapshot directories; LABEL=DIR names one (the label prefixes its tools "
            "when several are served, e.g. academic__search).",
            show_default=False,
            metavar="SNAPSHOT",
        ),
    ],
    transport: Annotated[
        Transport, typer.Option(help="stdio for a client that starts ark itself; http to serve.")
    ] = Transport.stdio,
    host: Annotated[
        str, typer.Option(help="Interface for --transport http (localhost unless told).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port for --transport http.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ARK_MCP_TOKEN",
            help="Bearer token HTTP clients must send (Authorization: Bearer TOKEN); required "
            "for a --host beyond loopback.",
            show_default=False,
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            help="A Host name clients use to reach the server (repeatable; loopback names and "
            "the --host address are always allowed); its http(s) Origins are allowed too.",
            show_default=False,
        ),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            help="A browser Origin to accept, e.g. https://app.example (repeatable).",
            show_default=False,
        ),
    ] = None,
    session_idle_timeout: Annotated[
        float, typer.Option(help="Seconds an HTTP session may stay idle before it is closed.")
    ] = 600.0,
    max_sessions: Annotated[
        int,
        typer.Option(help="HTTP sessions kept at most; a new one closes the longest-idle one."),
    ] = 1000,
    dense_search: DenseSearchOpt = None,
) -> None:
    """Serve snapshots to any MCP client: search, neighbors, node (read-only) + schemas."""
    import anyio

    try:
        from cli.mcp import http_app
        from cli.mcp import server as mcp_server
    except ImportError as error:
        if (error.name or "").split(".")[0] not in _SDK_MODULES:
            raise
        fail(f"ark mcp needs the MCP SDK: pip install -e '.[mcp]' ({error})")
    try:  # checked before any snapshot opens: a refused deployment fails at once
        security = http_app.http_security(
            host,
            token=token,
            allow_hosts=allow_host or (),
            allow_origins=allow_origin or (),
            session_idle_timeout=session_idle_timeout,
            max_sessions=max_sessions,
        )
    except ConfigError as error:
        if transport is Transport.http:
            fail(str(error))
        security = http_app.HttpSecurity()  # stdio: no HTTP settings apply
    encoder = _encoder(dense_search)
    served = [
        mcp_server.ServedSnapshot(label, _toolset(path, encoder))
        for label, path in labelled_snapshots(snapshots, "ark mcp")
    ]
    server = mcp_server.build_server(mcp_server.ArkMcpCatalog(served))
    names = ", ".join(item.label for item in served)
    try:
        if transport is Transport.stdio:
            typer.echo(f"ark mcp: serving {names} over stdio", err=True)
            anyio.run(mcp_server.serve_stdio, server)
            return
        check_listen(host, port)
        warning = exposure_warning(host)
        if warning:
            typer.echo(warning, err=True)
        url_host = f"[{host}]" if ":" in host else host
        typer.echo(f"ark mcp: serving {names} at http://{url_host}:{port}/mcp", err=True)
        typer.echo(f"ark mcp: accepted Host headers: {', '.join(security.allowed_hosts)}", err=True)
        anyio.run(partial(mcp_server.serve_http, server, host=host, port=port, security=security))
    except KeyboardInterrupt:
        typer.echo("ark mcp: stopped", err=True)


def exposure_warning(host: str) -> str | None:
    """The warning printed when HTTP listens beyond this machine (None for loopback hosts)."""
    from cli.mcp.http_app import is_loopback

    if is_loopback(host):
        return None
    return (
        f"warning: listening on {host}, not localhost: anyone holding the token who can reach "
        "this interface can query these snapshots (read-only); the token travels in clear "
        "text over plain HTTP, so put TLS in front. Use --host 127.0.0.1 to keep the server "
        "local."
    )


def _encoder(path: Path | None) -> TextEncoder | None:
    """The query encoder for dense_search, loaded once for every served snapshot."""
    if path is None:
        return None
    from graphs.dense.encoder import TextEncoder

    return TextEncoder.load(path)


def _toolset(path: Path, encoder: TextEncoder | None) -> Toolset:
    from graphs.snapshot import Snapshot
    from tools.dense import DenseSearch
    from tools.toolset import Toolset

    try:
        snapshot = Snapshot.open(path)
        if encoder is None:
            return Toolset(snapshot, ToolConfig(enable_node=True))
        dense = DenseSearch.open(snapshot, encoder)
    except GraphError as error:
        fail(f"{path}: {error}")
    except OSError as error:
        fail(f"cannot open snapshot {path}: {error}; rebuild it")
    config = ToolConfig(enable_node=True, enable_dense_search=True, dense_encoder=str(encoder.path))
    return Toolset(snapshot, config, dense=dense)
