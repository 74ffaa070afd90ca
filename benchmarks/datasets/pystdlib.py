"""A real typed graph of the Python 3.11 standard library's public API and its dev questions.

Source: the stdlib source files of the interpreter that runs ``--from-source`` (CPython 3.11,
``sysconfig.get_paths()["stdlib"]``), parsed with ``ast`` and never imported; the PSF
License covers them (see pystdlib/SOURCE.md for the version and a checksum of the files). The
derived node and edge tables are frozen in pystdlib/nodes.parquet and pystdlib/edges.parquet,
so the snapshot never changes with the interpreter. Left out: site-packages, the ``test`` and
``tests`` packages (with idlelib/idle_test and lib2to3/tests), private modules (a path part
starting with ``_``, ``__init__.py`` aside) and private names. Private modules are still
parsed to resolve names that public ones import through them.

Nodes (ids are type-prefixed):

* module (``mod:json.decoder``): named by its dotted name; text: its docstring's first
  paragraph;
* class (``cls:json.decoder.JSONDecoder``): a public module-level class that is no exception;
* exception (``exc:json.decoder.JSONDecodeError``): a class whose bases lead to a builtin
  exception (bases resolved through the module's classes, simple aliases, imports and star
  imports), and ``exc:builtins.ValueError`` for each builtin exception that a stdlib class
  inherits from or a function raises, with their builtin ancestors (text from ``__doc__``);
* function (``fn:json.dumps``): a public module-level function;
* method (``meth:json.decoder.JSONDecoder.decode``): a public method of a class node
  (``__init__`` and other dunders left out).

A class, exception, function or method is named by its short name where no other node shares
it (ignoring case), else ``short (module)`` (``Queue (asyncio.queues)``), a method
``short (Class)`` or ``short (module.Class)``. Texts are the docstring's first paragraph (at
most TEXT_CHARS), after a signature for functions and methods.

Edges: defined_in (class, exception or function -> module), method_of (method -> class),
inherits_from (class -> base class, where the base is a node), imports (module -> module,
absolute and relative imports anywhere in the module), submodule_of (module -> package) and
raises (function or method -> exception of a ``raise X`` or ``raise X(...)`` in its own body).

Questions: pystdlib/dev.jsonl, 100 development questions in five families (one_hop, two_hop,
intersection, neighbour_set, text_only), written by a helper that did not read the policy or
the planner; each line keeps the `spec` its gold answers were derived from (spec semantics:
``benchmarks.datasets.debian.spec_gold``). The parsing is benchmarks/datasets/pystdlib_source.py.

    .venv/bin/python -m benchmarks.datasets.pystdlib --out /tmp/pystd
    .venv/bin/python -m benchmarks.datasets.pystdlib --from-source --out /tmp/pystd
    .venv/bin/python -m benchmarks.datasets.pystdlib --check-questions
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.datasets.debian import freeze, load_graph, question_problems
from benchmarks.datasets.pystdlib_source import TYPES, pystdlib_tables, source_lines
from benchmarks.datasets.tables import exit_with_problems, frozen_parser
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

DATA = Path(__file__).with_name("pystdlib")


def write_source_md(root: Path, data: Path = DATA) -> None:
    """Record where the frozen tables came from in data/SOURCE.md."""
    lines = [
        "# Source of the pystdlib tables",
        "",
        "nodes.parquet and edges.parquet are derived from CPython's standard library: the",
        "stdlib source files of the interpreter below, parsed with `ast` by",
        "`benchmarks/datasets/pystdlib.py --from-source` (never imported; builtin exception",
        "texts come from `builtins`). The CPython source is under the PSF License (Python",
        "Software Foundation License Version 2), https://docs.python.org/3/license.html.",
        "",
        *(f"- {line}" for line in source_lines(root)),
        "",
        "dev.jsonl: 100 development questions written by a helper that did not read the policy or",
        "the planner; gold answers derived from each line's `spec` over the frozen tables",
        "(`--check-questions` re-derives them).",
    ]
    (data / "SOURCE.md").write_text("\n".join(lines) + "\n")


def check_questions(data: Path = DATA) -> list[str]:
    """Problems of every question file in `data`: gold that its spec does not re-derive."""
    graph, names = load_graph(data)
    return [
        problem
        for questions in sorted(data.glob("*.jsonl"))
        for problem in question_problems(
            questions.read_text().splitlines(), graph, names, anchors=False
        )
    ]


def build_pystdlib(out: Path, *, from_source: bool = False, aliases: bool = False) -> Path:
    """Write the snapshot at `out` (replacing it) and copy the questions to out/qa/dev.jsonl.

    Args:
        out: the snapshot directory.
        from_source: re-derive the frozen tables from this interpreter's stdlib first
            (rewriting pystdlib/nodes.parquet, edges.parquet and SOURCE.md).
        aliases: give every class, exception, function and method its dotted name as an
            alias (`qualified_aliases`).
    """
    if from_source:
        root = Path(sysconfig.get_paths()["stdlib"])
        nodes, edges = pystdlib_tables(root)
        freeze(nodes, edges, DATA)
        write_source_md(root)
    nodes = pq.read_table(DATA / "nodes.parquet")
    edges = pq.read_table(DATA / "edges.parquet")
    if aliases:
        nodes = nodes.append_column("aliases", qualified_aliases(nodes))
    for kind, n in sorted(Counter(nodes.column("type").to_pylist()).items()):
        print(f"node {kind}: {n}")
    for relation, n in sorted(Counter(edges.column("relation").to_pylist()).items()):
        print(f"edge {relation}: {n}")
    build_snapshot(
        nodes,
        edges,
        out,
        name="pystdlib",
        candidate_types=TYPES,
        sources=[f"benchmarks/datasets/pystdlib/{name}.parquet" for name in ("nodes", "edges")],
        options=BuildOptions(overwrite=True),
    )
    if (DATA / "dev.jsonl").exists():
        (out / "qa").mkdir(exist_ok=True)
        shutil.copyfile(DATA / "dev.jsonl", out / "qa" / "dev.jsonl")
    return out


def qualified_aliases(nodes: pa.Table) -> pa.Array:
    """Each node's dotted name as its alias (``collections.Counter`` for `Counter`), but a
    module's, which its name already is (graphs/snapshot/aliases.py)."""
    rows = zip(nodes.column("id").to_pylist(), nodes.column("type").to_pylist(), strict=True)
    return pa.array([[] if kind == "module" else [nid.split(":", 1)[1]] for nid, kind in rows])


def main() -> None:
    """Build the pystdlib snapshot and copy its development questions into it."""
    parser = frozen_parser(
        __doc__ or "",
        "--from-source",
        "re-derive the frozen parquet tables from this interpreter's stdlib first",
    )
    parser.add_argument(
        "--aliases", action="store_true", help="give nodes their dotted names as aliases"
    )
    args = parser.parse_args()
    if args.check_questions:
        exit_with_problems(check_questions())
    if args.out is None:
        parser.error("--out is required to build the snapshot")
    if args.from_source and sys.version_info[:2] != (3, 11):
        parser.error("--from-source reads the running interpreter's stdlib: run it on Python 3.11")
    start = time.perf_counter()
    out = build_pystdlib(args.out, from_source=args.from_source, aliases=args.aliases)
    print(f"{out} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
