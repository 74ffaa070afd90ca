"""User errors end as one line and exit 2; bugs keep their traceback; extras hint correctly."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli.app import build_app
from graphs.errors import ArkError
from tests.evals.eval_graph import build_tiny

# Every module that defines a user-facing error (imported so that each subclass is seen).
ERROR_MODULES = (
    "graphs.errors",
    "graphs.dense.embeddings",
    "graphs.dense.encoder",
    "graphs.synth.generate",
    "agent.models.base",
    "agent.models.registry",
    "agent.models.hf.gguf",
    "agent.models.hf.loader",
    "agent.trajectory",
    "evals.qa.records",
    "evals.runs.store",
    "evals.qa.sampling",
    "evals.runs.circuit",
    "agent.models.circuit",
    "rank.rankings",
    "rank.fusion.fuse",
    "rank.rerank.cache",
    "rank.rerank.models",
    "distill.errors",
    "distill.reranker_data",
    "cli.repl.directives",
)
MESSAGE = "bad input in [dense] row 3; fix it with pip install 'ark-kg[dense]'"


def all_subclasses(root: type[ArkError]) -> list[type[ArkError]]:
    found: list[type[ArkError]] = []
    sub: type[ArkError]
    for sub in root.__subclasses__():
        found += [sub, *all_subclasses(sub)]
    return sorted(set(found), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def ark_error_classes() -> list[type[ArkError]]:
    for module in ERROR_MODULES:
        importlib.import_module(module)
    return [ArkError, *all_subclasses(ArkError)]


def app_raising(error: BaseException) -> typer.Typer:
    """The real `ark` application with one more command that raises `error`."""
    app = build_app()

    @app.command("boom")
    def boom() -> None:
        raise error

    return app


def instance(cls: type[ArkError], message: str) -> ArkError:
    """An instance carrying `message`, whatever the class's constructor takes."""
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    return error


def test_the_error_modules_define_the_expected_families() -> None:
    names = {cls.__name__ for cls in ark_error_classes()}
    expected = {"GraphError", "ModelError", "QAError", "RunStoreError", "RankingError",
                "RerankError", "DistillError", "TrajectoryVersionError", "CommandError",
                "ModelSpecError", "EndpointDownError", "MissingExtraError",
                "ConfigError"}  # fmt: skip
    assert expected <= names


@pytest.mark.parametrize("cls", ark_error_classes(), ids=lambda cls: cls.__name__)
def test_every_ark_error_is_one_line_and_exit_2(cls: type[ArkError]) -> None:
    result = CliRunner().invoke(app_raising(instance(cls, MESSAGE)), ["boom"])
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.output.strip().splitlines()
    assert lines == [f"error: {MESSAGE}"], result.output  # brackets printed as written


@pytest.mark.parametrize("error", [RuntimeError("boom"), ValueError("boom"), KeyError("boom")])
def test_other_exceptions_are_bugs_that_propagate(error: Exception) -> None:
    result = CliRunner().invoke(app_raising(error), ["boom"])
    assert result.exit_code != 2
    assert result.exception is error


def test_a_bug_prints_its_traceback_from_the_console_script() -> None:
    code = (
        "import sys\n"
        "from cli.app import build_app\n"
        "app = build_app()\n"
        "@app.command('boom')\n"
        "def boom() -> None:\n"
        "    raise RuntimeError('a real bug')\n"
        "sys.argv = ['ark', 'boom']\n"
        "app()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert "RuntimeError: a real bug" in done.stderr


@pytest.mark.parametrize(
    ("module", "extra"),
    [("torch", "distill"), ("trl", "distill"), ("sentence_transformers", "dense"), ("mcp", "mcp")],
)
def test_a_missing_optional_module_is_the_extras_one_line_hint(module: str, extra: str) -> None:
    missing = ModuleNotFoundError(f"No module named {module!r}", name=module)
    result = CliRunner().invoke(app_raising(missing), ["boom"])
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert f"pip install 'ark-kg[{extra}]'" in line and module in line


def test_a_missing_core_module_is_still_a_bug() -> None:
    missing = ModuleNotFoundError("No module named 'nonexistent_core'", name="nonexistent_core")
    result = CliRunner().invoke(app_raising(missing), ["boom"])
    assert result.exit_code != 2 and result.exception is missing


@pytest.fixture
def modules_restored() -> Iterator[None]:
    """Drop every module first imported during the test (those imported without torch are
    half-initialised: a later test importing transformers would get them)."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


@pytest.mark.usefixtures("modules_restored")
def test_distill_train_without_the_extra_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in sys.modules if name.split(".")[0] == "distill"]:
        monkeypatch.delitem(sys.modules, name)  # re-imported by the command, without torch
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails as if missing
    args = ["distill", "train", str(tmp_path), "--base-model", str(tmp_path), "--out",
            str(tmp_path / "out")]  # fmt: skip
    result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    # (transformers, installed here without torch, logs a warning line of its own)
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "needs the distill extra" in line and "pip install 'ark-kg[distill]'" in line


def test_a_typo_in_the_model_is_caught_at_once(tmp_path: Path) -> None:
    snapshot, _ = build_tiny(tmp_path)
    started = time.monotonic()
    result = CliRunner().invoke(build_app(), ["ask", str(snapshot), "who?", "-m", "rule"])
    assert time.monotonic() - started < 5  # no endpoint is tried
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert "unknown model 'rule'" in line and "did you mean 'rules'?" in line


def test_graph_embed_without_the_dense_extra_keeps_the_brackets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot, _ = build_tiny(tmp_path)
    encoder = tmp_path / "encoder"
    encoder.mkdir()
    (encoder / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    result = CliRunner().invoke(
        build_app(), ["graph", "embed", str(snapshot), "--encoder", str(encoder)]
    )
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert "[dense]" in line and "sentence-transformers is not installed" in line


def test_commands_leave_user_errors_to_the_one_handler() -> None:
    """No command re-prints an ArkError itself (ArkGroup does: one line, plain text, exit 2)."""
    import re

    cli_dir = Path(__file__).parents[3] / "cli"
    reprint = re.compile(
        r"except \(?[\w, ]*(?:Ark|Graph|Distill|Import)Error\)? as error:\n\s+"
        r"(?:fail\(str\(error\)\)|raise _fail|typer\.echo|console\.print)"
    )
    offenders = []
    for path in sorted((cli_dir / "commands").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if reprint.search(text) or "[red]error" in text:
            offenders.append(path.name)
    assert offenders == []
