"""`ark ask` and the REPL say once when a question is not in the analyzer's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli.app import build_app
from cli.output.language_warning import LanguageWarning
from graphs.snapshot import Snapshot
from tests.evals.eval_graph import build_tiny


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny(tmp_path_factory.mktemp("language"))[0]


def test_ask_warns_on_a_german_question_and_still_answers(tiny: Path) -> None:
    argv = ["ask", str(tiny), "Welche Marke stellt Wasserkocher her?", "--agents", "1", "-q"]
    result = CliRunner().invoke(build_app(), argv)
    assert result.exit_code == 0, result.output
    assert "warning: the question looks written in 'de'" in " ".join(result.output.split())
    english = CliRunner().invoke(build_app(), ["ask", str(tiny), "Who makes kettles?", "-q"])
    assert english.exit_code == 0 and "warning" not in english.output


def test_the_warning_is_printed_once_per_session(tiny: Path) -> None:
    console = Console(record=True, width=200)
    warning = LanguageWarning(Snapshot.open(tiny), console)
    for question in ("Welche Marke stellt Wasserkocher her?", "Quels paquets dépendent de perl ?"):
        warning.note(question)
    assert console.export_text().count("warning:") == 1
