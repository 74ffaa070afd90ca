"""`ark mcp --transport http`: a bearer-token gate, Host/Origin allow-lists and bounded sessions.

The MCP transport specification requires servers to validate Origin (DNS rebinding) and
recommends authentication; the SDK validates Host and Origin only for loopback binds and
refuses new sessions with HTTP 503 once its cap is reached. Here validation is on for every
interface, a token can be required, and at the cap the oldest idle session makes room.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from cli.http_security import (
    TOKEN_ENV_VAR,
    BearerTokenGate,
    HttpSecurity,
    http_security,
    is_loopback,
)

logger = logging.getLogger(__name__)

MCP_PATH = "/mcp"
__all__ = [
    "TOKEN_ENV_VAR", "BearerTokenGate", "BoundedSessionManager", "HttpSecurity", "http_app",
    "http_security", "is_loopback",
]  # fmt: skip


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, closing the longest-idle session to admit one at the cap.

    (The SDK itself answers 503 until a session expires, up to its idle timeout.) A session
    whose client holds a stream open (GET) is never idle to the SDK; one that has sent no
    request for `session_idle_timeout` is idle here all the same, so clients that only hold
    streams cannot keep new sessions out: at the cap, the session quiet the longest makes room.

    Relies on the SDK's session table (`_server_instances`) and admission hook
    (`_admit_session`), pinned by `mcp>=2.3,<3`; tests/cli/mcp/test_mcp_server.py fails if
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
