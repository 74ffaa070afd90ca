"""Model specs map onto adapters; bad specs fail with errors that list the valid forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.models.base import ModelError
from agent.models.openai.model import OpenAIChatModel
from agent.models.registry import (
    ModelSpec,
    ModelSpecError,
    load_model,
    parse_model_spec,
    resolve_model_spec,
)
from agent.models.rules.policy import RulePolicy
from graphs.snapshot import Snapshot
from tools.toolset import Toolset


def test_rules_is_built_from_the_manifest_alone(tiny_snapshot: Snapshot) -> None:
    model = load_model(AgentConfig(model="rules"), manifest=tiny_snapshot.manifest)
    assert isinstance(model, RulePolicy) and model.name == "rules"
    assert not any(isinstance(value, Toolset | Snapshot) for value in vars(model).values())


def test_rules_without_manifest_is_a_clear_error() -> None:
    with pytest.raises(ModelSpecError, match=r"manifest=snapshot\.manifest"):
        load_model(AgentConfig(model="rules"))


@pytest.mark.parametrize(
    ("spec", "name"),
    [("openai:gpt-4o-mini", "gpt-4o-mini"), ("qwen3:8b", "qwen3:8b"), ("  llama  ", "llama")],
)
def test_other_specs_build_the_http_adapter(spec: str, name: str) -> None:
    config = AgentConfig(model=spec, base_url="http://127.0.0.1:9/v1", max_tokens=64)
    model = load_model(config)
    assert isinstance(model, OpenAIChatModel)
    assert model.name == name and model.max_tokens == 64
    assert model.base_url.startswith("http://127.0.0.1:9/v1")


@pytest.mark.parametrize("spec", ["", "   ", "openai:", "openai:  "])
def test_empty_specs_list_the_forms(spec: str) -> None:
    with pytest.raises(ModelSpecError, match=r"hf:PATH.*openai:NAME") as info:
        load_model(AgentConfig(model=spec))
    assert isinstance(info.value, ModelError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("suffix", ["", "does-not-exist", "file.txt"])
def test_hf_needs_an_existing_directory(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "file.txt").write_text("not a model")
    path = str(tmp_path / suffix) if suffix else ""
    with pytest.raises(ModelSpecError, match="hf:"):
        load_model(AgentConfig(model=f"hf:{path}"))


def test_hf_directory_without_a_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"no config\.json"):
        load_model(AgentConfig(model=f"hf:{tmp_path}"))


@pytest.mark.parametrize(
    ("cli", "env", "expected"),
    [
        ("gpt-4o", {"ARK_MODEL": "rules"}, "gpt-4o"),
        (None, {"ARK_MODEL": " hf:/models/student "}, "hf:/models/student"),
        (None, {}, "rules"),
        ("  ", {"ARK_MODEL": "qwen3:8b"}, "qwen3:8b"),
        (None, {"ARK_MODEL": ""}, "rules"),
    ],
)
def test_resolve_model_spec(cli: str | None, env: dict[str, str], expected: str) -> None:
    assert resolve_model_spec(cli, environ=env) == expected


def test_resolve_model_spec_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARK_MODEL", "openai:from-env")
    assert resolve_model_spec(None) == "openai:from-env"
    assert resolve_model_spec(None, default="x", environ={}) == "x"


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        ("rule", "did you mean 'rules'?"),
        ("Rules", "did you mean 'rules'?"),
        ("rulse", "did you mean 'rules'?"),
        ("gpt-4o-mini", "give -m openai:gpt-4o-mini with --base-url URL"),
        ("qwen3:8b", "give -m openai:qwen3:8b with --base-url URL"),
    ],
)
def test_a_bare_name_without_an_endpoint_is_an_unknown_model(spec: str, hint: str) -> None:
    with pytest.raises(ModelSpecError) as info:
        load_model(AgentConfig(model=spec))
    message = str(info.value)
    assert message.startswith(f"unknown model {spec!r} — ") and hint in message
    assert "OPENAI_BASE_URL" in message  # says how to mean an endpoint


def test_a_bare_existing_path_suggests_hf(tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError, match=f"did you mean 'hf:{tmp_path}'"):
        parse_model_spec(str(tmp_path), environ={})


@pytest.mark.parametrize("env", [{"OPENAI_API_KEY": "k"}, {"OPENAI_BASE_URL": "http://h/v1"}])
def test_a_bare_name_goes_to_the_endpoint_a_key_or_url_names(env: dict[str, str]) -> None:
    assert parse_model_spec("rule", environ=env) == ModelSpec("openai", "rule")
    assert parse_model_spec("qwen3:8b", base_url="http://h/v1", environ={}).backend == "openai"


def test_hf_takes_a_directory_or_a_gguf_file(tmp_path: Path) -> None:
    gguf = tmp_path / "model.Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF")
    assert parse_model_spec(f"hf:{gguf}") == ModelSpec("hf", str(gguf))
    assert parse_model_spec(f"hf:{tmp_path}").path == tmp_path
    assert str(parse_model_spec("openai:gpt-4o")) == "openai:gpt-4o"
    assert str(parse_model_spec(" rules ")) == "rules"
