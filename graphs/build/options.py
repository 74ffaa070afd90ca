"""BuildOptions: how every importer writes its snapshot and treats imperfect input rows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graphs.bm25.tokenize import check_analyzer
from graphs.build.stream.progress import Progress, no_progress
from graphs.errors import GraphError, GraphImportError

STREAMING_MIN_EDGES = 1_000_000
"""From this many input edges `build_snapshot` takes the bounded-memory build (below it the
in-memory build is faster; both write the same files)."""

STREAMING_MIN_FILE_BYTES = 32 << 20
"""The same threshold for an import from files, by the edges file's size (~1M edges of CSV)."""

DEFAULT_BUILD_ANALYZER = "english"
"""The analyzer a snapshot is built with unless one is chosen: stopwords dropped, words kept
as written. Measured against ``english-stem`` (BENCHMARKS.md, "Search analyzers"): as good
or better on every real set's questions as written (HotpotQA top-1 0.421 vs 0.368, products
text-only 0.786 vs 0.743, equal on ICD-10-CM and geography; on two graphs the project never
saw, 0.975 vs 0.950 and 0.900 vs 0.850) and no slower; stemming wins only when a question's
nouns are inflected unlike the text (ICD-10-CM 0.805 vs 0.602), and linking a question to the
graph's names matches plurals anyway (the name index keeps each name's stems,
graphs/snapshot/names.py).
`--analyzer english-stem` stems the index."""


@dataclass(frozen=True, kw_only=True)
class BuildOptions:
    """Options shared by every importer (tabular, STaRK, networkx, synth) and `build_snapshot`.

    The CLI maps its import flags onto one of these in one place (cli/flags/imports.py);
    settings of the snapshot build itself that any importer may choose (such as the BM25
    analyzer) belong here too.

    Attributes:
        overwrite: Replace an existing snapshot at the output directory (--overwrite).
        skip_invalid: Skip invalid rows instead of failing; every skipped row is written to
            `report_path` and counted in the manifest (--skip-invalid).
        report_path: Where the skipped rows go (.csv, or .jsonl for JSON lines); None writes
            `OUT/skipped_rows.csv` (--report).
        allow_empty_text: Use a node's name as its text when the text is empty, instead of
            treating the node as invalid (--allow-empty-text).
        strict: Treat exact duplicate edges (same src, dst, relation) and self-loops as
            invalid rows. By default a duplicate is collapsed into one edge and a self-loop is
            kept, both counted in the import summary and the manifest (--strict).
        analyzer: How the BM25 index analyses node text and queries, one of
            `graphs.bm25.tokenize.ANALYZERS` (--analyzer): `english` (the default:
            stopwords dropped, no stemming, :data:`DEFAULT_BUILD_ANALYZER`), `english-stem`
            (stopwords dropped, Snowball stemming) or `plain`; recorded in the manifest, and a
            snapshot is always searched with the analyzer it was built with.
        memory_limit: Bytes the bounded-memory build may hold (--memory-limit); None is 25%
            of the machine's memory, capped at 16 GiB. DuckDB (then the BM25 builder) gets
            half of it for sorts, joins and group-bys and spills the rest to disk beside the
            output.
        streaming: True always takes the bounded-memory build, False never; None (the
            default) takes it from STREAMING_MIN_EDGES input edges, or whenever
            `memory_limit` is set. Both builds write the same files.
        progress: Called as each phase of the bounded-memory build advances.

    Raises:
        GraphImportError: An unknown analyzer (checked here, before any import work).
    """

    overwrite: bool = False
    skip_invalid: bool = False
    report_path: Path | None = None
    allow_empty_text: bool = False
    strict: bool = False
    analyzer: str = DEFAULT_BUILD_ANALYZER
    memory_limit: int | None = None
    streaming: bool | None = None
    progress: Progress = no_progress

    def __post_init__(self) -> None:
        try:
            check_analyzer(self.analyzer)
        except GraphError as error:
            raise GraphImportError(f"{error} (--analyzer; Python: analyzer=...)") from error


def use_streaming(options: BuildOptions, num_edges: int) -> bool:
    """Whether a build of `num_edges` input edges with `options` takes the bounded-memory path."""
    if options.streaming is not None:
        return options.streaming
    return options.memory_limit is not None or num_edges >= STREAMING_MIN_EDGES


def streams_files(options: BuildOptions, edges_file: Path) -> bool:
    """Whether an import from files (edges in `edges_file`) takes the bounded-memory path."""
    if options.streaming is not None:
        return options.streaming
    size = edges_file.stat().st_size if edges_file.is_file() else 0
    return options.memory_limit is not None or size >= STREAMING_MIN_FILE_BYTES
