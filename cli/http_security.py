"""Who may reach ARK's HTTP servers (`ark mcp --transport http`, `ark serve`): shared gates.

Loopback by default; a bearer token required beyond loopback; Host and Origin checked against
allow-lists on every interface (DNS rebinding); request bodies bounded. `ark mcp` hands the
Host/Origin lists to the MCP SDK; `ark serve` wraps its app in the ASGI gates below.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphs.errors import ConfigError

TOKEN_ENV_VAR = "ARK_MCP_TOKEN"
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
    token_env: str = TOKEN_ENV_VAR,
) -> HttpSecurity:
    """The security settings for a server bound to `host`.

    Loopback names, the bound address (unless a wildcard) and each of `allow_hosts` are
    accepted as Host (any port), and as Origin over http and https, plus `allow_origins`.

    Raises:
        ConfigError: `host` is beyond loopback and no token is given, or a limit is not
            positive (the message says which flag to pass).
    """
    if not token and not is_loopback(host):
        raise ConfigError(
            f"listening on {host} (beyond this machine) needs a bearer token: pass --token "
            f"TOKEN or set {token_env}; clients send 'Authorization: Bearer TOKEN'"
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


def _allowed(value: str, patterns: Sequence[str]) -> bool:
    """Whether `value` matches a pattern exactly or a ``NAME:*`` / ``SCHEME://NAME:*`` one."""
    for pattern in patterns:
        if pattern.endswith(":*"):
            stem = pattern[:-2]
            if value == stem or (value.startswith(stem + ":") and value[len(stem) + 1 :].isdigit()):
                return True
        elif value == pattern:
            return True
    return False


async def _refuse(
    scope: Scope, receive: Receive, send: Send, status: int, error: str, detail: str
) -> None:
    response = JSONResponse({"error": error, "detail": detail}, status_code=status)
    await response(scope, receive, send)


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


class HostOriginGate:
    """ASGI wrapper: a Host or Origin outside `security`'s allow-lists gets HTTP 421 / 403.

    A request without Origin is allowed (only browsers send one); Host is always checked, so a
    page on another site that resolves its own name to this machine (DNS rebinding) is refused.
    """

    def __init__(self, app: ASGIApp, security: HttpSecurity) -> None:
        self.app = app
        self._hosts = security.allowed_hosts
        self._origins = security.allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a request from an allowed Host and Origin on; refuse any other."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not _allowed(host, self._hosts):
            detail = f"Host {host!r} is not accepted; start the server with --allow-host NAME"
            await _refuse(scope, receive, send, 421, "bad_host", detail)
            return
        origin = headers.get("origin")
        if origin is not None and not _allowed(origin.rstrip("/"), self._origins):
            detail = f"Origin {origin!r} is not accepted; start the server with --allow-origin URL"
            await _refuse(scope, receive, send, 403, "bad_origin", detail)
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """ASGI wrapper: a request body over its limit gets HTTP 413 (declared or streamed).

    Args:
        app: The wrapped application.
        default_bytes: The limit of every request.
        by_prefix: Larger (or smaller) limits for paths starting with a prefix, e.g. uploads.
    """

    def __init__(
        self, app: ASGIApp, default_bytes: int, by_prefix: Sequence[tuple[str, int]] = ()
    ) -> None:
        self.app = app
        self._default = default_bytes
        self._by_prefix = tuple(by_prefix)

    def limit(self, path: str) -> int:
        """The body limit of a request to `path`."""
        for prefix, limit in self._by_prefix:
            if path.startswith(prefix):
                return limit
        return self._default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a body declared or found to be over the limit; pass any other on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope.get("path", ""))
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _refuse(scope, receive, send, 413, "too_large", _too_large(limit))
            return
        received = 0

        async def bounded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLargeError(_too_large(limit))
            return message

        try:
            await self.app(scope, bounded, send)
        except BodyTooLargeError as error:
            await _refuse(scope, receive, send, 413, "too_large", str(error))


class BodyTooLargeError(ValueError):
    """A streamed request body went over its limit."""


def _too_large(limit: int) -> str:
    return f"request body over {limit:,} bytes; send less (uploads: see --max-upload-mb)"
