"""Snapshots for the tools tests: a tiny fixed one for golden texts, a generated one with a hub."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot

TINY_NODES = [
    ("A1", "author", "Ada Lovelace", "Mathematician who wrote the first algorithm for a machine."),
    (
        "A2",
        "author",
        "Charles Babbage",
        "Inventor of the Difference Engine and the Analytical Engine.",
    ),
    (
        "P1",
        "paper",
        "Notes on the Analytical Engine",
        "Translation of a memoir, with notes "
        "describing an algorithm that computes Bernoulli numbers on the Analytical Engine.",
    ),
    ("P2", "paper", "On the Economy of Machinery", "A study of factory production and machinery."),
    (
        "P3",
        "paper",
        "Passages from the Life of a Philosopher",
        "Autobiography of Babbage: the "
        "Difference Engine, the Analytical Engine, and years of quarrels with the government over "
        "funding, which ends with a long account of street musicians and the noise they made.",
    ),
    ("V1", "venue", "Scientific Memoirs", ""),
    ("I1", "institution", "Royal Society", "Learned society for science in London."),
]
TINY_EDGES = [
    ("A1", "P1", "writes"),
    ("A2", "P2", "writes"),
    ("A2", "P3", "writes"),
    ("P3", "P1", "cites"),
    ("P2", "P1", "cites"),
    ("P1", "V1", "published_in"),
    ("A2", "I1", "member_of"),
    ("A1", "A2", "collaborates_with"),
]


def _table(rows: Sequence[tuple[str, ...]], columns: tuple[str, ...]) -> pa.Table:
    return pa.table({name: [row[i] for row in rows] for i, name in enumerate(columns)})


@pytest.fixture(scope="session")
def tiny_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out = tmp_path_factory.mktemp("tiny") / "snapshot"
    build_snapshot(
        _table(TINY_NODES, ("id", "type", "name", "text")),
        _table(TINY_EDGES, ("src", "dst", "relation")),
        out,
        name="tiny",
        candidate_types=["paper"],
        # V1 has no text: the golden tests show a hit without a snippet; the golden scores and
        # snippet terms are those of the unstemmed analyzer (the build default stems)
        options=BuildOptions(allow_empty_text=True, analyzer="english"),
    )
    return Snapshot.open(out)


WORDS = [
    *("graph", "neural", "network", "retrieval", "agent", "query", "node", "edge", "paper"),
    *("author", "venue", "topic", "learning", "model", "data", "search", "index", "rank"),
    *("score", "hub", "citation", "engine", "vector"),
]


def build_generated(
    out: Path, *, num_nodes: int = 400, hub_degree: int = 300, seed: int = 0
) -> Path:
    """A random graph with three node types, three relations and one hub node `N0`."""
    rng = random.Random(seed)
    types = ("paper", "author", "topic")
    nodes = []
    for i in range(num_nodes):
        words = rng.choices(WORDS, k=rng.randint(3, 12))
        nodes.append((f"N{i}", types[i % 3], " ".join(words[:2]).title(), " ".join(words)))
    edges = {
        ("N0", f"N{j}", rng.choice(("cites", "writes", "about")))
        for j in rng.sample(range(1, num_nodes), hub_degree)
    }
    for _ in range(num_nodes * 2):
        src, dst = rng.sample(range(1, num_nodes), 2)
        edges.add((f"N{src}", f"N{dst}", rng.choice(("cites", "writes", "about"))))
    edge_rows = sorted(edges)
    edge_rows += [(f"N{j}", "N0", "cites") for j in range(1, 40)]
    build_snapshot(
        _table(nodes, ("id", "type", "name", "text")),
        _table(edge_rows, ("src", "dst", "relation")),
        out,
        name="generated",
    )
    return out


@pytest.fixture(scope="session")
def generated_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return Snapshot.open(build_generated(tmp_path_factory.mktemp("generated") / "snapshot"))
