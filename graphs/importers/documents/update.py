"""Incremental document snapshots: rebuild from the documents now present, one writer at a time.

Passages whose text is unchanged hit the extraction cache, so only new and changed documents
are extracted; entities, relation types and the index are rebuilt from every extraction, so
the result equals a full rebuild of the same documents (no orphan entity, fact or passage of
a removed document is left). The new snapshot is swapped in whole: a reader that opened the
old one keeps its open files.
"""

from __future__ import annotations

import dataclasses
import fcntl
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.changes import no_nodes
from graphs.importers.documents.chunker import ChunkConfig
from graphs.importers.documents.extract_run import Progress
from graphs.importers.documents.extractor import Extractor
from graphs.importers.documents.resolve import Encode
from graphs.importers.documents.summary import ExtractionSummary, read_summary
from graphs.layout import NODES_FILE
from graphs.manifest import read_manifest

_NODE_COLUMNS = ["id", "type", "name", "text", "document"]


class WriterBusyError(GraphImportError):
    """Another process or job is writing the same snapshot."""


@contextmanager
def writer_lock(out: Path) -> Iterator[None]:
    """Hold the one writer's lock of snapshot `out` (a lock file beside it) or fail at once.

    Raises:
        WriterBusyError: another writer holds it (the message says what to do).
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with (out.parent / f".{out.name}.writer.lock").open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WriterBusyError(
                f"{out} is being updated by another writer (`ark graph extract --update` or "
                "`ark serve`); wait for it to finish, then retry"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def previous_nodes(out: Path) -> pa.Table:
    """The node table of the document snapshot at `out` (empty when there is none yet).

    Raises:
        GraphImportError: `out` holds a snapshot that was not built from documents.
    """
    out = Path(out)
    if not (out / NODES_FILE).is_file():
        return no_nodes()
    if read_summary(out) is None:
        raise GraphImportError(
            f"{out} was not built from documents (no extraction.json); --update needs a "
            "snapshot written by `ark graph extract`"
        )
    return pq.read_table(out / NODES_FILE, columns=_NODE_COLUMNS)


def update_document_snapshot(
    paths: Sequence[Path],
    out: Path,
    *,
    extractor: Extractor,
    cache: ExtractionCache,
    config: DocumentBuildConfig | None = None,
    encode: Encode | None = None,
    progress: Progress | None = None,
    exclude: Collection[str] | None = None,
) -> ExtractionSummary:
    """Bring the document snapshot at `out` up to the documents under `paths`.

    Args:
        paths: Every source of the snapshot now (documents no longer there are removed).
        out: The snapshot to update (created when missing).
        extractor: Reads mentions and triples from new and changed passages.
        cache: The extraction cache (unchanged passages are read from it).
        config: The build settings (those the snapshot was built with).
        encode: A sentence encoder for similarity merges (None: rule merges only).
        progress: Called with (passages done, total) during extraction.
        exclude: Document ids to leave out; None keeps the ones the snapshot recorded.

    Returns:
        The summary; its `update` says what was added, changed and removed.

    Raises:
        WriterBusyError: another writer is updating `out`.
        GraphImportError: `out` was not built from documents, or nothing could be read.
    """
    config = config or DocumentBuildConfig()
    options = dataclasses.replace(config.options, overwrite=True)
    with writer_lock(out):
        previous = previous_nodes(out)
        if exclude is None:
            exclude = (read_summary(out) or {}).get("excluded_documents", [])
        return build_document_snapshot(
            paths, out, extractor=extractor, cache=cache,
            config=dataclasses.replace(config, options=options), encode=encode,
            progress=progress, exclude=frozenset(exclude), previous=previous,
        )  # fmt: skip


@dataclasses.dataclass(frozen=True)
class RecordedBuild:
    """How a document snapshot was built, as its manifest and extraction.json record it."""

    sources: list[Path]
    excluded: list[str]
    config: DocumentBuildConfig
    extractor: str


def recorded_build(out: Path) -> RecordedBuild:
    """The sources, exclusions and settings to update `out` with the build it came from.

    Raises:
        GraphImportError: `out` was not built from documents.
    """
    summary: dict[str, Any] | None = read_summary(out)
    if summary is None:
        raise GraphImportError(
            f"{out} was not built from documents; documents can be added only to a snapshot "
            "written by `ark graph extract`"
        )
    manifest = read_manifest(Path(out))
    chunk = summary.get("chunk") or {}
    config = DocumentBuildConfig(
        chunk=ChunkConfig(**chunk) if chunk else ChunkConfig(),
        name=manifest.name,
        candidate_types=tuple(manifest.candidate_types),
        options=BuildOptions(analyzer=manifest.analyzer),
    )
    return RecordedBuild(
        sources=[Path(source) for source in manifest.sources],
        excluded=list(summary.get("excluded_documents", [])),
        config=config,
        extractor=str(summary.get("extractor", "")),
    )
