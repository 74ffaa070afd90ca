"""Fusing the answer lists of n agents by vote, and telling chosen answers from the filled tail."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any


def fuse(answer_lists: Sequence[Sequence[str]]) -> tuple[list[str], dict[str, int]]:
    """Fuse several ranked answer lists into one.

    The paper's rule (Sec. 3.2 and Appendix, "Implementation Details"): a node's votes are the
    number of agents whose list contains it; nodes are ordered by votes, descending, and ties
    are broken by the earliest position at which the node appears in any agent's list, i.e.
    the minimum over agents of its rank within that agent's list. Nodes tied on both keep
    agent order (the first agent to list the node at that position wins). A node listed twice
    by one agent counts once, at its first position.

    Args:
        answer_lists: One ranked list of node ids per agent, in agent order.

    Returns:
        The fused ranking and the vote count of every node in it.
    """
    votes: dict[str, int] = {}
    earliest: dict[str, tuple[int, int]] = {}
    for agent, answers in enumerate(answer_lists):
        for position, node_id in enumerate(dict.fromkeys(answers)):
            votes[node_id] = votes.get(node_id, 0) + 1
            key = (position, agent)
            if node_id not in earliest or key < earliest[node_id]:
                earliest[node_id] = key
    fused = sorted(votes, key=lambda node_id: (-votes[node_id], earliest[node_id]))
    return fused, votes


def identical_agents(answer_lists: Sequence[Sequence[str]]) -> bool:
    """True when there are several agents and every one returned the same ranked list.

    Votes then carry no information (each answer has all of them): a display says so once
    instead of showing n/n on every row.
    """
    return len(answer_lists) > 1 and all(list(a) == list(answer_lists[0]) for a in answer_lists)


def chosen_and_tail(
    fused: Sequence[str], chosen_by_agent: Sequence[Collection[str]]
) -> tuple[list[str], list[str]]:
    """Split a fused list into the answers some agent chose and the tail kept for recall.

    Args:
        fused: The fused ranking.
        chosen_by_agent: Per agent, the ids it chose (`chosen_answers`).

    Returns:
        (chosen, tail), each in fused order: chosen holds the nodes at least one agent chose.
    """
    chosen_ids = set().union(*chosen_by_agent) if chosen_by_agent else set()
    chosen = [node_id for node_id in fused if node_id in chosen_ids]
    tail = [node_id for node_id in fused if node_id not in chosen_ids]
    return chosen, tail


def select_reasons(messages: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The reason an agent gave for each id in its `select` calls (the first, when several).

    Args:
        messages: The agent's OpenAI-format conversation; calls whose arguments do not parse
            give no reasons.
    """
    found: dict[str, str] = {}
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if function.get("name") == "select":
                for node_id, reason in _reasons(function.get("arguments")).items():
                    found.setdefault(node_id, reason)
    return found


def chosen_answers(messages: Sequence[Mapping[str, Any]], answers: Sequence[str]) -> list[str]:
    """The answers an agent chose, as opposed to ones it only kept to fill its list.

    An agent that gives `reasons` in its `select` calls chose the ids it gave a reason for;
    the ids it selected without one (the rule policy's top-up with search hits, kept for
    Recall@20) are its tail. An agent that never gives a reason chose every answer.

    Args:
        messages: The agent's OpenAI-format conversation.
        answers: Its final answer list, in order.
    """
    reasoned = select_reasons(messages)
    if not reasoned:
        return list(answers)
    return [node_id for node_id in answers if node_id in reasoned]


def _reasons(arguments: object) -> dict[str, str]:
    """The non-empty reasons of one select call's arguments (none when they do not parse)."""
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return {}
    reasons = parsed.get("reasons") if isinstance(parsed, dict) else None
    if not isinstance(reasons, dict):
        return {}
    return {str(key): value for key, value in reasons.items() if isinstance(value, str) and value}
