"""The documents of a served document snapshot: list them, and add or remove one as a job.

A snapshot's documents are its recorded sources (manifest) less its excluded ids
(extraction.json). An upload is kept in the server's uploads folder for that snapshot, a
source like any other; removing an uploaded document deletes its file, removing any other
document excludes its id. Each change is an incremental update (graphs/importers/documents/
update.py): only the new document is extracted, and the new snapshot is swapped in whole.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cli.serve.context import ServeContext
from cli.serve.jobs import Job
from cli.serve.state import ConflictError, ServedGraph, ServeError
from graphs.importers.documents.cache import ExtractionCache, default_cache_path
from graphs.importers.documents.schema import DOCUMENT, PASSAGE
from graphs.importers.documents.update import recorded_build, update_document_snapshot
from graphs.layout import DOCUMENT_SUFFIXES

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._ -]+")
_DOC = "doc:"


def list_documents(served: ServedGraph) -> list[dict[str, Any]]:
    """The documents of `served`: id, title, source and passages."""
    rows = served.snapshot.node_columns(["id", "type", "name", "document"])
    counts: dict[str, int] = {}
    for kind, document in zip(rows["type"], rows["document"], strict=True):
        if kind == PASSAGE:
            counts[document] = counts.get(document, 0) + 1
    return [
        {"id": node_id.removeprefix(_DOC), "node": node_id, "title": name,
         "passages": counts.get(node_id, 0)}
        for node_id, kind, name in zip(rows["id"], rows["type"], rows["name"], strict=True)
        if kind == DOCUMENT
    ]  # fmt: skip


def uploads_folder(ctx: ServeContext, label: str) -> Path:
    """Where uploads to snapshot `label` are kept (absolute)."""
    return (ctx.options.uploads_dir / label).resolve()


def upload_name(filename: str | None) -> str:
    """A safe file name for an upload, keeping its suffix.

    Raises:
        ServeError: no name, or a kind of file documents cannot be read from.
    """
    name = _SAFE_NAME.sub("-", Path(filename or "").name).strip(" .-")
    if not name or Path(name).suffix.lower() not in DOCUMENT_SUFFIXES:
        raise ServeError(f"upload a file named *{', *'.join(DOCUMENT_SUFFIXES)} (got {filename!r})")
    return name


def allowed_path(ctx: ServeContext, given: str) -> Path:
    """A server-side path to add, when it lies under one of the server's --doc-root folders.

    Raises:
        ServeError: no --doc-root was given, or the path lies outside every one.
    """
    roots = [root.resolve() for root in ctx.options.doc_roots]
    path = Path(given).expanduser().resolve()
    if not roots:
        raise ServeError(
            "adding by server-side path is off: start ark serve with --doc-root DIR to allow "
            "files under DIR, or upload the file"
        )
    if not any(path.is_relative_to(root) for root in roots):
        raise ServeError(
            f"{given} is outside the --doc-root folders ({', '.join(map(str, roots))})"
        )
    if not path.exists():
        raise ServeError(f"{given} does not exist on the server")
    return path


def check_new(served: ServedGraph, doc_id: str, uploads: Path) -> None:
    """Refuse an upload whose id names a document that is not itself an upload.

    Raises:
        ConflictError: a document of that id came from another source.
    """
    ids = {row["id"] for row in list_documents(served)}
    if doc_id in ids and not (uploads / doc_id).is_file():
        raise ConflictError(
            f"a document {doc_id!r} is already in {served.label} from another source; rename "
            "the file, or delete that document first"
        )


def submit_change(
    ctx: ServeContext,
    label: str,
    kind: str,
    *,
    source: Path | None = None,
    added: str | None = None,
    remove: str | None = None,
) -> Job:
    """Queue the update of `label` that adds `source` (document `added`) or removes `remove`."""
    served = ctx.graphs.get(label)
    if not served.is_documents:
        raise ServeError(
            f"{label} was not built from documents: add documents to a snapshot written by "
            "`ark graph extract`"
        )
    job = Job(kind=kind, snapshot=label)
    return ctx.jobs.submit(job, lambda running: _update(ctx, label, running, source, added, remove))


def _update(
    ctx: ServeContext,
    label: str,
    job: Job,
    source: Path | None,
    added: str | None,
    remove: str | None,
) -> dict[str, Any]:
    with ctx.graphs.writers[label]:
        served = ctx.graphs.get(label)
        recorded = recorded_build(served.path)
        extractor = ctx.deps.extractor()
        if recorded.extractor and recorded.extractor != extractor.name:
            raise ConflictError(
                f"{label} was extracted with {recorded.extractor!r}, this server extracts with "
                f"{extractor.name!r}: update it with `ark graph extract ... --update` and the "
                "flags it was built with"
            )
        sources = [path.resolve() for path in recorded.sources]
        excluded = set(recorded.excluded)
        if source is not None and source not in sources:
            sources.append(source)
        excluded.discard(added or "")
        if remove is not None:
            _remove(ctx, label, served, remove, excluded)
        with ExtractionCache(default_cache_path()) as cache:
            summary = update_document_snapshot(
                sources, served.path, extractor=extractor, cache=cache, config=recorded.config,
                progress=job.progress, exclude=excluded,
            )  # fmt: skip
        ctx.graphs.reopen(label)
    return summary.model_dump(include={"documents", "passages", "entities", "extracted",
                                       "cache_hits", "merges", "update"})  # fmt: skip


def _remove(
    ctx: ServeContext, label: str, served: ServedGraph, doc_id: str, excluded: set[str]
) -> None:
    documents = {row["id"] for row in list_documents(served)}
    if doc_id not in documents:
        raise ServeError(f"no document {doc_id!r} in {label} (GET its documents to list them)")
    if len(documents) == 1:
        raise ConflictError(f"{doc_id!r} is the last document of {label}; a snapshot needs one")
    uploaded = uploads_folder(ctx, label) / doc_id
    if uploaded.is_file():
        uploaded.unlink()
    else:
        excluded.add(doc_id)
