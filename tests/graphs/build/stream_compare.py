"""Helpers for the streaming-build tests: build a graph both ways and compare every file."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

VOLATILE = ("built_at", "build_seconds")
"""Manifest fields that differ between any two builds (time of day, phase timings)."""


def build_both(nodes: pa.Table, edges: pa.Table, root: Path, **kwargs: object) -> tuple[Path, Path]:
    """Build the same tables in memory and streaming; return both snapshot directories."""
    options = kwargs.pop("options", BuildOptions())
    assert isinstance(options, BuildOptions)
    paths = []
    for label, streaming in (("memory", False), ("stream", True)):
        chosen = BuildOptions(**{**options.__dict__, "streaming": streaming})
        if chosen.report_path is not None:
            chosen = BuildOptions(
                **{**chosen.__dict__, "report_path": root / f"{label}-{chosen.report_path.name}"}
            )
        out = root / label
        paths.append(build_snapshot(nodes, edges, out, name="g", options=chosen, **kwargs))
    return paths[0], paths[1]


def differing_files(first: Path, second: Path) -> list[str]:
    """Relative paths whose bytes differ (or exist on one side only); manifest minus timings."""
    names = {p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file()}
    names |= {p.relative_to(second).as_posix() for p in second.rglob("*") if p.is_file()}
    differ = []
    for name in sorted(names):
        a, b = first / name, second / name
        if not (a.is_file() and b.is_file()):
            differ.append(name)
        elif name == "manifest.json":
            left, right = json.loads(a.read_text()), json.loads(b.read_text())
            for key in VOLATILE:
                left.pop(key, None)
                right.pop(key, None)
            if left != right:
                differ.append(name)
        elif a.read_bytes() != b.read_bytes():
            differ.append(name)
    return differ
