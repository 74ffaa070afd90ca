"""What a REPL session knows: the graph, the current config, the agent and its answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from agent.ark import ArkAgent
from agent.config import AgentConfig
from agent.models.base import Model
from agent.trajectory import QuestionResult
from cli.answerers import WarmAnswerers
from graphs.snapshot import Snapshot


class AgentFactory(Protocol):
    """Builds an agent; `model` reuses an already loaded model (see agent.factory.make_agent)."""

    def __call__(
        self, snapshot: Snapshot, config: AgentConfig, *, model: Model | None = None
    ) -> ArkAgent:
        """Return the agent for `config`."""
        ...


@dataclass
class ReplSession:
    """What a session knows: the graph, the current config and the last answer."""

    snapshot: Snapshot
    config: AgentConfig
    agent_factory: AgentFactory
    agent: ArkAgent | None = None
    last: QuestionResult | None = None
    history: list[QuestionResult] = field(default_factory=list)
    answerers: WarmAnswerers = field(default_factory=WarmAnswerers)
    """SARG's parts for `:answer`, loaded on the first one and kept for the session."""

    def current_agent(self) -> ArkAgent:
        """The agent for the current config (built lazily, rebuilt after :set)."""
        if self.agent is None:
            self.agent = self.agent_factory(self.snapshot, self.config)
        return self.agent

    def reconfigure(self, config: AgentConfig) -> ArkAgent:
        """Switch to `config`; the loaded model is kept unless the model spec changed."""
        previous = self.agent
        same_model = previous is not None and previous.config.model == config.model
        keep = previous.model if same_model and previous else None
        self.config = config
        self.agent = self.agent_factory(self.snapshot, config, model=keep)
        return self.agent
