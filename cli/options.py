"""Flags shared by the commands that run agents, and their mapping onto AgentConfig."""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from agent.config import AgentConfig
from agent.models.registry import MODEL_ENV_VAR, resolve_model_spec
from tools.config import ToolConfig

_PAPER = AgentConfig()


class Ablation(StrEnum):
    """The paper's tool ablations (Table 2)."""

    no_neighbors = "no-neighbors"
    no_query_ranking = "no-query-ranking"
    no_type_filters = "no-type-filters"


ModelOpt = Annotated[
    str | None,
    typer.Option(
        "-m",
        "--model",
        help=f"rules | hf:PATH | openai:NAME or a served model name (env {MODEL_ENV_VAR}; "
        f"default {_PAPER.model}).",
    ),
]
AgentsOpt = Annotated[
    int | None,
    typer.Option(
        "--agents", min=1, help=f"Parallel agents (default {_PAPER.n_agents}).", show_default=False
    ),
]
StepsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-steps",
        min=1,
        help=f"Turns per agent (default {_PAPER.max_steps}).",
        show_default=False,
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)."),
]
TemperatureOpt = Annotated[
    float | None,
    typer.Option(
        "--temperature", min=0.0, help=f"Sampling temperature (default {_PAPER.temperature})."
    ),
]
MaxTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        min=1,
        help=f"Cap on the tokens a model generates per turn (default {_PAPER.max_tokens}); "
        "a low cap bounds each turn's time on a slow local server.",
        show_default=False,
    ),
]
AblateOpt = Annotated[
    list[Ablation] | None, typer.Option("--ablate", help="Remove a tool capability (repeatable).")
]
DenseSearchOpt = Annotated[
    Path | None,
    typer.Option(
        "--dense-search",
        help="Offer the dense_search tool, encoding queries with this local "
        "sentence-transformers directory (the one `ark graph embed` used). Off by default.",
    ),
]
BriefPromptOpt = Annotated[
    bool,
    typer.Option(
        "--brief-prompt",
        help="The short system prompt and tool schemas that small distilled students are "
        "trained on (`ark distill` students trained on such a teacher run need it).",
    ),
]
SnapshotArg = Annotated[Path, typer.Argument(help="Snapshot directory (see `ark graph`).")]


def agent_config(
    *,
    model: str | None = None,
    agents: int | None = None,
    max_steps: int | None = None,
    base_url: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    ablate: list[Ablation] | None = None,
    base: AgentConfig | None = None,
    dense_search: Path | None = None,
    brief_prompt: bool = False,
) -> AgentConfig:
    """Map command-line flags onto an AgentConfig (the only thing the CLI configures).

    A flag left out (None) keeps the value of `base`, else AgentConfig's paper default; the
    model falls back to $ARK_MODEL through `resolve_model_spec`, the one place that reads it.
    """
    config = base or AgentConfig()
    ablations = set(ablate or [])
    tools = replace(
        config.tools if base else ToolConfig(),
        enable_neighbors=Ablation.no_neighbors not in ablations,
        neighbor_query_ranking=Ablation.no_query_ranking not in ablations,
        type_filters=Ablation.no_type_filters not in ablations,
    )
    if dense_search is not None:
        tools = replace(tools, enable_dense_search=True, dense_encoder=str(dense_search))
    if brief_prompt:
        tools = replace(tools, brief_schemas=True)
    return replace(
        config,
        model=resolve_model_spec(model, default=config.model),
        n_agents=config.n_agents if agents is None else agents,
        max_steps=config.max_steps if max_steps is None else max_steps,
        base_url=base_url or config.base_url,
        temperature=config.temperature if temperature is None else temperature,
        max_tokens=config.max_tokens if max_tokens is None else max_tokens,
        tools=tools,
        brief_prompt=brief_prompt or config.brief_prompt,
    )


def fail(message: str, console: Console | None = None) -> NoReturn:
    """Print one clear error line and exit with code 2."""
    (console or Console(stderr=True)).print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code=2)
