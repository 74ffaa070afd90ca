"""A benchmark graph from its node and edge tables: the tables kept beside the snapshot."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pyarrow as pa
import pyarrow.parquet as pq

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions


def write_graph(
    out: Path, nodes: pa.Table, edges: pa.Table, *, name: str, source: str, questions: Path
) -> Path:
    """Build the snapshot at `out` (replacing it) with every node type a candidate answer.

    The tables are written to out.tables/ (nodes.parquet, edges.parquet: what the question
    checks read) and the question files (*.jsonl) of `questions` copied to out/qa/.
    """
    tables = tables_dir(out)
    tables.mkdir(parents=True, exist_ok=True)
    pq.write_table(nodes, tables / "nodes.parquet")
    pq.write_table(edges, tables / "edges.parquet")
    build_snapshot(
        nodes,
        edges,
        out,
        name=name,
        candidate_types=sorted(set(nodes.column("type").to_pylist())),
        sources=[source],
        options=BuildOptions(overwrite=True),
    )
    (out / "qa").mkdir(exist_ok=True)
    for found in sorted(questions.glob("*.jsonl")):
        shutil.copyfile(found, out / "qa" / found.name)
    return out


def tables_dir(out: Path) -> Path:
    """Where `write_graph` keeps the tables of the snapshot at `out`: out.tables/."""
    return out.with_name(out.name + ".tables")


def built_tables(out: Path, module: str) -> Path:
    """The tables of a graph built at `out`, for checking its questions.

    Raises:
        SystemExit: They are not there, naming the command that writes them.
    """
    tables = tables_dir(out)
    if not (tables / "nodes.parquet").is_file() or not (tables / "edges.parquet").is_file():
        raise SystemExit(
            f"{tables} holds no nodes.parquet and edges.parquet: build the graph first with "
            f"`python -m benchmarks.datasets.{module} --out {out}`, then check its questions "
            "with the same --out"
        )
    return tables


def dataset_arguments(doc: str, module: str) -> argparse.Namespace:
    """A dataset module's command line: --out, --cache (its download), --check-questions,
    --aliases (give the nodes their other names as an aliases column, where the data has them)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp") / module)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "ark" / module)
    parser.add_argument("--check-questions", action="store_true")
    parser.add_argument("--aliases", action="store_true", help="add the aliases column")
    return parser.parse_args()


def report_questions(
    out: Path, module: str, check: Callable[[Path, Path], list[str]], questions: Path
) -> int:
    """Check each question file in `questions` against the graph built at `out`; print what
    is wrong with each (or that its gold sets match); the exit status, 1 if any is wrong."""
    tables = built_tables(out, module)
    failed = False
    for file in sorted(questions.glob("*.jsonl")):
        problems = check(tables, file)
        failed = failed or bool(problems)
        print("\n".join(problems) or f"{file.name}: every gold set matches its spec")
    return 1 if failed else 0


def frozen_parser(doc: str, refresh: str, refresh_help: str) -> argparse.ArgumentParser:
    """The command line of a dataset frozen in the repository (debian.py, pystdlib.py).

    --out (the snapshot to build), `refresh` (re-derive the frozen tables from their source
    first) and --check-questions (`exit_with_problems`); a module adds its own flags.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the snapshot directory to write")
    parser.add_argument(refresh, action="store_true", help=refresh_help)
    parser.add_argument(
        "--check-questions",
        action="store_true",
        help="re-derive every question's gold from its spec and report differences, then exit",
    )
    return parser


def exit_with_problems(problems: list[str]) -> NoReturn:
    """Print the question checks' problems (or that every gold set matches) and exit 1 / 0."""
    print("\n".join(problems) or "every question file: every gold set matches its spec")
    raise SystemExit(1 if problems else 0)
