"""The CLI restates no paper default and reads $ARK_MODEL in one place only."""

from __future__ import annotations

import inspect
from dataclasses import replace

import pytest

from agent.config import AgentConfig
from agent.models.registry import resolve_model_spec
from cli.commands import ask, demo, evaluate, repl
from cli.flags.agent import agent_config


def test_flags_left_out_keep_the_paper_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARK_MODEL", raising=False)
    assert agent_config() == AgentConfig()


def test_flags_left_out_keep_the_base_config() -> None:
    base = AgentConfig(n_agents=5, max_steps=7, temperature=0.1)
    config = agent_config(model="rules", base=base)
    assert (config.n_agents, config.max_steps, config.temperature) == (5, 7, 0.1)
    assert agent_config(model="rules", agents=2, base=base).n_agents == 2


@pytest.mark.parametrize("env", ["  ", "", "\t"])
def test_blank_ark_model_means_the_default_everywhere(
    monkeypatch: pytest.MonkeyPatch, env: str
) -> None:
    monkeypatch.setenv("ARK_MODEL", env)
    assert agent_config().model == resolve_model_spec(None) == AgentConfig().model


def test_ark_model_is_read_when_no_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARK_MODEL", " openai:from-env ")
    assert agent_config().model == "openai:from-env"
    assert agent_config(model="rules").model == "rules"


@pytest.mark.parametrize(
    "command",
    [ask.ask, repl.repl, evaluate.eval_run, demo.demo],
)
def test_no_command_signature_restates_agents_or_steps(command: object) -> None:
    parameters = inspect.signature(command).parameters  # type: ignore[arg-type]
    assert parameters["agents"].default is None
    assert parameters["max_steps"].default is None


def test_agent_config_changes_only_what_was_given() -> None:
    base = replace(AgentConfig(), seed=9)
    assert agent_config(model="rules", base=base, temperature=0.2) == replace(base, temperature=0.2)


def test_max_tokens_flag_reaches_the_config_and_is_offered_by_every_agent_command() -> None:
    assert agent_config(model="rules", max_tokens=96).max_tokens == 96
    assert agent_config(model="rules").max_tokens == AgentConfig().max_tokens
    for command in (ask.ask, repl.repl, evaluate.eval_run, evaluate.eval_sweep):
        assert inspect.signature(command).parameters["max_tokens"].default is None
