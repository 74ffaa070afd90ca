"""`ark graph extract`: build a snapshot from documents with the offline or the LLM extractor."""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from cli.flags.agent import EndpointFlags
from cli.flags.errors import FlagError
from cli.flags.executor import ExecutorFlags
from cli.flags.groups import with_flags
from cli.flags.imports import EXTRACT_WITHOUT, ImportFlags
from cli.flags.local_models import SpacyModelOpt
from cli.flags.paths import out_dir
from cli.guards import fail
from graphs.importers.documents.vocabulary import VocabularyConfig

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.models.openai import OpenAIChatModel
    from agent.models.structured import StructuredMode
    from evals.runs.ray_extraction import RayExtractor

ExtractorName = Literal["spacy", "llm"]


def register(graph_app: typer.Typer) -> None:
    """Add `extract` to the `graph` group."""
    graph_app.command("extract")(extract)


class _RateColumn(ProgressColumn):
    """Passages per second since the bar started."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f} passages/s" if speed else "- passages/s")


class _Bar:
    """The extraction progress bar (rate and ETA) as a `progress(done, total)` callback."""

    def __init__(self, console: Console) -> None:
        self._bar = Progress(
            TextColumn("extracting"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        self._task: Any = None

    def __enter__(self) -> Callable[[int, int], None]:
        self._bar.start()
        return self.update

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()

    def update(self, done: int, total: int) -> None:
        if self._task is None:
            self._task = self._bar.add_task("extract", total=max(total, 1))
        self._bar.update(self._task, completed=done)


@with_flags(without={"where": ("shard_size",), "import_flags": EXTRACT_WITHOUT})
def extract(
    docs: Annotated[list[Path], typer.Argument(help="Folders or .txt/.md/.jsonl/.pdf files.")],
    out: Annotated[
        Path, typer.Option("--out", help="Snapshot directory to create.", parser=out_dir)
    ],
    *,
    endpoint_flags: EndpointFlags,
    where: ExecutorFlags,
    import_flags: ImportFlags,
    extractor: Annotated[
        ExtractorName,
        typer.Option(help="spacy: offline NER + dependency triples; llm: a served model (-m)."),
    ] = "spacy",
    model: Annotated[
        str | None, typer.Option("-m", "--model", help="LLM extractor: openai:NAME or NAME.")
    ] = None,
    concurrency: Annotated[int, typer.Option(help="LLM requests in flight.")] = 4,
    rpm: Annotated[float | None, typer.Option(help="LLM requests per minute (no limit).")] = None,
    tools: Annotated[
        bool, typer.Option(help="Ask the LLM for a tool call (--no-tools: bare JSON text).")
    ] = True,
    structured: Annotated[
        str | None,
        typer.Option(
            "--structured",
            help="Ask for the JSON instead of a tool call: auto (the schema as response_format, "
            "enforced while decoding, where the server takes it; else the prompt) | schema | "
            "prompt.",
        ),
    ] = None,
    max_tokens: Annotated[int, typer.Option(help="LLM: tokens per reply.")] = 1024,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", min=0.1, hidden=True, help="Deprecated: --request-timeout."),
    ] = None,
    chunk_tokens: Annotated[int, typer.Option(help="Most tokens in a passage.")] = 200,
    chunk_overlap: Annotated[int, typer.Option(help="Tokens shared by passages.")] = 30,
    max_file_mb: Annotated[float, typer.Option(help="Skip larger files.")] = 16.0,
    follow_links: Annotated[
        bool,
        typer.Option(
            "--follow-links",
            help="Also read files in the folders that are links to places outside them "
            "(skipped by default, each listed with where it points).",
        ),
    ] = False,
    max_failed_share: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=0.99,
            help="Largest share of passages whose extraction may fail; above it (or when "
            "all fail) nothing is written and the command exits 2.",
        ),
    ] = 0.5,
    relation_types: Annotated[int, typer.Option(help="Labels that become edge types.")] = 24,
    relation_min: Annotated[int, typer.Option(help="Edges a label needs to be a type.")] = 3,
    aliases: Annotated[bool, typer.Option(help="Merge last names and acronyms.")] = True,
    encoder: Annotated[
        Path | None, typer.Option(help="Sentence-transformers dir: merge similar names too.")
    ] = None,
    merge_similarity: Annotated[float, typer.Option(help="Cosine for --encoder merges.")] = 0.92,
    spacy_model: SpacyModelOpt = None,
    cache: Annotated[
        Path | None, typer.Option(help="Extraction cache (~/.cache/ark/extractions.sqlite).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Snapshot name (default: --out's).")] = None,
    candidate_types: Annotated[
        str | None, typer.Option(help="Comma-separated node types that can be answers (all).")
    ] = None,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="Bring --out up to DOCS: extract only new and changed documents (the cache "
            "has the rest), drop removed ones with the entities only they mentioned, and swap "
            "the snapshot in whole (readers keep the old one); the same graph as a rebuild.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Build a snapshot from documents: passages, typed entities, relations with evidence."""
    from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
    from graphs.importers.documents.cache import ExtractionCache, default_cache_path
    from graphs.importers.documents.chunker import ChunkConfig
    from graphs.importers.documents.reader import ReadConfig
    from graphs.importers.documents.resolve import ResolveConfig
    from graphs.importers.documents.update import update_document_snapshot
    from graphs.importers.documents.vocabulary import VocabularyConfig

    console = Console(stderr=True)
    ray_worker: RayExtractor | None = None
    try:
        endpoint = _endpoint_config(model, endpoint_flags, max_tokens, timeout, console)
        _check_numbers(concurrency=concurrency, rpm=rpm, max_file_mb=max_file_mb)
        config = DocumentBuildConfig(
            read=ReadConfig(max_file_bytes=int(max_file_mb * 2**20), follow_links=follow_links),
            chunk=ChunkConfig(max_tokens=chunk_tokens, overlap_tokens=chunk_overlap),
            resolve=ResolveConfig(aliases=aliases, similarity=merge_similarity),
            vocabulary=VocabularyConfig(max_types=relation_types, min_count=relation_min),
            options=import_flags.options(),
            name=name,
            candidate_types=tuple(t.strip() for t in (candidate_types or "").split(",") if t),
            max_failed_share=max_failed_share,
        )
        # the extractor loads its models (spaCy: seconds): only once every flag is valid
        mode = _structured(structured)
        executor = where.config()
        make = functools.partial(
            worker_extractor, extractor, endpoint, concurrency, rpm, tools, mode,
            spacy_model, executor.endpoints,
        )  # fmt: skip
        worker, settings = _extractor(
            extractor, endpoint, concurrency, rpm, tools, mode, spacy_model=spacy_model
        )
        if executor.kind == "ray":
            from evals.runs.ray_extraction import RayExtractor

            worker = ray_worker = RayExtractor(make, worker, executor.workers)
        config = replace(config, endpoint=settings)
        encode = _encoder(encoder)
        started = time.perf_counter()
        build = update_document_snapshot if update else build_document_snapshot
        with ExtractionCache(cache or default_cache_path()) as store, _Bar(console) as progress:
            summary = build(
                docs, out, extractor=worker, cache=store, config=config, encode=encode,
                progress=progress,
            )  # fmt: skip
    finally:
        if ray_worker is not None:
            ray_worker.close()  # its workers, and the local Ray instance it started
    data = summary.model_dump()
    data["wall_seconds"] = round(time.perf_counter() - started, 2)
    stats = getattr(worker, "stats", None)
    if stats is not None:
        data["llm"] = vars(stats)
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    print(
        f"snapshot {out}: {summary.documents:,} documents, {summary.passages:,} passages, "
        f"{summary.entities:,} entities, {summary.triples:,} triples in {data['wall_seconds']}s"
    )
    if summary.update is not None:
        print(update_line(summary.update, summary.merges))
    print_extraction_info(data, Console())


