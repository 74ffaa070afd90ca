"""README's user guide runs as written: every bash block, in order, with the output it shows.

The user guide is README from its Install section on (the Quickstart's `make demo` and `make
test` are the Makefile's own targets). A ```bash block is run by bash in a fresh clone of the
repository (what a new user has), in README order, with the project's `ark` first on PATH; it
must exit 0. A ```text block right after it is output the block claims: its lines must appear
in the real output (consecutively; a `...` line skips any number of lines). Answer rows an
`ark ask` block claims on the synthetic graph are checked against the gold answers of that
question. A block whose first line is `# needs: ...` (an API key, a server, a GPU, minutes of
CPU) is not run; the test lists them so none hides.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
ASK = re.compile(r'^ark ask (\S+) "([^"]+)"', re.M)
ANSWER_ROW = re.compile(r"^│\s*\d+\s*│\s*(\S+)\s*│")
GAP = "..."
GUIDE_START = "\n## Install\n"
NOT_SHIPPED = (".venv", ".git", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache",
               ".pytest_cache", "build", "dist")  # fmt: skip


@dataclass(frozen=True)
class Example:
    """One bash block of the README and the output it claims (if any)."""

    line: int
    script: str
    claimed: str | None

    @property
    def needs(self) -> str | None:
        first = self.script.strip().splitlines()[0]
        return first.removeprefix("# needs:").strip() if first.startswith("# needs:") else None


def examples(text: str) -> list[Example]:
    """The user guide's bash blocks in order, each with the text block right after it."""
    found: list[Example] = []
    guide = text.index(GUIDE_START)
    blocks = [block for block in FENCE.finditer(text) if block.start() > guide]
    for index, block in enumerate(blocks):
        if block.group(1) != "bash":
            continue
        claimed = None
        after = blocks[index + 1] if index + 1 < len(blocks) else None
        if after and after.group(1) == "text" and not text[block.end() : after.start()].strip():
            claimed = after.group(2)
        found.append(Example(text.count("\n", 0, block.start()) + 1, block.group(2), claimed))
    return found


def claimed_lines_found(claimed: str, output: str) -> str | None:
    """None when the claimed lines appear in the output; else the first one that does not."""
    actual = [line.rstrip() for line in output.splitlines()]
    segments: list[list[str]] = [[]]
    for line in claimed.splitlines():
        if line.strip() == GAP:
            segments.append([])
        else:
            segments[-1].append(line.rstrip())
    position = 0
    for segment in filter(None, segments):
        for start in range(position, len(actual) - len(segment) + 1):
            if actual[start : start + len(segment)] == segment:
                position = start + len(segment)
                break
        else:
            return segment[0]
    return None


def gold_answers(workdir: Path, snapshot: str, question: str) -> set[str] | None:
    """The gold ids of `question` in the snapshot's generated question files, if it is there."""
    for split in ("train", "val", "test"):
        path = workdir / snapshot / "qa" / f"{split}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        for line in lines:
            item = json.loads(line)
            if item.get("query") == question:
                return set(item["answer_ids"])
    return None


def test_readme_blocks_are_found_and_every_skipped_one_says_why() -> None:
    found = examples(README.read_text(encoding="utf-8"))
    run = [example for example in found if example.needs is None]
    assert len(run) >= 5 and sum(example.claimed is not None for example in run) >= 3
    assert all(example.needs for example in found if example not in run)
    assert any(ASK.search(example.script) for example in run if example.claimed)


def test_claimed_lines_match_in_order_with_gaps() -> None:
    output = "a\nb\nc\nd\n"
    assert claimed_lines_found("a\nb\n...\nd\n", output) is None
    assert claimed_lines_found("a\nc\n", output) == "a"  # not consecutive without a gap
    assert claimed_lines_found("d\n...\na\n", output) == "a"  # order matters


def fresh_clone(root: Path) -> Path:
    """A `git clone` of this tree's repository at `root` / "clone": what a new user has.

    Blocks run there, so a path the README names must exist in the repository, not only in
    this working tree or beside it (the committed files: CI checks a clean checkout). A tree
    that is no git checkout is copied instead, without what a build leaves (`NOT_SHIPPED`).
    """
    clone = root / "clone"
    done = subprocess.run(
        ["git", "clone", "-q", str(README.parent), str(clone)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:  # not a git checkout (an unpacked archive): a copy of its files
        shutil.copytree(README.parent, clone, ignore=shutil.ignore_patterns(*NOT_SHIPPED))
    return clone


@pytest.mark.slow
def test_every_readme_example_runs_and_shows_a_correct_answer(tmp_path: Path) -> None:
    workdir = fresh_clone(tmp_path)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",
        "TERM": "dumb",
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    env.pop("NO_COLOR", None)
    checked_answers = 0
    for example in examples(README.read_text(encoding="utf-8")):
        if example.needs is not None:
            continue
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", example.script],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        output = done.stdout + done.stderr
        where = f"README.md line {example.line}"
        assert done.returncode == 0, f"{where} failed ({done.returncode}):\n{output[-3000:]}"
        if example.claimed is None:
            continue
        missing = claimed_lines_found(example.claimed, done.stdout)
        assert missing is None, f"{where} does not print {missing!r}; it printed:\n{done.stdout}"
        for snapshot, question in ASK.findall(example.script):
            gold = gold_answers(workdir, snapshot, question)
            shown = [
                m.group(1) for line in example.claimed.splitlines() if (m := ANSWER_ROW.match(line))
            ]
            if gold is not None and shown:
                assert set(shown) <= gold, f"{where}: {shown} are not all gold ({sorted(gold)})"
                checked_answers += 1
    assert checked_answers >= 1  # at least one claimed answer list is checked against gold


def test_install_lists_every_extra() -> None:
    import tomllib

    pyproject = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))
    text = README.read_text(encoding="utf-8")
    install = text[text.index(GUIDE_START) : text.index("\n## ", text.index(GUIDE_START) + 1)]
    extras = pyproject["project"]["optional-dependencies"]
    missing = [name for name in extras if f"'.[{name}]'" not in install]
    assert not missing, f"README's Install section does not list the extras {missing}"


def test_the_pinned_model_wheels_are_the_extras_own() -> None:
    """model-wheels.txt pins, with hashes, the model wheels the extras name."""
    pinned = (README.parent / "model-wheels.txt").read_text()
    pyproject = (README.parent / "pyproject.toml").read_text()
    lines = [line for line in pinned.splitlines() if line and not line.startswith("#")]
    assert len(lines) == 2
    for line in lines:
        name = line.split("==")[0]
        assert f'"{name}>=' in pyproject and "--hash=sha256:" in line
    assert "model-wheels.txt" in README.read_text()
