"""The rule agent's answers, and the offline plan it replays, for a question on a test snapshot."""

from __future__ import annotations

import asyncio

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot
from tools.plans.rule_plan import RulePlan


def ask(snapshot: Snapshot, question: str) -> list[str]:
    """The ids one rule agent answers `question` with, best first."""
    agent = make_agent(snapshot, AgentConfig(n_agents=1))
    return asyncio.run(agent.ask(question)).fused


def plan_of(snapshot: Snapshot, question: str) -> RulePlan:
    """The offline plan the rule agent replays for `question` (its first search's view)."""
    planner = OfflinePlanner(snapshot)
    return planner.writer.plan(question, planner.hits(question), planner.names(question))
