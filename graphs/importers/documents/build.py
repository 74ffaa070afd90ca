"""Build a snapshot from a document collection: read, chunk, extract, resolve, assemble, write."""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from graphs.build.directory import clean_stale_temps
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import ConfigError, GraphImportError
from graphs.importers.documents.assemble import assemble
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.changes import document_changes
from graphs.importers.documents.chunker import ChunkConfig, chunk_document
from graphs.importers.documents.extract_run import ExtractRun, Progress, run_extraction
from graphs.importers.documents.extractor import ExtractionFailedError, Extractor
from graphs.importers.documents.model import Document, Passage
from graphs.importers.documents.reader import ReadConfig, ReadResult, read_documents
from graphs.importers.documents.resolve import Encode, ResolveConfig, resolve
from graphs.importers.documents.summary import MAX_LISTED, ExtractionSummary, write_summary
from graphs.importers.documents.vocabulary import (
    VocabularyConfig,
    build_vocabulary,
    canonical_label,
)

logger = logging.getLogger(__name__)
STAGING_MARK = ".extract-"
"""The staging directory beside the output: `.{out}.extract-{pid}-{random}`."""


@dataclass(frozen=True, kw_only=True)
class DocumentBuildConfig:
    """Everything `ark graph extract` decides, one field per concern.

    Attributes:
        read: File reading limits.
        chunk: Passage sizes.
        resolve: Entity merging.
        vocabulary: Relation labels -> edge types.
        options: Snapshot build options (overwrite, analyzer, ...).
        name: Snapshot name (default: the output directory's name).
        candidate_types: Node types that can be answers ([] = all).
        endpoint: The model endpoint's settings as recorded in extraction.json (URL credentials
            already redacted by the caller); None for an extractor that calls no endpoint.
    """

    read: ReadConfig = field(default_factory=ReadConfig)
    chunk: ChunkConfig = field(default_factory=ChunkConfig)
    resolve: ResolveConfig = field(default_factory=ResolveConfig)
    vocabulary: VocabularyConfig = field(default_factory=VocabularyConfig)
    options: BuildOptions = field(default_factory=BuildOptions)
    name: str | None = None
    candidate_types: tuple[str, ...] = ()
    endpoint: Mapping[str, Any] | None = None
    max_failed_share: float = 0.5
    """The largest share of passages whose extraction may fail for the build to go on
    (`--max-failed-share`); above it, or when every passage failed, nothing is written."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.max_failed_share < 1.0:
            raise ConfigError(
                f"max_failed_share must be at least 0 and below 1, got {self.max_failed_share}"
            )


def build_document_snapshot(
    paths: Sequence[Path],
    out: Path,
    *,
    extractor: Extractor,
    cache: ExtractionCache,
    config: DocumentBuildConfig | None = None,
    encode: Encode | None = None,
    progress: Progress | None = None,
    exclude: Collection[str] = (),
    previous: pa.Table | None = None,
) -> ExtractionSummary:
    """Read documents under `paths`, extract them through `cache`, and write a snapshot at `out`.

    The snapshot (with `extraction.json`) appears at `out` only when complete; an existing
    one is replaced only with `config.options.overwrite`.

    Args:
        paths: Folders or files to read.
        out: The snapshot directory to write.
        extractor: Reads mentions and triples from passages.
        cache: The extraction cache (passages already extracted are not extracted again).
        config: The build settings.
        encode: A sentence encoder for similarity merges (None: rule merges only).
        progress: Called with (passages done, total) during extraction.
        exclude: Document ids to leave out though the sources hold them (recorded in the
            summary, so an update from the same sources leaves them out again).
        previous: The node table of the snapshot this one replaces: the summary then says
            which documents were added, changed and removed (`update`).

    Raises:
        GraphImportError: `out` exists without overwrite, or no document could be read.
        ExtractorDownError: The extractor cannot work at all (no snapshot is written; the
            cache keeps every finished passage, so rerunning resumes).
    """
    config = config or DocumentBuildConfig()
    out = Path(out)
    _check_out(out, config.options)
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    read = read_documents(paths, config.read)
    if exclude:
        read = dataclasses.replace(
            read, documents=[d for d in read.documents if d.doc_id not in exclude]
        )
    passages = [p for document in read.documents for p in chunk_document(document, config.chunk)]
    seconds["read_chunk"] = _since(started)
    started = time.perf_counter()
    run = run_extraction(passages, extractor, cache, progress=progress)
    seconds["extract"] = _since(started)
    _check_failures(run, len(passages), config.max_failed_share)
    started = time.perf_counter()
    nodes, edges, graph = _graph(read.documents, passages, run, config, encode)
    seconds["resolve_assemble"] = _since(started)
    summary = _summary(read, passages, run, extractor, cache, config, seconds, graph)
    summary.excluded_documents = sorted(exclude)
    if previous is not None:
        summary.update = document_changes(previous, nodes)
    started = time.perf_counter()
    _write(nodes, edges, out, summary, config, paths)
    summary.seconds["snapshot"] = _since(started)
    write_summary(summary, out)
    return summary


def _graph(
    documents: Sequence[Document],
    passages: Sequence[Passage],
    run: ExtractRun,
    config: DocumentBuildConfig,
    encode: Encode | None,
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """Resolve entities, build the relation vocabulary and assemble the tables.

    Returns:
        (nodes, edges, the summary fields describing them).
    """
    extractions = run.extractions.values()
    names = [(m.name, m.type) for e in extractions for m in e.mentions]
    names += [(t.subject, t.subject_type) for e in extractions for t in e.triples]
    names += [(t.object, t.object_type) for e in extractions for t in e.triples]
    resolution = resolve(names, config.resolve, encode=encode)
    labels = [canonical_label(t.relation) for e in extractions for t in e.triples]
    vocabulary = build_vocabulary([label for label in labels if label], config.vocabulary)
    nodes, edges = assemble(documents, passages, run.extractions, resolution, vocabulary)
    entity_types = _entity_types(nodes)
    return (
        nodes,
        edges,
        {
            "entities": sum(entity_types.values()),
            "entities_by_type": entity_types,
            "merges": resolution.merges,
            "relation_types": _relation_types(edges, vocabulary.generic, set(vocabulary.types)),
            "generic_labels": vocabulary.generic_labels,
        },
    )


def _check_failures(run: ExtractRun, passages: int, max_share: float) -> None:
    """ExtractionFailedError when more than `max_share` of the passages failed (or all)."""
    failed = len(run.failures)
    if not failed or (failed < passages and failed <= max_share * passages):
        return
    reasons = "; ".join(
        f"{reason} ({n})" for reason, n in Counter(run.failures.values()).most_common(3)
    )
    raise ExtractionFailedError(
        f"extraction failed for {failed:,} of {passages:,} passages ({reasons}); no snapshot "
        "was written (one already there is kept) and every extracted passage is cached: fix "
        "the cause and rerun the same command, or accept more failures with --max-failed-share"
    )


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 3)


def _check_out(out: Path, options: BuildOptions) -> None:
    if out.exists() and not options.overwrite:
        raise GraphImportError(
            f"{out} already exists; pass --overwrite to replace it or pick another --out"
        )


def _entity_types(nodes: pa.Table) -> dict[str, int]:
    ids = nodes.column("id").to_pylist()
    kinds = nodes.column("type").to_pylist()
    return dict(Counter(k for i, k in zip(ids, kinds, strict=True) if i.startswith("entity:")))


def _relation_types(edges: pa.Table, generic: str, typed: set[str]) -> dict[str, int]:
    relations = edges.column("relation").to_pylist()
    return dict(Counter(r for r in relations if r in typed or r == generic).most_common())


def _summary(
    read: ReadResult,
    passages: Sequence[Passage],
    run: ExtractRun,
    extractor: Extractor,
    cache: ExtractionCache,
    config: DocumentBuildConfig,
    seconds: dict[str, float],
    graph: dict[str, Any],
) -> ExtractionSummary:
    extractions = run.extractions.values()
    return ExtractionSummary(
        documents=len(read.documents),
        passages=len(passages),
        skipped=dict(Counter(skip.reason for skip in read.skipped)),
        skipped_inputs=[asdict(skip) for skip in read.skipped[:MAX_LISTED]],
        extractor=extractor.name,
        model=extractor.model,
        prompt_version=extractor.prompt_version,
        cache=str(cache.path),
        cache_hits=run.cache_hits,
        extracted=run.extracted,
        failed=len(run.failures),
        failures=dict(Counter(run.failures.values())),
        failed_passages=[
            {"passage": pid, "reason": reason}
            for pid, reason in list(run.failures.items())[:MAX_LISTED]
        ],
        repaired=sum(1 for e in extractions if e.repaired),
        mentions=sum(len(e.mentions) for e in extractions),
        triples=sum(len(e.triples) for e in extractions),
        **graph,
        chunk={
            "max_tokens": config.chunk.max_tokens,
            "overlap_tokens": config.chunk.overlap_tokens,
        },
        seconds=seconds,
        endpoint=dict(config.endpoint) if config.endpoint is not None else None,
    )


def _write(
    nodes: pa.Table,
    edges: pa.Table,
    out: Path,
    summary: ExtractionSummary,
    config: DocumentBuildConfig,
    paths: Sequence[Path],
) -> None:
    """build_snapshot into a staging directory, add extraction.json, then swap it in."""
    clean_stale_temps(out, mark=STAGING_MARK)  # left by a killed extract
    staging = out.parent / f".{out.name}{STAGING_MARK}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    options = dataclasses.replace(config.options, overwrite=False, allow_empty_text=True)
    try:
        build_snapshot(
            nodes,
            edges,
            staging,
            name=config.name or out.name,
            candidate_types=config.candidate_types,
            sources=[str(path) for path in paths],
            options=options,
        )
        write_summary(summary, staging)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, out: Path) -> None:
    if not out.exists():
        staging.rename(out)
        return
    if not (out / "manifest.json").is_file() and any(out.iterdir()):
        raise GraphImportError(
            f"{out} exists and is not a snapshot; refusing to replace it even with --overwrite"
        )
    old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
    out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
