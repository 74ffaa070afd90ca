"""The import flags, declared once (ImportFlags), mapped onto one BuildOptions; the summary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from cli.flags.groups import flag_group
from graphs.build.options import DEFAULT_BUILD_ANALYZER, BuildOptions
from graphs.build.stream.budget import (
    default_memory_limit,
    format_size,
    parse_size,
    peak_child_rss,
    peak_rss,
)
from graphs.build.stream.progress import Progress, no_progress
from graphs.layout import REPORT_FILE
from graphs.manifest import Manifest

OverwriteOpt = Annotated[bool, typer.Option(help="Replace an existing snapshot at --out.")]
SkipInvalidOpt = Annotated[
    bool, typer.Option(help="Skip invalid rows and write them to a report instead of failing.")
]
SkipReportOpt = Annotated[
    Path | None,
    typer.Option(help="Skipped-rows report (.csv/.jsonl; default OUT/skipped_rows.csv)."),
]
AllowEmptyTextOpt = Annotated[
    bool,
    typer.Option(help="Use a node's name as its text when its text is empty (else an error)."),
]
StrictOpt = Annotated[
    bool,
    typer.Option(
        help="Make exact duplicate edges and self-loops errors (default: a duplicate is "
        "collapsed into one edge, a self-loop kept; both counted)."
    ),
]


AnalyzerOpt = Annotated[
    str,
    typer.Option(
        "--analyzer",
        help="BM25 text analysis: english (stopwords dropped: the default), english-stem "
        "(stopwords dropped, words stemmed) or plain (every word).",
    ),
]


MemoryLimitOpt = Annotated[
    str | None,
    typer.Option(
        "--memory-limit",
        help="Memory the import may use, e.g. 512MB or 4GB (default: 25% of this machine's "
        "memory, at most 16GB). Past it, sorts and joins spill to disk beside --out.",
    ),
]


@flag_group
@dataclass(frozen=True, kw_only=True)
class ImportFlags:
    """The flags of every command that builds a snapshot (see cli.flags.groups).

    `ark graph import tabular` and `ark graph import stark` offer all seven; `ark graph synth`
    (generated rows are valid and small) and `ark graph extract` (its own rows) offer the
    ones that apply to them, named in SYNTH_WITHOUT and EXTRACT_WITHOUT.
    """

    overwrite: OverwriteOpt = False
    skip_invalid: SkipInvalidOpt = False
    report: SkipReportOpt = None
    allow_empty_text: AllowEmptyTextOpt = False
    strict: StrictOpt = False
    analyzer: AnalyzerOpt = DEFAULT_BUILD_ANALYZER
    memory_limit: MemoryLimitOpt = None

    def options(self, progress: Progress = no_progress) -> BuildOptions:
        """The BuildOptions these flags ask for (see `build_options`).

        Raises:
            GraphImportError: --memory-limit is not a size (the message shows good ones).
        """
        return build_options(
            overwrite=self.overwrite,
            skip_invalid=self.skip_invalid,
            report=self.report,
            allow_empty_text=self.allow_empty_text,
            strict=self.strict,
            analyzer=self.analyzer,
            memory_limit=self.memory_limit,
            progress=progress,
        )


SYNTH_WITHOUT = ("skip_invalid", "report", "allow_empty_text", "memory_limit")
"""Import flags `ark graph synth` does not offer: its generated rows are all valid."""
EXTRACT_WITHOUT = ("skip_invalid", "report", "allow_empty_text", "strict", "memory_limit")
"""Import flags `ark graph extract` does not offer: it makes its own rows from documents."""


def build_options(
    *,
    overwrite: bool = False,
    skip_invalid: bool = False,
    report: Path | None = None,
    allow_empty_text: bool = False,
    strict: bool = False,
    analyzer: str = DEFAULT_BUILD_ANALYZER,
    memory_limit: str | None = None,
    progress: Progress = no_progress,
) -> BuildOptions:
    """Map the shared import flags onto BuildOptions (the only place the CLI does so).

    Raises:
        GraphImportError: `memory_limit` is not a size (the message shows good ones).
    """
    return BuildOptions(
        overwrite=overwrite,
        skip_invalid=skip_invalid,
        report_path=report,
        allow_empty_text=allow_empty_text,
        strict=strict,
        analyzer=analyzer,
        memory_limit=parse_size(memory_limit) if memory_limit is not None else None,
        progress=progress,
    )


def memory_line(options: BuildOptions, before: int) -> str:
    """The import's measured peak memory against its budget, for the summary.

    Args:
        options: The import's options (its memory limit).
        before: Resident bytes of this process before the import (interpreter and libraries).
    """
    limit = options.memory_limit or default_memory_limit()
    source = "--memory-limit" if options.memory_limit else "default: 25% of RAM, --memory-limit"
    children = peak_child_rss()
    helpers = f"; tokenising processes at most {format_size(children)} each" if children else ""
    return (
        f"memory: peak {format_size(peak_rss())}, {format_size(before)} of it held before the "
        f"import (interpreter, libraries); limit {format_size(limit)} ({source}){helpers}"
    )


def summary_lines(manifest: Manifest, path: Path, options: BuildOptions) -> list[str]:
    """What an import did to imperfect rows: skipped, collapsed and kept (empty when nothing)."""
    lines = []
    if manifest.duplicate_edges or manifest.self_loops:
        lines.append(
            f"collapsed {manifest.duplicate_edges:,} duplicate edges (same src, dst, relation); "
            f"kept {manifest.self_loops:,} self-loops; --strict makes both errors"
        )
    if manifest.skipped_rows:
        where = options.report_path or path / REPORT_FILE
        lines.append(
            f"skipped {manifest.skipped_rows:,} invalid rows; every one is listed in {where}"
        )
    return lines
