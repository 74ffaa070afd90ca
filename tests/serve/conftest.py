"""Fixtures of the `ark serve` tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.serve.serve_fixtures import demo_graph, document_snapshot

pytest.importorskip("fastapi", reason="ark serve needs the serve extra")


@pytest.fixture(scope="session")
def served_graphs(tmp_path_factory: pytest.TempPathFactory, _test_cache: Path) -> tuple[Path, Path]:
    """Built with the tests' extraction cache, which the server's jobs use too."""
    root = tmp_path_factory.mktemp("serve-graphs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARK_CACHE_DIR", str(_test_cache))
        return demo_graph(root), document_snapshot(root)


@pytest.fixture
def graphs(served_graphs: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """The demo graph (read-only, shared) and a fresh copy of the document snapshot."""
    demo, notes = served_graphs
    copy = tmp_path / "notes"
    shutil.copytree(notes, copy)
    (tmp_path / "notes-src").mkdir()
    return demo, copy
