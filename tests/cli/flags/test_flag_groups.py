"""Agent, endpoint and run flags are declared once; every command taking a group offers it all."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Annotated

import pytest
import typer
from command_tree import walk
from typer.testing import CliRunner

from agent.config import AgentConfig
from cli.app import build_app
from cli.commands.direction import LABELLER_FLAGS_ONLY
from cli.flags.agent import AgentFlags, EndpointFlags
from cli.flags.groups import flag_group, injected_flags, with_flags
from cli.flags.imports import EXTRACT_WITHOUT, SYNTH_WITHOUT, ImportFlags
from cli.flags.rerank import RerankDocFlags
from cli.flags.run import NewRunFlags, RunFlags, SampleFlags
from cli.flags.sarg import SargFlags
from evals.qa.sampling import SampleError
from graphs.errors import ConfigError

AGENT_COMMANDS = {"ask", "repl", "eval run", "eval sweep", "demo", "distill direction-labels"}
# commands whose model has its own -m and --max-tokens: only where it is served, and how long
ENDPOINT_COMMANDS = {"answer", "eval answers", "plan", "graph extract", "rerank"}
RUN_COMMANDS = {"eval run", "eval sweep", "baseline bm25", "baseline dense"}
# a new run of one split of earlier runs' rankings: no --resume, --split the split written
NEW_RUN_COMMANDS = {"fuse", "rerank"}
# not RunFlags: their --qa is optional (plan), JSONL with answers (eval answers) or NewRunFlags'
SAMPLE_COMMANDS = {"plan", "rerank", "eval answers"}
SARG_COMMANDS = {"answer", "eval answers"}
RERANK_DOC_COMMANDS = {"distill reranker", "rerank"}
IMPORT_COMMANDS = {"graph import tabular", "graph import stark", "graph synth", "graph extract"}
EXCEPTIONS = {
    ("eval sweep", AgentFlags): {"agents", "max_steps"},  # grids of them instead
    ("eval sweep", RunFlags): {"resume", "as_json"},  # always resumes; writes a report
    # the model that labels directions: -m and its endpoint
    ("distill direction-labels", AgentFlags): set(LABELLER_FLAGS_ONLY["agent"]),
    ("graph synth", ImportFlags): set(SYNTH_WITHOUT),  # generated rows are all valid
    ("graph extract", ImportFlags): set(EXTRACT_WITHOUT),  # rows made from documents
}


def declared_options(group: type) -> dict[str, set[str]]:
    """Per field of a flag group, the option strings its one declaration gives it."""
    hints = typing.get_type_hints(group, include_extras=True)
    options = {}
    for field in dataclasses.fields(group):
        info = next(
            m for m in hints[field.name].__metadata__ if isinstance(m, typer.models.OptionInfo)
        )
        # In Annotated, Typer keeps the first declaration in `default`, the rest in param_decls
        names = (info.default, *(info.param_decls or ()))
        options[field.name] = {
            part
            for d in names
            if isinstance(d, str) and d.startswith("--")
            for part in d.split("/")[:1]
        } or {"--" + field.name.replace("_", "-")}  # no name given: Typer's from the field
    return options


COMMANDS = dict(walk(typer.main.get_command(build_app())))


TAKERS = {
    AgentFlags: AGENT_COMMANDS,
    EndpointFlags: ENDPOINT_COMMANDS,
    RunFlags: RUN_COMMANDS,
    NewRunFlags: NEW_RUN_COMMANDS,
    ImportFlags: IMPORT_COMMANDS,
    SargFlags: SARG_COMMANDS,
    RerankDocFlags: RERANK_DOC_COMMANDS,
    SampleFlags: SAMPLE_COMMANDS,
}


@pytest.mark.parametrize("group", list(TAKERS))
def test_every_command_taking_a_group_offers_all_of_it_from_the_one_declaration(
    group: type,
) -> None:
    expected = TAKERS[group]
    declared = declared_options(group)
    takers = {name for name, cmd in COMMANDS.items() if group in injected_flags(cmd.callback)}
    assert takers == expected
    for name in takers:
        command = COMMANDS[name]
        skipped = EXCEPTIONS.get((name, group), set())
        assert set(injected_flags(command.callback)[group]) == set(declared) - skipped, name
        offered = {opt for param in command.params for opt in param.opts}
        for field, options in declared.items():
            if field not in skipped:
                assert options <= offered, (name, field)


def test_no_command_declares_an_agent_or_endpoint_flag_by_itself() -> None:
    """--temperature, --ablate, ... come only from AgentFlags; --base-url, --request-timeout,
    ... only from AgentFlags or EndpointFlags (whose fields AgentFlags holds too)."""
    agent_only = {"--temperature", "--ablate", "--toolset", "--brief-prompt", "--tool-calls"}
    endpoint = set().union(*declared_options(EndpointFlags).values())
    assert endpoint == {"--base-url", "--request-timeout", "--max-retries", "--call-deadline"}
    assert agent_only | endpoint <= set().union(*declared_options(AgentFlags).values())
    for name, command in COMMANDS.items():
        offered = {opt for param in command.params for opt in param.opts}
        groups = injected_flags(command.callback)
        if offered & agent_only:
            assert AgentFlags in groups, name
        if offered & endpoint:
            assert AgentFlags in groups or EndpointFlags in groups, name


def test_repl_gains_temperature_and_ablate_and_rerank_sample_fraction() -> None:
    repl = {opt for param in COMMANDS["repl"].params for opt in param.opts}
    assert {"--temperature", "--ablate", "--request-timeout", "--call-deadline"} <= repl
    for name in ("rerank", "plan", "eval answers"):
        offered = {opt for param in COMMANDS[name].params for opt in param.opts}
        assert "--sample-fraction" in offered, name


def test_agent_flags_map_onto_agent_config_once() -> None:
    flags = AgentFlags(
        model="rules",
        request_timeout=7.5,
        max_retries=1,
        call_deadline=30.0,
        toolset="paper",  # type: ignore[arg-type]
        temperature=0.2,
    )
    config = flags.config()
    assert (config.request_timeout_s, config.max_retries, config.call_deadline_s) == (7.5, 1, 30.0)
    assert config.tools.toolset == "paper" and config.temperature == 0.2
    record = config.to_record()
    assert record["request_timeout_s"] == 7.5 and record["call_deadline_s"] == 30.0
    left_out = AgentFlags(model="rules").config()
    assert left_out == AgentConfig(model="rules")


def test_conflicting_flags_are_a_user_error() -> None:
    """The configurations raise ConfigError / SampleError themselves (one line, exit 2)."""
    with pytest.raises(ConfigError, match="paper"):
        AgentFlags(model="rules", toolset="paper", dense_search=Path("enc")).config()  # type: ignore[arg-type]
    with pytest.raises(SampleError, match="fraction"):
        RunFlags(qa=Path("q"), out=Path("o"), sample=3, sample_fraction=0.5).request(Path("s"))
    with pytest.raises(ConfigError, match="limit must be >= 1"):
        RunFlags(qa=Path("q"), out=Path("o"), limit=0).request(Path("s"))


def test_the_new_flags_reach_the_stored_run_configuration(tmp_path: Path) -> None:
    from tests.evals.eval_graph import build_tiny

    snapshot, qa = build_tiny(tmp_path)
    out = tmp_path / "run"
    args = ["eval", str(snapshot), "--qa", str(qa), "--out", str(out), "--limit", "1",
            "-m", "rules", "--agents", "1", "--request-timeout", "9", "--max-retries", "2",
            "--call-deadline", "40", "--toolset", "paper", "--json"]  # fmt: skip
    result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 0, result.output
    import json

    agent = json.loads((out / "config.json").read_text())["agent"]
    assert (agent["request_timeout_s"], agent["max_retries"], agent["call_deadline_s"]) == (
        9.0,
        2,
        40.0,
    )
    assert agent["tools"]["toolset"] == "paper"


@flag_group
@dataclasses.dataclass(frozen=True, kw_only=True)
class _Pair:
    left: Annotated[int, typer.Option("--left")] = 1
    right: Annotated[int, typer.Option("--right")] = 2


def test_with_flags_gathers_values_into_the_group_and_refuses_clashes() -> None:
    seen: list[_Pair] = []

    @with_flags()
    def command(*, pair: _Pair, extra: Annotated[int, typer.Option("--extra")] = 0) -> None:
        seen.append(pair)

    app = typer.Typer()
    app.command()(command)
    result = CliRunner().invoke(app, ["--right", "5", "--extra", "1"])
    assert result.exit_code == 0, result.output
    assert seen == [_Pair(left=1, right=5)]

    def clashing(*, pair: _Pair, left: int = 0) -> None: ...

    with pytest.raises(TypeError, match="left"):
        with_flags()(clashing)


def test_the_sample_flags_reach_their_sample() -> None:
    flags = SampleFlags(sample_fraction=0.25, seed=3)
    assert flags.question_sample().to_record() == {"size": None, "fraction": 0.25, "seed": 3}
    with pytest.raises(SampleError, match="fraction"):
        SampleFlags(sample=5, sample_fraction=0.25).question_sample()


def test_no_command_declares_an_import_flag_by_itself() -> None:
    """--skip-invalid, --strict, --analyzer, ... come only from ImportFlags."""
    imports = set().union(*declared_options(ImportFlags).values())
    assert {"--skip-invalid", "--memory-limit", "--analyzer", "--strict"} <= imports
    for name, command in COMMANDS.items():
        offered = {opt for param in command.params for opt in param.opts}
        # --overwrite and --memory-limit also name other things (an embedding, training)
        if offered & (imports - {"--overwrite", "--memory-limit"}):
            assert ImportFlags in injected_flags(command.callback), name


def test_the_flag_contract_lists_every_command_module() -> None:
    """The import contract (pyproject.toml) that keeps commands from importing each other."""
    import tomllib

    root = Path(__file__).parents[3]
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = next(
        c for c in contracts["contracts"] if c["name"].startswith("Commands take their flags")
    )
    commands = {
        f"cli.commands.{path.stem}"
        for path in (root / "cli" / "commands").glob("*.py")
        if path.stem != "__init__"
    }
    assert set(contract["modules"]) == commands
