"""What the rule policy reads from a conversation: the question, the turn budget, each result.

The rule policy is a Model like any other: everything it knows about an episode comes from the
messages. This module pairs each assistant turn's tool calls with the tool messages that
answered them (by `tool_call_id`) and reads the step budget from the system prompt's
"at most N turns" sentence (prompts/agent_system.md.j2), as an LLM would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.models.base import Message, ModelError

_BUDGET = re.compile(r"at most (\d+) turns")


@dataclass(frozen=True)
class Episode:
    """The conversation so far, as the rule policy needs it.

    Attributes:
        question: The first user message.
        turns: Every assistant turn that called tools: the texts its calls got back, in call
            order ("" where no answer came).
        budget: The turn budget the system prompt states, None when it states none.
    """

    question: str
    turns: list[list[str]]
    budget: int | None

    @classmethod
    def from_messages(cls, messages: list[Message]) -> Episode:
        """Read an episode from OpenAI-format messages.

        Raises:
            ModelError: No user message holds the question.
        """
        question = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        if not isinstance(question, str) or not question.strip():
            raise ModelError("the rule policy needs a user message holding the question")
        answers = {
            m.get("tool_call_id"): m.get("content") or ""
            for m in messages
            if m.get("role") == "tool"
        }
        turns = []
        for message in messages:
            calls = message.get("tool_calls") if message.get("role") == "assistant" else None
            if calls:
                turns.append([str(answers.get(call.get("id"), "")) for call in calls])
        return cls(question=question, turns=turns, budget=_budget(messages))


def _budget(messages: list[Message]) -> int | None:
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    match = _BUDGET.search(system) if isinstance(system, str) else None
    return int(match.group(1)) if match else None