def worker_extractor(
    kind: ExtractorName,
    endpoint: AgentConfig,
    concurrency: int,
    rpm: float | None,
    tools: bool,
    structured: StructuredMode | None,
    spacy_model: str | None,
    endpoints: tuple[str, ...],
    index: int,
) -> Any:
    """Ray worker `index`'s extractor: the driver's, on `endpoints[index % n]` when given."""
    if endpoints:
        endpoint = replace(endpoint, base_url=endpoints[index % len(endpoints)])
    worker, _ = _extractor(
        kind, endpoint, concurrency, rpm, tools, structured, spacy_model=spacy_model
    )
    return worker


def update_line(update: dict[str, Any], merges: dict[str, int]) -> str:
    """What `--update` changed, in one line."""
    counts = update["counts"]
    merged = ", ".join(f"{kind} {n}" for kind, n in merges.items() if n) or "none"
    return (
        f"update: {counts['added']} documents added, {counts['changed']} changed, "
        f"{counts['removed']} removed, {counts['unchanged']} unchanged; entities "
        f"+{counts['entities_added']} -{counts['entities_removed']}; names merged: {merged}"
    )


def _check_numbers(*, concurrency: int, rpm: float | None, max_file_mb: float) -> None:
    """FlagError for a number flag no extraction can run with (before any model loads)."""
    if concurrency < 1:
        raise FlagError(f"--concurrency must be at least 1 (requests in flight), got {concurrency}")
    if rpm is not None and not (math.isfinite(rpm) and rpm > 0):
        raise FlagError(f"--rpm must be a positive number of requests a minute, got {rpm}; "
                        "leave it out for no limit")  # fmt: skip
    if not (math.isfinite(max_file_mb) and max_file_mb > 0):
        raise FlagError(f"--max-file-mb must be a positive number of megabytes, got {max_file_mb}")


