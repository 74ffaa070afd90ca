"""`ark mcp --transport http`: a bearer-token gate, Host/Origin allow-lists and bounded sessions.

The MCP transport specification requires servers to validate Origin (DNS rebinding) and
recommends authentication; the SDK validates Host and Origin only for loopback binds and
refuses new sessions with HTTP 503 once its cap is reached. Here validation is on for every
interface, a token can be required, and at the cap the oldest idle session makes room.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from graphs.errors import ConfigError

logger = logging.getLogger(__name__)

TOKEN_ENV_VAR = "ARK_MCP_TOKEN"
MCP_PATH = "/mcp"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "")


@dataclass(frozen=True, kw_only=True)
class HttpSecurity:
    """Who may talk to the HTTP server, and how many sessions it keeps.

    Attributes:
        token: The bearer token every request must carry (None: no token asked).
        allowed_hosts: Host header values accepted (``NAME:*`` accepts any port).
        allowed_origins: Origin header values accepted (a request without Origin is allowed:
            only browsers send one).
        session_idle_timeout: Seconds a session may go without a request before it is closed.
        max_sessions: Sessions kept at most; a new one evicts the oldest idle one.
    """

    token: str | None = None
    allowed_hosts: tuple[str, ...] = field(default_factory=tuple)
    allowed_origins: tuple[str, ...] = field(default_factory=tuple)
    session_idle_timeout: float = 600.0
    max_sessions: int = 1000


def is_loopback(host: str) -> bool:
    """Whether `host` (a bind address or name) is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_security(
    host: str,
    *,
    token: str | None,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
    session_idle_timeout: float = 600.0,
    max_sessions: int = 1000,
) -> HttpSecurity:
    """The security settings for a server bound to `host`.

    Loopback names, the bound address (unless a wildcard) and each of `allow_hosts` are
    accepted as Host (any port), and as Origin over http and https, plus `allow_origins`.

    Raises:
        ValueError: `host` is beyond loopback and no token is given, or a limit is not
            positive (the message says which flag to pass).
    """
    if not token and not is_loopback(host):
        raise ConfigError(
            f"listening on {host} (beyond this machine) needs a bearer token: pass --token "
            f"TOKEN or set {TOKEN_ENV_VAR}; clients send 'Authorization: Bearer TOKEN'"
        )
    if not (math.isfinite(session_idle_timeout) and session_idle_timeout > 0) or max_sessions < 1:
        raise ConfigError("--session-idle-timeout and --max-sessions must be positive")
    names = list(LOOPBACK_HOSTS)
    if host not in _WILDCARDS:
        names.append(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    names += [name for name in allow_hosts if name]
    hosts = [name if _has_port(name) else f"{name}:*" for name in dict.fromkeys(names)]
    origins = [f"{scheme}://{name}" for name in hosts for scheme in ("http", "https")]
    origins += [origin.rstrip("/") for origin in allow_origins if origin]
    return HttpSecurity(
        token=token or None,
        allowed_hosts=tuple(hosts),
        allowed_origins=tuple(dict.fromkeys(origins)),
        session_idle_timeout=session_idle_timeout,
        max_sessions=max_sessions,
    )


def _has_port(name: str) -> bool:
    return name.rsplit("]", 1)[-1].count(":") == 1 if name.startswith("[") else ":" in name


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, closing the longest-idle session to admit one at the cap.

    (The SDK itself answers 503 until a session expires, up to its idle timeout.) A session
    whose client holds a stream open (GET) is never idle to the SDK; one that has sent no
    request for `session_idle_timeout` is idle here all the same, so clients that only hold
    streams cannot keep new sessions out: at the cap, the session quiet the longest makes room.

    Relies on the SDK's session table (`_server_instances`) and admission hook
    (`_admit_session`), pinned by `mcp>=2.3,<3`; tests/tools/test_mcp_server.py fails if
    they change.
    """

    def __init__(self, *args: Any, clock: Callable[[], float] = time.monotonic, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._clock = clock
        self._last_request: dict[str, float] = {}

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Note when each session last sent a request (POST), then serve it."""
        session_id = Headers(scope=scope).get("mcp-session-id")
        if session_id and scope.get("method") == "POST":
            self._last_request[session_id] = self._clock()
        await super().handle_request(scope, receive, send)

    def _admit_session(self, requestor: Any) -> Any:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._evict_longest_idle()
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            self._last_request[transport.mcp_session_id] = self._clock()
        return transport

    def _evict_longest_idle(self) -> None:
        idle = [
            (transport.idle_scope.deadline, session_id)
            for session_id, transport in self._server_instances.items()
            if transport.idle_scope is not None and math.isfinite(transport.idle_scope.deadline)
        ]
        if not idle:  # every session is busy or holds a stream: the quietest past the limit
            now = self._clock()
            idle = [
                (last, session_id)
                for session_id in self._server_instances
                if now - (last := self._last_request.get(session_id, now))
                >= (self.session_idle_timeout or math.inf)
            ]
        if not idle:
            return  # every session sent a request lately: the SDK answers 503
        _, session_id = min(idle)
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        self._last_request.pop(session_id, None)
        assert transport.idle_scope is not None  # a session_idle_timeout is always set
        transport.idle_scope.cancel()  # its server task ends and terminates the transport
        logger.info("session cap reached: closed the longest-idle session %s", session_id[:12])


class BearerTokenGate:
    """ASGI wrapper: a request without `Authorization: Bearer TOKEN` gets HTTP 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass an authorised request on; answer any other with 401."""
        scheme, _, given = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode("utf-8"), self._token
        ):
            await self.app(scope, receive, send)
            return
        response = JSONResponse(
            {"error": "invalid_token", "error_description": "send Authorization: Bearer TOKEN"},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer realm="ark"'},
        )
        await response(scope, receive, send)


def http_app(server: Server[Any], security: HttpSecurity) -> Starlette:
    """The Starlette app serving `server` at /mcp under `security`."""
    manager = BoundedSessionManager(
        app=server,
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=list(security.allowed_hosts),
            allowed_origins=list(security.allowed_origins),
        ),
        session_idle_timeout=security.session_idle_timeout,
        max_sessions=security.max_sessions,
    )
    endpoint: ASGIApp = StreamableHTTPASGIApp(manager)
    if security.token:
        endpoint = BearerTokenGate(endpoint, security.token)
    return Starlette(routes=[Route(MCP_PATH, endpoint=endpoint)], lifespan=lambda _: manager.run())
