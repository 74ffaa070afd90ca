"""Inputs that used to end in a traceback or be accepted as nonsense: each one clear line.

(The reliability pass, item 6; and item 4: a full disk or an unwritable path is one line that
names the path and says what to do, from any command.)
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli.app import build_app
from tests.evals.eval_graph import build_tiny


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_tiny(tmp_path_factory.mktemp("bad-inputs"))


def run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(), args)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    unboxed = re.sub("[│╭╮╰╯─]", " ", result.output)  # rich's usage-error box
    return result.exit_code, " ".join(unboxed.split())


@pytest.mark.parametrize("command", ["plan", "answer"])
def test_an_empty_question_is_refused_before_anything_loads(
    tiny: tuple[Path, Path], command: str
) -> None:
    code, output = run([command, str(tiny[0]), "  "])
    assert code == 2 and "error: the question is empty" in output


@pytest.mark.parametrize(
    "args",
    [
        ["demo"],
        ["eval", "report", "RUN"],
        ["distill", "dataset", "RUN"],
        ["graph", "synth", "--domain", "products"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_an_out_that_is_a_file_or_empty_is_refused(
    tmp_path: Path, tiny: tuple[Path, Path], args: list[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    args = [str(tiny[0]) if a == "RUN" else a for a in args]
    code, output = run([*args, "--out", str(afile)])
    assert code == 2 and "is a file, not a directory" in output
    assert afile.read_text() == "keep me"
    code, output = run([*args, "--out", ""])
    assert code == 2 and "the path is empty" in output


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--max-file-mb", "nan"], "--max-file-mb must be a positive number"),
        (["--concurrency", "-3"], "--concurrency must be at least 1"),
        (["--rpm", "0"], "--rpm must be a positive number"),
    ],
)
def test_extract_number_flags_are_checked_before_any_model_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], said: str
) -> None:
    import cli.commands.extract

    def no_extractor(*_: object) -> None:
        raise AssertionError("the extractor was built before the flags were checked")

    monkeypatch.setattr(cli.commands.extract, "_extractor", no_extractor)
    (tmp_path / "doc.txt").write_text("Ada Lovelace wrote the first program.")
    code, output = run(["graph", "extract", str(tmp_path / "doc.txt"), "--out",
                        str(tmp_path / "snap"), *flags])  # fmt: skip
    assert code == 2 and said in output


@pytest.mark.parametrize(
    ("flags", "said"),
    [(["--k", "inf"], "--k must be a finite number"), (["--weights", "-1,1"], "not negative")],
)
def test_fuse_refuses_constants_that_make_every_metric_zero(
    tmp_path: Path, tiny: tuple[Path, Path], flags: list[str], said: str
) -> None:
    snapshot, qa = tiny
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert run(["baseline", "bm25", str(snapshot), "--qa", str(qa), "--out", str(out)])[0] == 0
        runs.append(str(out))
    code, output = run(["fuse", *runs, "--qa", str(qa), "--out", str(tmp_path / "f"), *flags])
    assert code == 2 and said in output
    assert not (tmp_path / "f").exists()


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(errno.ENOSPC, "No space left on device", "/data/snap/nodes.arrow"),
         "/data/snap/nodes.arrow: no space left on device; free some space"),
        (PermissionError(errno.EACCES, "Permission denied", "/root/x"),
         "/root/x: permission denied; write to a path you may write to"),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", "/tmp/afile/x"),
         "/tmp/afile/x: not a directory; a file stands where a directory is needed"),
    ],
)  # fmt: skip
def test_a_file_system_error_is_one_line_naming_the_path(error: OSError, said: str) -> None:
    app = build_app()

    @app.command("boom")
    def boom() -> None:
        raise error

    result = CliRunner().invoke(app, ["boom"])
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert line.startswith(f"error: {said}")


@pytest.mark.parametrize(
    "error", [ConnectionResetError(errno.ECONNRESET, "reset"), OSError(errno.EIO, "I/O error")]
)
def test_other_os_errors_stay_bugs(error: OSError) -> None:
    app: typer.Typer = build_app()

    @app.command("boom")
    def boom() -> None:
        raise error

    result = CliRunner().invoke(app, ["boom"])
    assert result.exit_code != 2 and result.exception is error
