"""No command declares its own --qa, --out, --split or --resume: each comes from cli/flags/.

A flag's declaration is the `typer.Option` inside its `Annotated` alias. The check below
follows each command's callback to its signature and asks, by identity, whether every such
option is one declared in a module of cli/flags/; a command that writes
`Annotated[Path, typer.Option("--out", ...)]` itself fails it, whatever the help says.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from command_tree import walk
from typer.models import OptionInfo

import cli.flags
from cli.app import build_app
from cli.flags.run import OutOpt, QaOpt

RUN_FLAGS = frozenset({"--qa", "--out", "--split", "--resume"})

# Flags of these names that name something other than a run or its question set: each pair
# (command, flag) with why it is not a run flag. Entries must still exist (see below), so
# the list only shrinks; a new command that writes a run takes the flags from cli/flags/.
NOT_RUN_FLAGS: dict[tuple[str, str], str] = {
    ("demo", "--out"): "the demo's directory (a graph and its runs)",
    ("graph import tabular", "--out"): "a snapshot directory to create",
    ("graph import stark", "--out"): "a snapshot directory to create",
    ("graph synth", "--out"): "a snapshot directory to create",
    ("graph extract", "--out"): "a snapshot directory to create",
    ("eval report", "--out"): "a report directory (report.md and figures)",
    ("eval answers-report", "--out"): "a Markdown file",
    ("distill direction-labels", "--out"): "a labels file",
    ("distill direction-labels", "--qa"): "questions to label, no run",
    ("distill direction-head", "--out"): "a head file",
    ("distill dataset", "--out"): "a dataset directory",
    ("distill train", "--out"): "an adapter directory",
    ("distill train", "--resume"): "continues training from a checkpoint, not a run",
    ("distill merge", "--out"): "a merged model directory",
    ("distill reranker", "--out"): "an adapter directory",
    ("distill reranker", "--qa"): "training questions, no run (candidate for cli/flags/)",
    ("distill reranker", "--split"): "the split trained on, default train",
}


def option_names(info: OptionInfo) -> set[str]:
    """The option strings of a declaration (Typer keeps the first one in `default`)."""
    names = (info.default, *(info.param_decls or ()))
    return {part for name in names if isinstance(name, str) for part in name.split("/")}


def options_of(annotation: object) -> list[OptionInfo]:
    """The typer.Option declarations inside an `Annotated` annotation (none otherwise)."""
    if typing.get_origin(annotation) is not Annotated:
        return []
    return [meta for meta in typing.get_args(annotation)[1:] if isinstance(meta, OptionInfo)]


def declared_in_flags() -> list[OptionInfo]:
    """Every option declared in a module of cli/flags/: its aliases and its groups' fields."""
    declared: list[OptionInfo] = []
    for module_info in pkgutil.iter_modules(cli.flags.__path__):
        module = importlib.import_module(f"cli.flags.{module_info.name}")
        for value in vars(module).values():
            declared += options_of(value)
            if isinstance(value, type) and value.__module__ == module.__name__:
                hints = typing.get_type_hints(value, include_extras=True)
                declared += [info for hint in hints.values() for info in options_of(hint)]
    return declared


def own_run_flags(callback: Callable[..., Any], declared: list[OptionInfo]) -> set[str]:
    """The run flags `callback` declares itself, i.e. with a typer.Option not in `declared`."""
    own: set[str] = set()
    for parameter in inspect.signature(callback, eval_str=True).parameters.values():
        for info in options_of(parameter.annotation):
            if not any(info is known for known in declared):
                own |= option_names(info) & RUN_FLAGS
    return own


COMMANDS = dict(walk(typer.main.get_command(build_app())))
DECLARED = declared_in_flags()


def test_every_run_flag_of_every_command_comes_from_cli_flags() -> None:
    own = {
        (name, flag)
        for name, command in COMMANDS.items()
        for flag in own_run_flags(command.callback, DECLARED)
    }
    assert own - NOT_RUN_FLAGS.keys() == set(), "declare these in cli/flags/run.py and import them"
    assert NOT_RUN_FLAGS.keys() - own == set(), "gone: drop them from NOT_RUN_FLAGS"


def test_the_four_run_writing_commands_offer_their_run_flags() -> None:
    """The commands this check was written for take all of theirs from cli/flags/."""
    expected = {
        "fuse": {"--qa", "--out", "--split"},
        "rerank": {"--qa", "--out", "--split"},
        "plan": {"--qa", "--out", "--split", "--resume"},
        "eval answers": {"--qa", "--out", "--resume"},
    }
    for name, flags in expected.items():
        offered = {opt for param in COMMANDS[name].params for opt in param.opts}
        assert offered & RUN_FLAGS == flags, name
        assert own_run_flags(COMMANDS[name].callback, DECLARED) == set(), name


def test_the_check_catches_a_command_that_declares_its_own_run_flag() -> None:
    def own(
        qa: QaOpt,
        out: Annotated[Path, typer.Option("--out", help="Run directory.")],
        split: Annotated[str, typer.Option("--split")] = "test",
        resume: Annotated[bool, typer.Option("--resume/--no-resume")] = False,
        depth: Annotated[int, typer.Option("--depth")] = 10,
    ) -> None: ...

    def shared(qa: QaOpt, out: OutOpt) -> None: ...

    assert own_run_flags(own, DECLARED) == {"--out", "--split", "--resume"}
    assert own_run_flags(shared, DECLARED) == set()
    app = typer.Typer()
    app.command()(own)
    registered = typer.main.get_command(app).callback  # Typer's wrapper, as for the app's
    assert registered is not None
    assert own_run_flags(registered, DECLARED) == {"--out", "--split", "--resume"}
