"""Escape sequences in node text and questions print as text; odd questions are one clear line."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from rich.console import Console
from typer.testing import CliRunner

from agent.factory import make_agent
from cli.app import build_app
from cli.flags.agent import agent_config
from cli.output.safe_text import printable
from cli.repl.lines import StreamReader
from cli.repl.loop import Repl
from cli.repl.session import ReplSession
from evals.qa.records import MAX_QUESTION_CHARS
from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

TITLE = "\x1b]0;pwned\x07"  # sets the terminal window title
CLEAR = "\x1b[2J"  # clears the screen
REPO = Path(__file__).resolve().parents[3]
runner = CliRunner()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph whose node names and texts carry terminal escape sequences."""
    root = tmp_path_factory.mktemp("hostile") / "snap"
    nodes = [
        ("k1", "product", f"kettle{TITLE}one", f"A steel kettle{CLEAR} that boils water."),
        ("k2", "product", f"kettle{CLEAR}two", f"Another kettle{TITLE} for tea."),
        ("b1", "brand", "Acme", "Acme makes kettles."),
    ]
    edges = [("k1", "b1", "has_brand"), ("k2", "b1", "has_brand")]
    build_snapshot(
        pa.table({k: [n[j] for n in nodes] for j, k in enumerate(("id", "type", "name", "text"))}),
        pa.table({k: [e[j] for e in edges] for j, k in enumerate(("src", "dst", "relation"))}),
        root,
        name="hostile",
        candidate_types=["product"],
    )
    return root


def strings(value: object) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return []


def assert_neutralised(output: str) -> None:
    assert "\x1b" not in output and "\x07" not in output
    assert "\\x1b]0;pwned\\x07" in output or "\\x1b[2J" in output


def test_printable_shows_control_characters_and_keeps_text() -> None:
    assert printable(f"a{TITLE}b{CLEAR}c") == "a\\x1b]0;pwned\\x07b\\x1b[2Jc"
    assert printable("line one\nline\ttwo é ☃") == "line one\nline\ttwo é ☃"
    assert printable("\x9b31m\r\u202e\udcff") == "\\x9b31m\\x0d\\u202e\\udcff"


@pytest.mark.parametrize(
    "args",
    [
        ("search", "{snap}", "kettle"),
        ("node", "{snap}", "k1"),
        ("neighbors", "{snap}", "b1"),
        ("ask", "{snap}", f"which kettle{CLEAR} boils water{TITLE}?", "-m", "rules"),
    ],
)
def test_commands_print_escape_sequences_as_text(hostile: Path, args: tuple[str, ...]) -> None:
    result = runner.invoke(build_app(), [a.replace("{snap}", str(hostile)) for a in args])
    assert result.exit_code == 0, result.output
    assert_neutralised(result.output)


def test_stored_data_is_unchanged(hostile: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        build_app(), ["ask", str(hostile), "kettle boils", "-m", "rules", "--save", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert_neutralised(result.output)
    record = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    assert any(CLEAR in text or TITLE in text for text in strings(record))  # kept as it is
    node = Snapshot.open(hostile).internal_id("k1")
    assert Snapshot.open(hostile).name(node) == f"kettle{TITLE}one"


def test_repl_prints_escape_sequences_as_text(hostile: Path) -> None:
    session = ReplSession(
        snapshot=Snapshot.open(hostile),
        config=agent_config(model="rules"),
        agent_factory=make_agent,
    )
    lines = io.StringIO(f"kettle{CLEAR} water\n:node k1\n:search kettle\n:trace\n:schema\n:quit\n")
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, force_terminal=True)
    Repl(session, StreamReader(lines), console).run()
    shown = buffer.getvalue()
    # rich's own colour codes are ESC [ ... m; no other escape sequence may reach the terminal
    stripped = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert_neutralised(stripped)
    assert "kettle\\x1b]0;pwned\\x07one" in stripped


def test_a_question_over_the_limit_is_one_line(hostile: Path) -> None:
    result = runner.invoke(build_app(), ["ask", str(hostile), "x" * (MAX_QUESTION_CHARS + 1)])
    assert result.exit_code == 2
    assert f"{MAX_QUESTION_CHARS:,}" in result.stderr and "Traceback" not in result.output
    help_text = runner.invoke(build_app(), ["ask", "--help"], env={"COLUMNS": "200"}).output
    assert f"at most {MAX_QUESTION_CHARS:,}" in " ".join(help_text.split())


def test_non_utf8_bytes_in_a_question_are_one_line(hostile: Path) -> None:
    """A real argv with a Latin-1 byte (decoded by Python with surrogateescape)."""
    code = "import sys; sys.argv[0] = 'ark'; from cli.app import main; main()"
    argv = [
        sys.executable.encode(),
        b"-c",
        code.encode(),
        b"ask",
        bytes(hostile),
        b"caf\xe9 kettle",
    ]
    result = subprocess.run(argv, cwd=REPO, capture_output=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert b"not UTF-8" in result.stderr and b"Traceback" not in result.stderr


def test_non_utf8_line_in_the_repl_is_one_error_and_the_session_goes_on(hostile: Path) -> None:
    code = "import sys; sys.argv[0] = 'ark'; from cli.app import main; main()"
    stdin = b"caf\xe9 kettle\n:search kettle\n:quit\n"
    result = subprocess.run(
        [sys.executable, "-c", code, "repl", str(hostile), "-m", "rules"],
        cwd=REPO, input=stdin, capture_output=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "not UTF-8" in out and "bye" in out and "Traceback" not in out