def _endpoint_config(
    model: str | None,
    flags: EndpointFlags,
    max_tokens: int,
    timeout: float | None,
    console: Console,
) -> AgentConfig:
    """The LLM extractor's model and endpoint as an AgentConfig (AgentConfig's defaults)."""
    from agent.config import AgentConfig
    from agent.models.registry import resolve_model_spec

    request_timeout = flags.request_timeout
    if timeout is not None:  # the old name of --request-timeout, kept working
        if request_timeout is not None and request_timeout != timeout:
            raise FlagError("--timeout is the old name of --request-timeout; give only that")
        console.print("warning: --timeout is deprecated; use --request-timeout", style="yellow")
        request_timeout = timeout
    settings = flags.endpoint()
    if request_timeout is not None:
        settings["request_timeout_s"] = request_timeout
    spec = resolve_model_spec(model, default="")
    return AgentConfig(model=spec or "rules", max_tokens=max_tokens, **settings)


def _structured(value: str | None) -> StructuredMode | None:
    from agent.models.structured import StructuredMode

    if value is None:
        return None
    try:
        return StructuredMode(value)
    except ValueError:
        fail(f"unknown --structured {value!r}; choose one of: auto, schema, prompt")


def _extractor(
    kind: ExtractorName,
    endpoint: AgentConfig,
    concurrency: int,
    rpm: float | None,
    tools: bool,
    structured: StructuredMode | None = None,
    *,
    spacy_model: str | None = None,
) -> tuple[Any, dict[str, Any] | None]:
    """The extractor, and the endpoint settings to record (None: no endpoint)."""
    if kind == "spacy":
        from graphs.importers.documents.spacy_extractor import SpacyExtractor

        return (SpacyExtractor(model=spacy_model) if spacy_model else SpacyExtractor()), None
    from agent.extract.llm import LLMExtractConfig, LLMExtractor
    from agent.models.base import ModelError
    from agent.models.openai import OpenAIChatModel

    spec = endpoint.model
    if spec == "rules" or spec.startswith("hf:"):
        raise ModelError(
            "--extractor llm needs -m openai:NAME (or NAME) served by an OpenAI-compatible "
            "endpoint; point --base-url at it (e.g. a local llama-cpp-python server)"
        )
    chat = OpenAIChatModel.from_config(endpoint, spec.removeprefix("openai:"))
    config = LLMExtractConfig(
        concurrency=concurrency, requests_per_minute=rpm, use_tools=tools, structured=structured
    )
    return LLMExtractor(chat, config), endpoint_record(chat)


