"""The rule policy (`-m rules`): a deterministic, LLM-free model that drives the real tools."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from agent.models.base import Message, ModelError, ModelReply
from agent.models.rules_plan import Plan, RulePlanner

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot
    from tools.toolset import Toolset

PLAN_CACHE_SIZE = 256


class RulePolicy:
    """A Model whose turns follow `RulePlanner`'s plan for the question.

    It emits ordinary OpenAI tool-call messages, so its trajectories are identical in form to an
    LLM's and can teach a student. It is stateless across questions except for a small cache of
    plans (n agents ask the same question); temperature and seed are ignored: it is deterministic.

    Args:
        snapshot: The graph the tools run over.
        toolset: A toolset built with the same configuration as the agent's (used to plan).
        max_steps: The agent's step budget; the plan fits in it.
    """

    name = "rules"

    def __init__(self, snapshot: Snapshot, toolset: Toolset, *, max_steps: int) -> None:
        self.planner = RulePlanner(snapshot, toolset)
        self.max_steps = max_steps
        self._plans: OrderedDict[str, Plan] = OrderedDict()

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """Return the next planned turn for the conversation in `messages`."""
        question = next((m["content"] for m in messages if m.get("role") == "user"), None)
        if not isinstance(question, str):
            raise ModelError("the rule policy needs a user message holding the question")
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        plan = self._plan(question, tools)
        if turn >= len(plan.turns):
            return ModelReply({"role": "assistant", "content": "I have finished."})
        calls = [
            {
                "id": f"call_{turn}_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for i, call in enumerate(plan.turns[turn])
        ]
        return ModelReply({"role": "assistant", "content": plan.notes[turn], "tool_calls": calls})

    def _plan(self, question: str, tools: list[dict[str, Any]]) -> Plan:
        key = question + "\x00" + json.dumps(sorted(t["function"]["name"] for t in tools))
        if key not in self._plans:
            self._plans[key] = self.planner.plan(question, tools, self.max_steps)
            if len(self._plans) > PLAN_CACHE_SIZE:
                self._plans.popitem(last=False)
        return self._plans[key]
