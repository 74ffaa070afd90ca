"""Fusing the answer lists of n agents by vote count, ties broken by earliest position."""

from __future__ import annotations

from collections.abc import Sequence


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
