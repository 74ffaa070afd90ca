"""AgentConfig: one frozen object with the paper's defaults for an ARK run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agent.models.endpoint_url import redact_url
from graphs.errors import ConfigError
from tools.config import ToolConfig

TOOL_CALL_MODES = ("auto", "native", "action")


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """Everything that shapes one ARK run (the CLI maps its flags onto this and nothing else).

    Attributes:
        model: Model spec (agent/models/registry.py): `rules`, `hf:PATH` (a model or PEFT adapter
            directory, or a .gguf file), `openai:NAME`, or a bare NAME when a base URL or API
            key says an endpoint is meant.
        base_url: OpenAI-compatible endpoint; None falls back to OPENAI_BASE_URL, then OpenAI.
            Credentials in it (user:password@) are redacted in every stored record.
        n_agents: Parallel agents whose answer lists are fused by vote (paper: 3).
        max_steps: Model turns per agent before it is stopped (paper: T_max = 20).
        temperature: Sampling temperature for diversity between agents (paper: 0.7).
        max_tokens: Cap on tokens per model turn.
        request_timeout_s: Seconds one HTTP attempt waits for the endpoint's reply. A timed-out
            attempt is followed by a short liveness check (GET /models, 5 s): an endpoint
            that fails it accepts connections but never answers, and the call fails at once,
            so such an endpoint stops a batch within about request_timeout_s + 5 s.
        max_retries: Retries on timeouts (of a live endpoint), 429, 5xx and malformed replies
            before a model call fails (refused connections: at most two).
        call_deadline_s: Wall-clock bound on one model call, every attempt and backoff wait
            together (the default allows three full request timeouts); None: bounded only by
            the retry counts.
        seed: Base seed; agent i uses seed + i where the backend supports seeding.
        tools: Tool defaults and ablation switches.
        brief_prompt: Render the short system prompt (prompts/agent_system_brief.md.j2: the
            graph's schema and the rules, no advice and no tool list) for small distilled
            students; run a student with the prompt and `tools.brief_schemas` it was trained on.
        answer_types: The node types answers must have in this run (`--answer-type`): they
            replace the snapshot's candidate types for the agents, their prompt and tools;
            empty: the snapshot's own.
        tool_calls: How a served or `hf:` model's tool calls are asked for
            (agent/models/action_turns.py): `auto` (natively, switching to one
            JSON-schema-constrained action per turn once native calling fails: an empty
            turn, tools refused, or text again after the nudge), `native` or `action`.
    """

    model: str = "rules"
    base_url: str | None = None
    n_agents: int = 3
    max_steps: int = 20
    temperature: float = 0.7
    max_tokens: int = 1024
    request_timeout_s: float = 60.0
    max_retries: int = 6
    call_deadline_s: float | None = 180.0
    seed: int = 0
    tools: ToolConfig = field(default_factory=ToolConfig)
    brief_prompt: bool = False
    answer_types: tuple[str, ...] = ()
    tool_calls: str = "auto"

    def __post_init__(self) -> None:
        if self.tool_calls not in TOOL_CALL_MODES:
            raise ConfigError(
                f"tool_calls must be one of {', '.join(TOOL_CALL_MODES)}, got {self.tool_calls!r}"
            )
        if self.n_agents < 1:
            raise ConfigError(f"n_agents must be >= 1, got {self.n_agents}")
        if self.max_steps < 1:
            raise ConfigError(f"max_steps must be >= 1, got {self.max_steps}")
        if self.request_timeout_s <= 0:
            raise ConfigError(f"request_timeout_s must be > 0, got {self.request_timeout_s}")
        if self.max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.call_deadline_s is not None and self.call_deadline_s <= 0:
            raise ConfigError(f"call_deadline_s must be > 0 or unset, got {self.call_deadline_s}")

    def to_record(self) -> dict[str, Any]:
        """Plain-dict form stored in trajectories and run directories.

        No secret is stored: the API key never enters the config, and credentials in
        `base_url` are replaced by `***`.
        """
        record = asdict(self)
        record["answer_types"] = list(self.answer_types)  # as JSON stores it: records compare
        if self.base_url:
            record["base_url"] = redact_url(self.base_url)
        return record
