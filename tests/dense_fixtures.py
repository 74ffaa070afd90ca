"""Dense-test fixtures (a plugin of tests/conftest.py): the tiny product graph, a tiny encoder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evals.eval_graph import BRANDS, build_tiny, product_rows
from tests.tiny_encoder import build_tiny_encoder


@pytest.fixture(scope="session")
def encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = [f"{name} {text}" for _, _, name, text in product_rows()]
    corpus += [f"{brand} is a maker of home appliances" for brand in BRANDS]
    corpus += ["Kitchen appliances", "Lamps and lights", "Which products does make"]
    return build_tiny_encoder(tmp_path_factory.mktemp("encoder"), corpus * 3)


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    """(snapshot dir, qa file) of a fresh copy of the tiny product graph."""
    return build_tiny(tmp_path)
