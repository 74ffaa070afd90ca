"""`ark serve` document routes: list, add (upload or server path) and delete, as jobs to poll."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, UploadFile

from cli.serve.context import ServeContext
from cli.serve.documents import (
    allowed_path,
    check_new,
    list_documents,
    submit_change,
    upload_name,
    uploads_folder,
)
from cli.serve.state import NotFoundError, ServeError

_CHUNK = 1 << 20


def router(ctx: ServeContext) -> APIRouter:
    """The document and job routes over `ctx`."""
    api = APIRouter(prefix="/api", tags=["documents"])

    @api.get("/snapshots/{label}/documents", summary="The documents of a document snapshot")
    def documents(label: str) -> list[dict[str, Any]]:
        served = ctx.graphs.get(label)
        if not served.is_documents:
            raise ServeError(f"{label} was not built from documents; it has no documents")
        return list_documents(served)

    @api.post(
        "/snapshots/{label}/documents",
        status_code=202,
        summary="Add a document (multipart `file`, or `path` under a --doc-root) as a job",
    )
    async def add(
        label: str,
        file: Annotated[UploadFile | None, File(description="The document to upload.")] = None,
        path: Annotated[str | None, Form(description="A server path under --doc-root.")] = None,
    ) -> dict[str, Any]:
        served = ctx.graphs.get(label)
        if (file is None) == (path is None):
            raise ServeError("send either a multipart `file` or a form field `path`, not both")
        if file is None:
            source = allowed_path(ctx, str(path))
            return submit_change(ctx, label, "add", source=source, added=source.name).view()
        name = upload_name(file.filename)
        folder = uploads_folder(ctx, label)
        check_new(served, name, folder)
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{name}.part"
        with partial.open("wb") as handle:
            while chunk := await file.read(_CHUNK):
                handle.write(chunk)
        partial.replace(folder / name)
        return submit_change(ctx, label, "add", source=folder, added=name).view()

    @api.delete(
        "/snapshots/{label}/documents", status_code=202, summary="Remove a document as a job"
    )
    def delete(
        label: str, id: Annotated[str, Query(min_length=1, description="The document id.")]
    ) -> dict[str, Any]:
        return submit_change(ctx, label, "delete", remove=id).view()

    @api.get("/jobs", summary="Document jobs, oldest first")
    def jobs() -> list[dict[str, Any]]:
        return [job.view() for job in ctx.jobs.all()]

    @api.get("/jobs/{job_id}", summary="One job: state, progress, and its summary when done")
    def job(job_id: str) -> dict[str, Any]:
        found = ctx.jobs.get(job_id)
        if found is None:
            raise NotFoundError(f"no job {job_id!r} (GET /api/jobs lists the kept ones)")
        return found.view()

    return api
