"""`ark serve`: the web app and REST API over snapshots (FastAPI on uvicorn, the `serve` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.guards import fail
from cli.listening import check_listen, labelled_snapshots

TOKEN_ENV_VAR = "ARK_SERVE_TOKEN"
_SERVE_MODULES = frozenset({"fastapi", "uvicorn", "starlette", "multipart", "python_multipart"})


def register(app: typer.Typer) -> None:
    """Add `ark serve`."""
    app.command("serve")(serve)


def serve(
    snapshots: Annotated[
        list[str],
        typer.Argument(
            help="Snapshot directories; LABEL=DIR names one (default label: the folder name).",
            show_default=False,
            metavar="SNAPSHOT",
        ),
    ],
    host: Annotated[str, typer.Option(help="Interface (localhost unless told).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV_VAR,
            help="Bearer token API clients must send (Authorization: Bearer TOKEN); required "
            "for a --host beyond loopback. The page asks for it once.",
            show_default=False,
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(help="A Host name clients use (repeatable); its Origins are allowed too."),
    ] = None,
    allow_origin: Annotated[
        list[str] | None, typer.Option(help="A browser Origin to accept (repeatable).")
    ] = None,
    runs: Annotated[
        Path, typer.Option(help="Where asks are recorded (`ark eval report` reads them).")
    ] = Path("ark-serve-runs"),
    uploads: Annotated[
        Path, typer.Option(help="Where uploaded documents are kept (sources of their snapshot).")
    ] = Path("ark-serve-uploads"),
    doc_root: Annotated[
        list[Path] | None,
        typer.Option(help="A folder whose files may be added by server path (repeatable)."),
    ] = None,
    max_upload_mb: Annotated[float, typer.Option(min=0.01, help="Largest upload.")] = 16.0,
    encoder: Annotated[
        str | None, typer.Option(help="Sentence-transformers dir for answers (MiniLM).")
    ] = None,
) -> None:
    """Serve SNAPSHOTs: a web page at /, a REST API under /api/, its docs at /docs."""
    try:
        import uvicorn

        from cli import answerers
        from cli.http_security import http_security, is_loopback
        from cli.serve import app as serve_app
        from cli.serve import state as serve_state
        from cli.serve.context import ServeContext
    except ImportError as error:
        if (error.name or "").split(".")[0] not in _SERVE_MODULES:
            raise
        fail(f"ark serve needs the serve extra: pip install -e '.[serve]' ({error})")
    security = http_security(
        host, token=token, allow_hosts=allow_host or (), allow_origins=allow_origin or (),
        token_env=TOKEN_ENV_VAR,
    )  # fmt: skip
    options = serve_state.ServeOptions(
        runs_dir=runs.resolve(), uploads_dir=uploads.resolve(),
        doc_roots=tuple(root.resolve() for root in doc_root or ()),
        max_upload_bytes=int(max_upload_mb * 2**20),
    )  # fmt: skip
    graphs = serve_state.GraphRegistry.open(labelled_snapshots(snapshots, "ark serve"))
    ctx = ServeContext(graphs, options, answerers.default_deps(encoder))
    check_listen(host, port)
    if not is_loopback(host):
        typer.echo(
            f"warning: listening on {host}, not localhost: anyone holding the token who can "
            "reach it can ask, run models and add documents; put TLS in front.",
            err=True,
        )
    url_host = f"[{host}]" if ":" in host else host
    typer.echo(f"ark serve: {', '.join(graphs.labels())} at http://{url_host}:{port}/ "
               f"(API docs at /docs)", err=True)  # fmt: skip
    app = serve_app.build(ctx, security)
    uvicorn.run(app, host=host, port=port, log_level="warning")
