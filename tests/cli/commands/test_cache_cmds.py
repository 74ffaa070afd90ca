"""`ark cache info|clear` over the caches graphs/cache_dir.py names."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.models.hf.gguf import default_cache_dir
from cli.app import build_app
from graphs.cache_dir import CACHES, cache_path, cache_root
from graphs.importers.documents.cache import default_cache_path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(), list(args))
    return result.exit_code, " ".join(result.output.split())


def test_every_cache_lives_under_the_one_root(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARK_CACHE_DIR", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    assert default_cache_path() == tmp_path / "c" / "extractions.sqlite"
    assert default_cache_dir() == tmp_path / "c" / "gguf"
    monkeypatch.delenv("ARK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_path("rerank") == tmp_path / "x" / "ark" / "rerank.sqlite"


def test_info_lists_and_clear_empties(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARK_CACHE_DIR", str(tmp_path))
    (tmp_path / "gguf" / "model").mkdir(parents=True)
    (tmp_path / "gguf" / "model" / "weights.bin").write_bytes(b"x" * 2_000_000)
    (tmp_path / "extractions.sqlite").write_bytes(b"y" * 1000)
    code, out = run("cache", "info")
    assert code == 0 and f"cache root: {tmp_path}" in out
    assert "gguf 2.0 MB" in out and "rerank empty" in out
    assert all(cache.name in out for cache in CACHES)
    code, out = run("cache", "clear", "gguf")
    assert code == 0 and "gguf: emptied (2.0 MB freed)" in out
    assert not (tmp_path / "gguf").exists() and (tmp_path / "extractions.sqlite").exists()
    assert run("cache", "clear", "--all")[0] == 0
    assert not (tmp_path / "extractions.sqlite").exists()


@pytest.mark.parametrize(("args", "said"), [((), "name the caches"), (("bogus",), "unknown cache")])
def test_clear_needs_known_names(args: tuple[str, ...], said: str) -> None:
    code, out = run("cache", "clear", *args)
    assert code == 2 and said in out
