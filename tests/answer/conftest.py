"""A tiny bridge-question KG for the answering tests."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

QUESTION = "In what year was the university where Sergei Tokarev was a professor founded?"

NODES = [
    (
        "tokarev",
        "person",
        "Sergei Tokarev",
        "Sergei Tokarev was a professor at Moscow State University.",
    ),
    (
        "msu",
        "university",
        "Moscow State University",
        "Moscow State University was founded in 1755.",
    ),
    ("y1755", "year", "1755", "The year 1755."),
    ("moscow", "city", "Moscow", "Moscow is the capital of Russia."),
    ("kosarev", "person", "Sergei Kosarev", "Sergei Kosarev is a Russian football midfielder."),
    ("spartak", "club", "FC Spartak", "FC Spartak is a football club in Moscow."),
]
EDGES = [
    ("tokarev", "msu", "professor_at"),
    ("msu", "y1755", "founded_in"),
    ("msu", "moscow", "located_in"),
    ("kosarev", "spartak", "plays_for"),
    ("spartak", "moscow", "located_in"),
]


@pytest.fixture(scope="session")
def bridge_kg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bridge_kg(tmp_path_factory.mktemp("kg") / "snap")


def build_bridge_kg(path: Path) -> Path:
    """Write the bridge KG snapshot at `path`."""
    columns = ("id", "type", "name", "text")
    build_snapshot(
        pa.table({k: [n[j] for n in NODES] for j, k in enumerate(columns)}),
        pa.table({k: [e[j] for e in EDGES] for j, k in enumerate(("src", "dst", "relation"))}),
        path,
        name="bridge",
    )
    return path


@pytest.fixture
def snapshot(bridge_kg: Path) -> Snapshot:
    return Snapshot.open(bridge_kg)


@pytest.fixture(scope="session")
def encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random sentence-transformers model with a tokenizer trained on the graph's text."""
    from tests.tiny_encoder import build_tiny_encoder

    corpus = [f"{name} {text}" for _, _, name, text in NODES] + [QUESTION]
    return build_tiny_encoder(tmp_path_factory.mktemp("encoder"), corpus * 3)
