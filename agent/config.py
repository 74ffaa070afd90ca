"""AgentConfig: one frozen object with the paper's defaults for an ARK run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tools.config import ToolConfig


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """Everything that shapes one ARK run (the CLI maps its flags onto this and nothing else).

    Attributes:
        model: Model spec: `rules`, `hf:PATH`, or a model name served by an OpenAI-compatible
            endpoint (`openai:NAME` forces the HTTP adapter).
        base_url: OpenAI-compatible endpoint; None falls back to OPENAI_BASE_URL, then OpenAI.
        n_agents: Parallel agents whose answer lists are fused by vote (paper: 3).
        max_steps: Model turns per agent before it is stopped (paper: T_max = 20).
        temperature: Sampling temperature for diversity between agents (paper: 0.7).
        max_tokens: Cap on tokens per model turn.
        request_timeout_s: Per-call timeout for HTTP models.
        max_retries: Retries on timeouts, 429 and 5xx before a model call fails.
        seed: Base seed; agent i uses seed + i where the backend supports seeding.
        tools: Tool defaults and ablation switches.
        brief_prompt: Render the short system prompt (prompts/agent_system_brief.md.j2: the
            graph's schema and the rules, no advice and no tool list) for small distilled
            students; run a student with the prompt and `tools.brief_schemas` it was trained on.
    """

    model: str = "rules"
    base_url: str | None = None
    n_agents: int = 3
    max_steps: int = 20
    temperature: float = 0.7
    max_tokens: int = 1024
    request_timeout_s: float = 120.0
    max_retries: int = 6
    seed: int = 0
    tools: ToolConfig = field(default_factory=ToolConfig)
    brief_prompt: bool = False

    def __post_init__(self) -> None:
        if self.n_agents < 1:
            raise ValueError(f"n_agents must be >= 1, got {self.n_agents}")
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {self.max_steps}")

    def to_record(self) -> dict[str, Any]:
        """Plain-dict form stored in trajectories and run directories (no secrets live here)."""
        return asdict(self)
