"""The one model spec (`rules`, `hf:PATH`, `openai:NAME`, a bare NAME) and its adapters.

Every command reads `-m` through `parse_model_spec`, so a spec means the same thing in
`ark ask`, `ark eval`, `ark rerank` and training.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent.config import AgentConfig
from agent.models.base import Model, ModelError

if TYPE_CHECKING:
    from graphs.manifest import Manifest
    from tools.plans.vocabulary import TermStats

MODEL_ENV_VAR = "ARK_MODEL"
"""Environment variable read when -m/--model is not given."""

ENDPOINT_ENV_VARS = ("OPENAI_BASE_URL", "OPENAI_API_KEY")
"""Either one set says a bare model NAME is served by an OpenAI-compatible endpoint."""

SPEC_FORMS = (
    "`rules` (the offline rule policy), "
    "`hf:PATH` (a local transformers model or PEFT adapter directory, or a .gguf file), "
    "`openai:NAME` (a model served by an OpenAI-compatible endpoint; --base-url or "
    "OPENAI_BASE_URL, OPENAI_API_KEY), or a bare NAME when a base URL or API key is set"
)
_PREFIXES = ("rules", "hf:", "openai:")

Backend = Literal["rules", "hf", "openai"]


class ModelSpecError(ModelError, ValueError):
    """The model spec is empty or names something that cannot be loaded."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec.

    Attributes:
        backend: `rules`, `hf` (a local causal LM) or `openai` (an HTTP endpoint).
        target: The local path (`hf`), the model id sent to the endpoint (`openai`), or ""
            (`rules`).
    """

    backend: Backend
    target: str = ""

    @property
    def path(self) -> Path:
        """The local model path of an `hf` spec."""
        return Path(self.target).expanduser()

    def __str__(self) -> str:
        return "rules" if self.backend == "rules" else f"{self.backend}:{self.target}"


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


def endpoint_configured(
    base_url: str | None = None, *, environ: Mapping[str, str] | None = None
) -> bool:
    """True when a base URL (flag or OPENAI_BASE_URL) or OPENAI_API_KEY names an endpoint."""
    env = os.environ if environ is None else environ
    return bool(base_url) or any(env.get(name) for name in ENDPOINT_ENV_VARS)


def parse_model_spec(
    spec: str, *, base_url: str | None = None, environ: Mapping[str, str] | None = None
) -> ModelSpec:
    """Parse a `-m` value.

    `rules`; `hf:PATH` (a model directory, a PEFT adapter directory or a .gguf file, which
    must exist); `openai:NAME`; a bare NAME is `openai:NAME` only when an endpoint is
    configured (`base_url`, OPENAI_BASE_URL or OPENAI_API_KEY), else an error that suggests
    the closest spec (`rule` -> `rules`, an existing path -> `hf:PATH`), so a typo never
    reaches a public API.

    Args:
        spec: The spec as given.
        base_url: The --base-url value, if any.
        environ: Environment to read (defaults to os.environ).

    Raises:
        ModelSpecError: The spec is empty, `hf:` names no existing path, or a bare name is
            given with no endpoint configured.
    """
    text = spec.strip()
    if not text:
        raise ModelSpecError(f"empty model spec; use one of: {SPEC_FORMS}")
    if text == "rules":
        return ModelSpec("rules")
    if text.startswith("hf:"):
        return _hf_spec(text.removeprefix("hf:").strip())
    if text.startswith("openai:"):
        name = text.removeprefix("openai:").strip()
        if not name:
            raise ModelSpecError(
                f"`openai:` needs a model name, e.g. openai:gpt-4o-mini; {SPEC_FORMS}"
            )
        return ModelSpec("openai", name)
    if endpoint_configured(base_url, environ=environ):
        return ModelSpec("openai", text)
    raise ModelSpecError(_unknown_bare_name(text))


def _hf_spec(raw_path: str) -> ModelSpec:
    if not raw_path:
        raise ModelSpecError(
            "`hf:` needs a path, e.g. -m hf:runs/student/adapter or -m hf:model.Q4_K_M.gguf"
        )
    path = Path(raw_path).expanduser()
    if not path.is_dir() and not (path.is_file() and path.suffix.lower() == ".gguf"):
        raise ModelSpecError(
            f"hf:{raw_path}: no such directory or .gguf file; give the folder holding "
            "config.json (a model) or adapter_config.json (a PEFT adapter), or a .gguf file"
        )
    return ModelSpec("hf", raw_path)


def _unknown_bare_name(name: str) -> str:
    if Path(name).expanduser().exists():
        hint = f"did you mean 'hf:{name}'? (a local model is given as hf:PATH)"
    elif difflib.get_close_matches(name.lower(), ["rules"], n=1):
        hint = "did you mean 'rules'?"
    else:
        hint = (
            f"for a served model give -m openai:{name} with --base-url URL (or OPENAI_API_KEY "
            "for OpenAI itself); a local one is hf:PATH, the offline rule policy `rules`."
        )
    return (
        f"unknown model {name!r} — {hint} A bare model name is sent to an OpenAI-compatible "
        "endpoint only when --base-url, OPENAI_BASE_URL or OPENAI_API_KEY is set."
    )


def load_model(
    config: AgentConfig, *, manifest: Manifest | None = None, vocabulary: TermStats | None = None
) -> Model:
    """Build the adapter that `config.model` names.

    Args:
        config: The run's config; `model` is the spec, the rest configures the adapter.
        manifest: The graph's schema; the rule policy plans with it (required for `rules`).
        vocabulary: The snapshot's index statistics, for the rule policy's relevance text.

    Returns:
        A Model.

    Raises:
        ModelSpecError: A bad spec (see `parse_model_spec`), or `rules` without a manifest.
        ModelError: The backend cannot be set up (e.g. the `distill` extra is missing).
    """
    spec = parse_model_spec(config.model, base_url=config.base_url)
    if spec.backend == "rules":
        if manifest is None:
            raise ModelSpecError(
                "model `rules` plans from the graph's schema: pass manifest=snapshot.manifest "
                "to load_model"
            )
        from agent.models.rules.policy import RulePolicy

        return RulePolicy(manifest, vocabulary)
    if spec.backend == "hf":
        from agent.models.hf.model import LocalHFModel

        return LocalHFModel.load(spec.path, max_tokens=config.max_tokens)
    from agent.models.openai.model import OpenAIChatModel

    return OpenAIChatModel.from_config(config, spec.target)
