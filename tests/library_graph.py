"""A nine-node library graph (authors, fields, papers) for hand-computed plan and agent tests.

Ada Lovelace writes p1, which cites p2 (a Vision paper) and p3 (Biology); Alan Turing writes
two Vision papers. The question asks for the Vision papers Ada Lovelace's paper cites: p2.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

NODES = [
    ("a1", "author", "Ada Lovelace", "Ada Lovelace is a mathematician."),
    ("a2", "author", "Alan Turing", "Alan Turing is a logician."),
    ("f1", "field", "Vision", "Vision is a field of study."),
    ("f2", "field", "Biology", "Biology is a field of study."),
    ("p1", "paper", "Engines", "A paper on engines."),
    ("p2", "paper", "Seeing Machines", "A paper on seeing."),
    ("p3", "paper", "Cells", "A paper on cells."),
    ("p4", "paper", "Eyes", "A paper on eyes."),
    ("p5", "paper", "Images", "A paper on images."),
]
EDGES = [
    ("a1", "p1", "writes"),
    ("a2", "p4", "writes"),
    ("a2", "p5", "writes"),
    ("p1", "p2", "cites"),
    ("p1", "p3", "cites"),
    ("p4", "p3", "cites"),
    ("p2", "f1", "has_topic"),
    ("p4", "f1", "has_topic"),
    ("p5", "f1", "has_topic"),
    ("p3", "f2", "has_topic"),
    ("p1", "f2", "has_topic"),
]
QUESTION = "Which Vision papers does Ada Lovelace cite?"


def build_library(out: Path) -> Snapshot:
    """Build the library graph at `out` (papers are the answers) and open it."""
    columns = ("id", "type", "name", "text")
    nodes = pa.table({c: [n[i] for n in NODES] for i, c in enumerate(columns)})
    edges = pa.table({c: [e[i] for e in EDGES] for i, c in enumerate(("src", "dst", "relation"))})
    build_snapshot(nodes, edges, out, name="library", candidate_types=["paper"])
    return Snapshot.open(out)
