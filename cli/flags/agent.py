"""The agent and endpoint flags (AgentFlags, EndpointFlags), declared once; their AgentConfig."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agent.config import AgentConfig
from agent.models.action_turns import ToolCallMode
from agent.models.registry import MODEL_ENV_VAR, resolve_model_spec
from cli.flags.groups import flag_group
from tools.config import ToolConfig

if TYPE_CHECKING:
    from agent.models.structured import StructuredMode

__all__ = [
    "Ablation", "AgentFlags", "DenseSearchOpt", "EndpointFlags", "ToolsetChoice", "agent_config",
    "endpoint_settings", "structured_mode",
]  # fmt: skip

_PAPER = AgentConfig()


class Ablation(StrEnum):
    """The paper's tool ablations (Table 2)."""

    no_neighbors = "no-neighbors"
    no_query_ranking = "no-query-ranking"
    no_type_filters = "no-type-filters"


class ToolsetChoice(StrEnum):
    """The toolsets of ToolConfig.toolset."""

    paper = "paper"
    extended = "extended"


ModelOpt = Annotated[
    str | None,
    typer.Option(
        "-m",
        "--model",
        help=f"rules | hf:PATH | openai:NAME or a served model name (env {MODEL_ENV_VAR}; "
        f"default {_PAPER.model}).",
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)."),
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
RequestTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--request-timeout",
        min=0.1,
        help="Seconds one HTTP model request waits for the reply before it counts as timed "
        f"out (default {_PAPER.request_timeout_s:g}).",
        show_default=False,
    ),
]
MaxRetriesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-retries",
        min=0,
        help="Retries of a model request after a 429, 5xx or malformed reply "
        f"(default {_PAPER.max_retries}).",
        show_default=False,
    ),
]
CallDeadlineOpt = Annotated[
    float | None,
    typer.Option(
        "--call-deadline",
        min=0.1,
        help="Seconds one model call may take in all, retries and waits included, before "
        f"the agent's turn fails (default {_PAPER.call_deadline_s}).",
        show_default=False,
    ),
]
AblateOpt = Annotated[
    list[Ablation] | None, typer.Option("--ablate", help="Remove a tool capability (repeatable).")
]
ToolsetOpt = Annotated[
    ToolsetChoice | None,
    typer.Option(
        "--toolset",
        help="paper: the tools as the ARK paper publishes them; extended: ARK's additions "
        f"(type filter on search, k on neighbors). Default {ToolConfig().toolset}.",
        show_default=False,
    ),
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
AnswerTypeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--answer-type",
        help="Node type the answers must have in this run (repeatable); replaces the "
        "snapshot's candidate types (set at build with --candidate-types).",
    ),
]
ToolCallsOpt = Annotated[
    ToolCallMode | None,
    typer.Option(
        "--tool-calls",
        help="How a served or hf: model's tool calls are asked for: auto (natively; one "
        "JSON-schema-constrained action per turn once native calling fails: an empty turn, "
        "tools refused, or text again after the nudge), native, or action. Default auto.",
        show_default=False,
    ),
]


@flag_group
@dataclass(frozen=True, kw_only=True)
class AgentFlags:
    """The flags of every command that runs agents, declared once (see cli.flags.groups).

    A flag left out is None (False for switches) and keeps AgentConfig's value.
    """

    model: ModelOpt = None
    base_url: BaseUrlOpt = None
    agents: AgentsOpt = None
    max_steps: StepsOpt = None
    temperature: TemperatureOpt = None
    max_tokens: MaxTokensOpt = None
    request_timeout: RequestTimeoutOpt = None
    max_retries: MaxRetriesOpt = None
    call_deadline: CallDeadlineOpt = None
    ablate: AblateOpt = None
    toolset: ToolsetOpt = None
    dense_search: DenseSearchOpt = None
    brief_prompt: BriefPromptOpt = False
    answer_type: AnswerTypeOpt = None
    tool_calls: ToolCallsOpt = None

    def endpoint(self) -> dict[str, Any]:
        """The endpoint flags given, as AgentConfig fields (see `endpoint_settings`)."""
        return endpoint_settings(
            self.base_url, self.request_timeout, self.max_retries, self.call_deadline
        )

    def config(self, base: AgentConfig | None = None) -> AgentConfig:
        """The AgentConfig these flags ask for (see `agent_config`)."""
        return agent_config(
            model=self.model,
            base_url=self.base_url,
            agents=self.agents,
            max_steps=self.max_steps,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            request_timeout=self.request_timeout,
            max_retries=self.max_retries,
            call_deadline=self.call_deadline,
            ablate=self.ablate,
            toolset=self.toolset,
            dense_search=self.dense_search,
            brief_prompt=self.brief_prompt,
            answer_types=self.answer_type,
            tool_calls=self.tool_calls,
            base=base,
        )


