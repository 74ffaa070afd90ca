"""The one prompt loader: strict rendering and a clear error for a file that is not shipped."""

from __future__ import annotations

import jinja2
import pytest

from prompts.loader import PromptFileError, read_prompt, render_prompt


def test_a_missing_file_names_the_shipped_ones() -> None:
    with pytest.raises(PromptFileError, match=r"no prompt file 'nope\.j2'.*agent_system\.md\.j2"):
        read_prompt("nope.j2")


def test_rendering_is_strict_about_missing_variables() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render_prompt("rerank_user.md.j2")


def test_no_module_reads_prompt_files_but_the_loader() -> None:
    """The packages reach prompts/ only through prompts.loader (one loader, not three)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readers = [
        str(path.relative_to(root))
        for package in ("cli", "distill", "rank", "evals", "answer", "agent", "tools", "graphs")
        for path in (root / package).rglob("*.py")
        if 'files("prompts")' in path.read_text(encoding="utf-8")
    ]
    assert readers == []
