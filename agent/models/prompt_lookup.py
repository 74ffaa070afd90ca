"""Prompt-lookup drafts: guess a sequence's next tokens by copying what followed its last n-gram."""

from __future__ import annotations

MIN_NGRAM = 2
"""Shortest n-gram matched; single tokens match too often to be worth verifying."""
MAX_NGRAM = 4


def draft(tokens: list[int], count: int) -> list[int]:
    """Up to `count` tokens that followed the latest earlier occurrence of the sequence's tail.

    A tool call copies the question, node ids and names from the conversation, so the tokens
    after an earlier occurrence of the last few tokens are often exactly the ones a greedy
    model writes next. The model verifies every drafted token (see `GreedyBatch`), so a wrong
    draft costs only compute, never a different output.

    Args:
        tokens: The sequence so far (prompt and generated tokens).
        count: Most tokens to propose.

    Returns:
        The drafted tokens (empty when no n-gram of MIN_NGRAM..MAX_NGRAM tokens recurs).
    """
    if count <= 0 or len(tokens) < MIN_NGRAM + 1:
        return []
    last = tokens[-1]
    ends = [end for end in range(len(tokens) - 2, -1, -1) if tokens[end] == last]
    for size in range(min(MAX_NGRAM, len(tokens) - 1), MIN_NGRAM - 1, -1):
        tail = tokens[-size:]
        for end in ends:
            if end + 1 >= size and tokens[end + 1 - size : end + 1] == tail:
                return tokens[end + 1 : end + 1 + count]
    return []
