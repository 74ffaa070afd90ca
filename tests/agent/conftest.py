"""A tiny academic graph shared by the agent tests."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

NODES = [
    ("p1", "paper", "Graph retrieval with agents", "Agents explore knowledge graphs to retrieve."),
    ("p2", "paper", "Dense passage retrieval", "Dual encoders for open domain questions."),
    ("p3", "paper", "Protein folding with transformers", "Structure prediction of proteins."),
    ("p4", "paper", "Sparse retrieval revisited", "BM25 remains a strong retrieval baseline."),
    ("a1", "author", "Ada Lovelace", "Researcher in retrieval and graphs."),
    ("a2", "author", "Alan Turing", "Researcher in computation and biology."),
    ("i1", "institution", "Analytical Engine Institute", "A research institute in London."),
    ("f1", "field", "Information retrieval", "The study of finding information."),
]
EDGES = [
    ("a1", "p1", "writes"),
    ("a1", "p2", "writes"),
    ("a1", "p4", "writes"),
    ("a2", "p3", "writes"),
    ("a1", "i1", "affiliated_with"),
    ("p1", "f1", "has_topic"),
    ("p2", "f1", "has_topic"),
    ("p4", "f1", "has_topic"),
    ("p1", "p2", "cites"),
    ("p4", "p2", "cites"),
]


@pytest.fixture(scope="session")
def tiny_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out: Path = tmp_path_factory.mktemp("graphs") / "tiny"
    nodes = pa.table(
        {
            "id": [n[0] for n in NODES],
            "type": [n[1] for n in NODES],
            "name": [n[2] for n in NODES],
            "text": [n[3] for n in NODES],
        }
    )
    edges = pa.table(
        {
            "src": [e[0] for e in EDGES],
            "dst": [e[1] for e in EDGES],
            "relation": [e[2] for e in EDGES],
        }
    )
    build_snapshot(nodes, edges, out, name="tiny-academic", candidate_types=["paper"])
    return Snapshot.open(out)
