"""The rule policy (`-m rules`): a deterministic, LLM-free Model that plans from the messages."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent.models.base import Message, ModelReply
from agent.models.rules.episode import Episode
from agent.models.rules.plan import RulePlanner
from agent.models.rules.turns import Listing, PlannedTurn
from tools.listing_parse import parse_listing, parse_names

if TYPE_CHECKING:
    from graphs.manifest import Manifest
    from tools.plans.vocabulary import TermStats

DONE = "I have finished."


class RulePolicy:
    """A Model whose turns follow `RulePlanner`'s plan, decided from the conversation alone.

    Like any model it sees only the messages and the offered tools: the question, the turn
    budget stated in the system prompt, and the text of every observation so far (it reads the
    node rows the observations list, tools/listing_parse.py). It never runs a tool: each call
    it plans is executed once, by the agent's tool node, and recorded as a step. It emits
    ordinary OpenAI tool-call messages, so its trajectories can teach a student. It keeps no
    state between calls; temperature and seed are ignored (it is deterministic).

    Args:
        manifest: The graph's schema (node types, relations and their signatures, candidate
            types): what the system prompt shows every model.
        vocabulary: The snapshot's index statistics (which words can rank nodes), read by
            the offline planner for its relevance text; None: every analyzer-kept word.
    """

    name = "rules"

    def __init__(self, manifest: Manifest, vocabulary: TermStats | None = None) -> None:
        self.planner = RulePlanner(manifest, vocabulary)
        self.node_types = list(manifest.node_types)

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """Return the next planned turn for the conversation in `messages`."""
        episode = Episode.from_messages(messages)
        turn = self.next_turn(episode, tools)
        if turn is None:
            return ModelReply({"role": "assistant", "content": DONE})
        index = len(episode.turns)
        calls = [
            {
                "id": f"call_{index}_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for i, call in enumerate(turn.calls)
        ]
        return ModelReply({"role": "assistant", "content": turn.note, "tool_calls": calls})

    def next_turn(self, episode: Episode, tools: list[dict[str, Any]]) -> PlannedTurn | None:
        """Replay the plan over the recorded turns; the first turn not taken yet, if any."""
        offered = {tool["function"]["name"]: tool["function"] for tool in tools}
        plan = self.planner.episode(episode.question, offered, episode.budget)
        types = self.node_types
        try:
            turn = next(plan)
            for recorded in episode.turns:
                turn = plan.send(
                    [
                        Listing(parse_listing(text, types), parse_names(text, types))
                        for text in recorded
                    ]
                )
        except StopIteration:
            return None
        return turn
