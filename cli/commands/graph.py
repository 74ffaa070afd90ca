"""`ark graph import tabular` and `ark graph info`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from cli.commands.verify import verify
from cli.flags.groups import with_flags
from cli.flags.imports import ImportFlags, memory_line, summary_lines
from cli.flags.paths import out_dir
from graphs.build.stream.budget import current_rss
from graphs.build.stream.progress import RateLines

MAX_PHRASES_SHOWN = 12
"""Phrase words `ark graph info` lists per relation and side, the most used first (the rest
are counted)."""
_SPECIAL_DELIMITERS = {"\\t": "\t", "tab": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}


def register(graph_app: typer.Typer, import_app: typer.Typer) -> None:
    """Add this module's commands to the `graph` and `graph import` groups."""
    graph_app.command("info")(info)
    from cli.commands import extract

    extract.register(graph_app)
    graph_app.command("verify")(verify)
    import_app.command("tabular")(import_tabular_command)


def _split(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(part.strip() for part in value.split(",") if part.strip())


def info(
    snapshot: Annotated[Path, typer.Argument(help="Snapshot directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    verify: Annotated[
        bool, typer.Option("--verify", help="Re-hash nodes.parquet and edges.parquet (slow).")
    ] = False,
) -> None:
    """Show a snapshot's counts, types, relation signatures and degree/text percentiles."""
    from graphs.snapshot import Snapshot
    from graphs.snapshot.stats import snapshot_info

    summary = snapshot_info(Snapshot.open(snapshot, verify=verify))
    from graphs.importers.documents.summary import read_summary

    extraction = read_summary(snapshot)  # None unless built by `ark graph extract`
    if as_json:
        print(json.dumps({**summary, "extraction": extraction}, indent=2, ensure_ascii=False))
        return
    _print_info(summary)
    if extraction is not None:
        from cli.commands.extract import print_extraction_info

        print_extraction_info(extraction, Console())


def _print_info(summary: dict[str, Any]) -> None:
    console = Console()
    header = Table.grid(padding=(0, 2))
    header.add_column(style="bold", no_wrap=True)
    header.add_column(overflow="fold")
    size = (
        f"{summary['num_nodes']:,} nodes, {summary['num_edges']:,} edges, "
        f"{summary['disk_bytes'] / 1e6:,.1f} MB on disk"
    )
    rows = (
        ("snapshot", summary["name"]),
        ("path", summary["path"]),
        ("size", size),
        ("built", summary["built_at"]),
        ("skipped rows", f"{summary['skipped_rows']:,}"),
        ("analyzer", summary["analyzer"]),
        ("BM25", summary["bm25"]),
        ("duplicate edges", f"{summary['duplicate_edges']:,} collapsed"),
        ("self-loops", f"{summary['self_loops']:,}"),
        ("candidate types", ", ".join(summary["candidate_types"])),
    )
    for label, value in rows:
        header.add_row(label, Text(str(value)))
    console.print(header, highlight=False)
    types = Table("node type", "count", title="Node types")
    for name, count in summary["node_types"].items():
        types.add_row(name, f"{count:,}")
    signatures = Table(
        "relation", "source type", "target type", "count", title="Relation signatures"
    )
    for row in summary["signatures"]:
        signatures.add_row(
            row["relation"], row["source_type"], row["target_type"], f"{row['count']:,}"
        )
    phrases = Table(
        "relation",
        "written in the text of its",
        "words (stemmed)",
        title="Relation phrases: '<word> of <a neighbour's name>' in the graph's texts",
    )
    for relation, words in summary["relation_phrases"].items():
        for side in ("out", "in"):
            held = [word for word, direction in words.items() if direction == side]
            if held:
                shown = ", ".join(held[:MAX_PHRASES_SHOWN])
                more = len(held) - MAX_PHRASES_SHOWN
                phrases.add_row(
                    relation,
                    "source" if side == "out" else "target",
                    shown + (f" (+{more} more)" if more > 0 else ""),
                )
    spread = Table("", *summary["degree"], title="Percentiles")
    for label, key in (("degree (both directions)", "degree"), ("text bytes", "text_bytes")):
        spread.add_row(label, *(f"{value:,.1f}" for value in summary[key].values()))
    for table in (types, signatures, phrases, spread):
        if table.row_count:
            console.print(table)


@with_flags()
def import_tabular_command(
    nodes: Annotated[Path, typer.Option("--nodes", help="Nodes file (.csv/.tsv/.parquet/.jsonl).")],
    edges: Annotated[Path, typer.Option("--edges", help="Edges file (.csv/.tsv/.parquet/.jsonl).")],
    out: Annotated[
        Path, typer.Option("--out", help="Snapshot directory to create.", parser=out_dir)
    ],
    id_col: Annotated[str, typer.Option(help="Node id column.")] = "id",
    type_col: Annotated[str, typer.Option(help="Node type column.")] = "type",
    name_col: Annotated[str, typer.Option(help="Node name column.")] = "name",
    text_cols: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated columns joined into the node text; several become "
            "'column: value' lines. Default: the 'text' column (required unless "
            "--allow-empty-text)."
        ),
    ] = None,
    src_col: Annotated[str, typer.Option(help="Edge source id column.")] = "src",
    dst_col: Annotated[str, typer.Option(help="Edge target id column.")] = "dst",
    relation_col: Annotated[str, typer.Option(help="Edge relation column.")] = "relation",
    default_type: Annotated[
        str | None, typer.Option(help="Type of every node, for a nodes file without types.")
    ] = None,
    default_relation: Annotated[
        str | None, typer.Option(help="Relation of every edge, for an edges file without one.")
    ] = None,
    delimiter: Annotated[
        str | None, typer.Option(help="Field delimiter (',', 'tab', ';'...); default by extension.")
    ] = None,
    candidate_types: Annotated[
        str | None, typer.Option(help="Comma-separated node types that can be answers (all).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Snapshot name (default: --out's name).")] = None,
    *,
    import_flags: ImportFlags,
) -> None:
    """Import a graph from a nodes file and an edges file, mapping columns with flags.

    Large graphs are built in bounded memory (--memory-limit), with a progress line per phase.
    """
    from graphs.importers.tabular import TabularColumns, import_tabular

    columns = TabularColumns(
        id_col=id_col,
        type_col=type_col,
        name_col=name_col,
        text_cols=_split(text_cols),
        src_col=src_col,
        dst_col=dst_col,
        relation_col=relation_col,
        default_type=default_type,
        default_relation=default_relation,
        delimiter=_SPECIAL_DELIMITERS.get(delimiter, delimiter) if delimiter else None,
    )
    console = Console(stderr=True)
    options = import_flags.options(progress=RateLines(console.print))
    before = current_rss()
    with console.status(f"importing {nodes} and {edges} into {out} ..."):
        path = import_tabular(
            nodes,
            edges,
            out,
            columns=columns,
            name=name,
            candidate_types=_split(candidate_types) or (),
            options=options,
        )
    from graphs.manifest import read_manifest

    manifest = read_manifest(path)
    print(
        f"snapshot {path}: {manifest.num_nodes:,} nodes, {manifest.num_edges:,} edges, "
        f"{len(manifest.node_types)} node types, {len(manifest.relations)} relations"
    )
    for line in summary_lines(manifest, path, options):
        print(line)
    print(memory_line(options, before))