def endpoint_record(chat: OpenAIChatModel) -> dict[str, Any]:
    """The endpoint settings of `chat` as stored (the URL it calls, credentials redacted)."""
    return {
        "base_url": chat.base_url,  # the adapter keeps it redacted
        "request_timeout_s": chat.timeout_s,
        "max_retries": chat.retry.max_retries,
        "call_deadline_s": chat.call_deadline_s,
    }


def _encoder(path: Path | None) -> Callable[[Any], Any] | None:
    if path is None:
        return None
    from graphs.dense.encoder import TextEncoder

    return TextEncoder.load(path).encode


def print_extraction_info(summary: dict[str, Any], console: Console) -> None:
    """The extraction part of `ark graph info` (and of `ark graph extract`'s report)."""
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")
    skipped = summary["skipped"]
    rows: tuple[tuple[str, str], ...] = (
        ("documents", f"{summary['documents']:,}"),
        ("passages", f"{summary['passages']:,} (chunks of {summary['chunk']['max_tokens']} "
                     f"tokens, {summary['chunk']['overlap_tokens']} overlap)"),
        ("skipped inputs", ", ".join(f"{k}: {v}" for k, v in skipped.items()) or "none"),
        ("extractor", f"{summary['extractor']} ({summary['model']}, {summary['prompt_version']})"),
        ("extracted", f"{summary['extracted']:,} new, {summary['cache_hits']:,} cache hits "
                      f"({summary['cache']})"),
        ("failed", f"{summary['failed']:,} (retried next run)" + "".join(
            f"\n  {reason}: {count}" for reason, count in summary["failures"].items())),
        ("repaired replies", f"{summary['repaired']:,}"),
        ("mentions, triples", f"{summary['mentions']:,}, {summary['triples']:,}"),
        ("entities", f"{summary['entities']:,}"),
        ("merges", ", ".join(f"{k} {v}" for k, v in summary["merges"].items())),
        ("generic labels", f"{summary['generic_labels']:,} labels kept as text under the "
                           "generic type"),
        ("generic edges", _generic_share(summary["relation_types"])),
    )  # fmt: skip
    endpoint = summary.get("endpoint")  # absent before ARK recorded it, and for spaCy
    if isinstance(endpoint, dict):
        rows += (("endpoint", _endpoint_line(endpoint)),)
    for label, value in rows:
        head.add_row(label, Text(value))
    console.print(head, highlight=False)
    types = Table("entity type", "count", title="Entities by type")
    for kind, count in sorted(summary["entities_by_type"].items(), key=lambda kv: -kv[1]):
        types.add_row(kind, f"{count:,}")
    relations = Table("relation type", "edges", title="Relations by type")
    for kind, count in summary["relation_types"].items():
        relations.add_row(kind, f"{count:,}")
    console.print(types)
    console.print(relations)


def _generic_share(relation_types: dict[str, int]) -> str:
    """How many relation edges fell to the generic type, and why an edge does."""
    generic = VocabularyConfig().generic
    total = sum(relation_types.values())
    count = relation_types.get(generic, 0)
    share = f"{count / total:.0%}" if total else "0%"
    return (
        f"{count:,} of {total:,} ({share}) are `{generic}`: their label (kept in the fact's text) "
        "was too rare to become an edge type; --relation-types and --relation-min set how many "
        "labels do"
    )


def _endpoint_line(endpoint: dict[str, Any]) -> str:
    deadline = endpoint.get("call_deadline_s")
    return (
        f"{endpoint.get('base_url')} (request timeout {endpoint.get('request_timeout_s')} s, "
        f"{endpoint.get('max_retries')} retries, call deadline "
        f"{'none' if deadline is None else f'{deadline} s'})"
    )
