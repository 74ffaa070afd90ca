"""Fusing the answer lists of n agents by vote count, ties broken by earliest position."""

from __future__ import annotations

from collections.abc import Sequence


def fuse(answer_lists: Sequence[Sequence[str]]) -> tuple[list[str], dict[str, int]]:
    """Fuse several ranked answer lists into one.

    The rule (the paper's, as its evaluation code applies it): a node's votes are the number of
    agents whose list contains it; nodes are ordered by votes, descending, and ties are broken by
    the earliest position at which the node appears in the concatenation of the agents' lists,
    taken in agent order. A node listed twice by one agent counts once.

    Args:
        answer_lists: One ranked list of node ids per agent, in agent order.

    Returns:
        The fused ranking and the vote count of every node in it.
    """
    votes: dict[str, int] = {}
    first_position: dict[str, int] = {}
    position = 0
    for answers in answer_lists:
        for node_id in dict.fromkeys(answers):
            votes[node_id] = votes.get(node_id, 0) + 1
        for node_id in answers:
            first_position.setdefault(node_id, position)
            position += 1
    fused = sorted(votes, key=lambda node_id: (-votes[node_id], first_position[node_id]))
    return fused, votes
