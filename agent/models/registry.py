"""Turn a model spec (`rules`, `hf:PATH`, `openai:NAME`, `NAME`) into a Model adapter."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agent.config import AgentConfig
from agent.models.base import Model, ModelError

if TYPE_CHECKING:
    from graphs.manifest import Manifest

MODEL_ENV_VAR = "ARK_MODEL"
"""Environment variable read when -m/--model is not given."""

"""Set to 0 to decode `hf:` agents one at a time through `generate` (default 1: batched)."""

SPEC_FORMS = (
    "`rules` (the offline rule policy), "
    "`hf:PATH` (a local transformers model, PEFT adapter or merged student), "
    "`openai:NAME` or plain `NAME` (a model served by an OpenAI-compatible endpoint; "
    "set OPENAI_BASE_URL / OPENAI_API_KEY)"
)


class ModelSpecError(ModelError, ValueError):
    """The model spec is empty or names something that cannot be loaded."""


def resolve_model_spec(
    cli_value: str | None,
    *,
    environ: Mapping[str, str] | None = None,
    default: str = AgentConfig.model,
) -> str:
    """Pick the model spec: the -m value, else $ARK_MODEL, else `default`.

    Args:
        cli_value: Value of -m/--model, None when the flag was not given.
        environ: Environment to read (defaults to os.environ).
        default: Spec used when neither is set (AgentConfig's default, `rules`).

    Returns:
        The spec, whitespace stripped.
    """
    env = os.environ if environ is None else environ
    for candidate in (cli_value, env.get(MODEL_ENV_VAR)):
        if candidate is not None and candidate.strip():
            return candidate.strip()
    return default


def load_model(config: AgentConfig, *, manifest: Manifest | None = None) -> Model:
    """Build the adapter that `config.model` names.

    Args:
        config: The run's config; `model` is the spec, the rest configures the adapter.
        manifest: The graph's schema; the rule policy plans with it (required for `rules`).

    Returns:
        A Model.

    Raises:
        ModelSpecError: Empty spec, `rules` without a manifest, or `hf:` with a missing path.
        ModelError: The backend cannot be set up (e.g. the `distill` extra is missing).
    """
    spec = config.model.strip()
    if not spec:
        raise ModelSpecError(f"empty model spec; use one of: {SPEC_FORMS}")
    if spec == "rules":
        if manifest is None:
            raise ModelSpecError(
                "model `rules` plans from the graph's schema: pass manifest=snapshot.manifest "
                "to load_model"
            )
        from agent.models.rules.policy import RulePolicy

        return RulePolicy(manifest)
    if spec.startswith("hf:"):
        return _load_local(spec.removeprefix("hf:").strip(), config)
    from agent.models.openai.model import OpenAIChatModel

    name = spec.removeprefix("openai:").strip()
    if not name:
        raise ModelSpecError(f"`openai:` needs a model name, e.g. openai:gpt-4o-mini; {SPEC_FORMS}")
    return OpenAIChatModel.from_config(config, name)


def _load_local(raw_path: str, config: AgentConfig) -> Model:
    if not raw_path:
        raise ModelSpecError("`hf:` needs a path, e.g. -m hf:runs/student/adapter")
    path = Path(raw_path).expanduser()
    if not path.is_dir():
        raise ModelSpecError(
            f"hf:{raw_path}: no such directory; give the folder holding config.json (a model) "
            "or adapter_config.json (a PEFT adapter)"
        )
    from agent.models.hf.model import LocalHFModel

    return LocalHFModel.load(path, max_tokens=config.max_tokens)