@flag_group
@dataclass(frozen=True, kw_only=True)
class EndpointFlags:
    """The endpoint flags of commands that call a model but run no agents (declared once).

    `ark answer`, `ark eval answers`, `ark plan`, `ark graph extract` and `ark rerank` give
    their model its own `-m` and `--max-tokens`; these say where it is served and how long a
    call may take. A flag left out is None and keeps AgentConfig's value.
    """

    base_url: BaseUrlOpt = None
    request_timeout: RequestTimeoutOpt = None
    max_retries: MaxRetriesOpt = None
    call_deadline: CallDeadlineOpt = None

    def endpoint(self) -> dict[str, Any]:
        """The endpoint flags given, as AgentConfig fields (see `endpoint_settings`)."""
        return endpoint_settings(
            self.base_url, self.request_timeout, self.max_retries, self.call_deadline
        )


def endpoint_settings(
    base_url: str | None,
    request_timeout: float | None,
    max_retries: int | None,
    call_deadline: float | None,
) -> dict[str, Any]:
    """The endpoint flags given, as AgentConfig fields (AgentConfig(**endpoint_settings(...))).

    base_url, request_timeout_s, max_retries and call_deadline_s; a flag left out is absent,
    so the default of whatever config they go into holds.
    """
    given = {
        "base_url": base_url,
        "request_timeout_s": request_timeout,
        "max_retries": max_retries,
        "call_deadline_s": call_deadline,
    }
    return {name: value for name, value in given.items() if value is not None}


def agent_config(
    *,
    model: str | None = None,
    agents: int | None = None,
    max_steps: int | None = None,
    base_url: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    request_timeout: float | None = None,
    max_retries: int | None = None,
    call_deadline: float | None = None,
    ablate: list[Ablation] | None = None,
    toolset: str | None = None,
    base: AgentConfig | None = None,
    dense_search: Path | None = None,
    brief_prompt: bool = False,
    answer_types: list[str] | None = None,
    tool_calls: str | None = None,
) -> AgentConfig:
    """Map command-line flags onto an AgentConfig (the only thing the CLI configures).

    A flag left out (None) keeps the value of `base`, else AgentConfig's paper default; the
    model falls back to $ARK_MODEL through `resolve_model_spec`, the one place that reads it.

    Raises:
        ConfigError: values no configuration allows (e.g. --dense-search --toolset paper).
    """
    config = base or AgentConfig()
    tools = _tool_config(
        config.tools if base else ToolConfig(),
        ablate=ablate,
        toolset=toolset,
        dense_search=dense_search,
        brief_prompt=brief_prompt,
    )
    return replace(
        config,
        model=resolve_model_spec(model, default=config.model),
        n_agents=config.n_agents if agents is None else agents,
        max_steps=config.max_steps if max_steps is None else max_steps,
        base_url=base_url or config.base_url,
        temperature=config.temperature if temperature is None else temperature,
        max_tokens=config.max_tokens if max_tokens is None else max_tokens,
        tools=tools,
        request_timeout_s=_given(request_timeout, config.request_timeout_s),
        max_retries=_given(max_retries, config.max_retries),
        call_deadline_s=_given(call_deadline, config.call_deadline_s),
        brief_prompt=brief_prompt or config.brief_prompt,
        answer_types=tuple(answer_types) if answer_types else config.answer_types,
        tool_calls=str(_given(tool_calls, config.tool_calls)),
    )


def _given(flag: Any, kept: Any) -> Any:
    """The flag's value, or `kept` when the flag was left out (None)."""
    return kept if flag is None else flag


def _tool_config(
    tools: ToolConfig,
    *,
    ablate: list[Ablation] | None,
    toolset: str | None,
    dense_search: Path | None,
    brief_prompt: bool,
) -> ToolConfig:
    ablations = set(ablate or [])
    tools = replace(
        tools,
        toolset=tools.toolset if toolset is None else str(toolset),  # type: ignore[arg-type]
        enable_neighbors=Ablation.no_neighbors not in ablations,
        neighbor_query_ranking=Ablation.no_query_ranking not in ablations,
        type_filters=Ablation.no_type_filters not in ablations,
    )
    if dense_search is not None:
        tools = replace(tools, enable_dense_search=True, dense_encoder=str(dense_search))
    if brief_prompt:
        tools = replace(tools, brief_schemas=True)
    return tools


def structured_mode(value: str) -> StructuredMode:
    """A `--structured` value as a mode.

    Raises:
        typer.BadParameter: an unknown value (the message lists the known ones).
    """
    from agent.models.structured import StructuredMode

    try:
        return StructuredMode(value)
    except ValueError:
        known = ", ".join(mode.value for mode in StructuredMode)
        message = f"unknown --structured {value!r}; choose one of: {known}"
        raise typer.BadParameter(message) from None
