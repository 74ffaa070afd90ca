"""Fixtures of the `ark serve` tests."""

from __future__ import annotations

import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.serve.serve_fixtures import demo_graph, document_snapshot

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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def server(graphs: tuple[Path, Path], tmp_path: Path) -> Iterator[str]:
    """A real server (uvicorn on a loopback port) over the test context; yields its URL."""
    uvicorn = pytest.importorskip("uvicorn", reason="ark serve needs the serve extra")
    from cli.http_security import http_security
    from cli.serve.app import build
    from tests.answer.word_encoder import WordEncoder
    from tests.cli.serve.serve_fixtures import make_context

    demo, notes = graphs
    (tmp_path / "roots").mkdir()
    ctx = make_context(demo, notes, tmp_path, WordEncoder())
    port = _free_port()
    app = build(ctx, http_security("127.0.0.1", token=None))
    running = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    for _ in range(400):  # a bound on polls, not a speed expectation
        if running.started:
            break
        thread.join(0.05)
    assert running.started, "the test server did not start"
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(30)
