"""The FastAPI application of `ark serve`: routes, one JSON error shape, the page and its gates.

Every error is one JSON object `{"error": KIND, "detail": MESSAGE}` whose message says how to
recover. The page (/), its assets and the API docs (/docs, Swagger UI vendored under
cli/serve/web/vendor: nothing loads from a CDN) are public; /api/ and /openapi.json need the bearer
token when one is set. Host and Origin are checked and bodies bounded on every request.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from cli.http_security import (
    BearerTokenGate,
    BodyLimit,
    BodyTooLargeError,
    HostOriginGate,
    HttpSecurity,
)
from cli.serve import routes_answer, routes_ask, routes_docs, routes_graph
from cli.serve.context import ServeContext
from cli.serve.state import ServeError
from graphs.errors import ArkError

PROTECTED = ("/api/", "/openapi.json")
SWAGGER = "/static/vendor/swagger-ui"


def web_dir() -> Path:
    """The folder of the page and its assets (cli/serve/web)."""
    return Path(str(resources.files("cli.serve") / "web"))


def _error(status: int, kind: str, detail: str) -> JSONResponse:
    return JSONResponse({"error": kind, "detail": detail}, status_code=status)


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for problem in error.errors():
        where = ".".join(str(p) for p in problem.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {problem.get('msg', 'invalid')}")
    return "bad request: " + "; ".join(parts) + " (see /docs for the expected fields)"


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(ServeError)
    async def serve_error(_: Request, error: ServeError) -> JSONResponse:
        return _error(error.status, type(error).__name__, str(error))

    @app.exception_handler(ArkError)
    async def ark_error(_: Request, error: ArkError) -> JSONResponse:
        return _error(400, type(error).__name__, str(error) or type(error).__name__)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
        return _error(422, "bad_request", _validation_message(error))

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, error: HTTPException) -> JSONResponse:
        return _error(error.status_code, "http_error", str(error.detail))

    @app.exception_handler(BodyTooLargeError)
    async def too_large(_: Request, error: BodyTooLargeError) -> JSONResponse:
        return _error(413, "too_large", str(error))


def create_app(ctx: ServeContext) -> FastAPI:
    """The application over `ctx` (without the security gates: see `secured`)."""
    app = FastAPI(
        title="ARK",
        summary="Agentic retrieval over knowledge-graph snapshots: ask, answer, explore, update.",
        docs_url=None,
        redoc_url=None,
    )
    _handlers(app)
    for module in (routes_graph, routes_ask, routes_answer, routes_docs):
        app.include_router(module.router(ctx))
    web = web_dir()
    app.mount("/static", StaticFiles(directory=web), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(web / "index.html", headers={"Cache-Control": "no-store"})

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="ARK API",
            swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER}/swagger-ui.css",
            swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
            swagger_ui_parameters={"validatorUrl": None, "persistAuthorization": True},
        )

    app.router.add_event_handler("shutdown", ctx.jobs.shutdown)
    return app


class _TokenOnPaths:
    """Send requests under PROTECTED through the token gate; the page and assets are public."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.gated = BearerTokenGate(app, token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        target = self.gated if path.startswith(PROTECTED) else self.app
        await target(scope, receive, send)


def secured(app: ASGIApp, security: HttpSecurity, ctx: ServeContext) -> ASGIApp:
    """`app` behind the body limits, the Host/Origin check and (when set) the token."""
    if security.token:
        app = _TokenOnPaths(app, security.token)
    app = HostOriginGate(app, security)
    limits = ctx.options
    return BodyLimit(app, limits.max_body_bytes, [("/api/snapshots/", limits.max_upload_bytes)])


def build(ctx: ServeContext, security: HttpSecurity) -> Any:
    """The whole served application: `create_app` behind `secured`."""
    return secured(create_app(ctx), security, ctx)
