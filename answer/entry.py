"""Entry nodes of the chain search: key phrases matched to graph nodes above τ (SARG Eq. 3).

When no key phrase clears τ, the query graph's nodes the question names (the snapshot's name
index, tools/mentions.py: exact names, plurals, names without their disambiguator) are the
entry nodes, with similarity 1.0, before the last resort of the best match below τ. Put
first always, they made the chains worse on hotpotqa-dev20 (gold answer in the chains' nodes
0.25 -> 0.10, F1 0.153 -> 0.120; BENCHMARKS.md), so they stand in only where Eq. 3 finds none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tools.mentions import find_mentions

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


@dataclass(frozen=True)
class EntryMatch:
    """One entry node and why it was chosen.

    Attributes:
        node: The node key.
        similarity: max over key phrases of cos(e_k, e_v).
        phrase: The key phrase that attains it.
    """

    node: str
    similarity: float
    phrase: str


def named_entries(snapshot: Snapshot, question: str, nodes: Sequence[str]) -> list[EntryMatch]:
    """The query graph's nodes (external ids) the question names, in question order.

    Each is an entry with similarity 1.0, its phrase the question's words that name it.
    """
    keys = set(nodes)
    found: dict[str, EntryMatch] = {}
    for mention in find_mentions(snapshot, question):
        for node in mention.nodes:
            key = snapshot.external_id(node)
            if key in keys:
                found.setdefault(key, EntryMatch(key, 1.0, mention.text))
    return list(found.values())


def entry_nodes(
    phrases: Sequence[str],
    phrase_vectors: np.ndarray,
    nodes: Sequence[str],
    node_vectors: np.ndarray,
    *,
    tau: float,
) -> list[EntryMatch]:
    """S = {v ∈ V | max_k cos(e_k, e_v) > τ}, best match first (Eq. 3).

    Args:
        phrases: The key phrases K_q.
        phrase_vectors: Their embeddings, one row each.
        nodes: The node keys of V.
        node_vectors: Their embeddings, one row each.
        tau: The threshold; a node must exceed it strictly.

    Returns:
        The entry nodes, by similarity (then node key) descending.
    """
    if not len(phrases) or not len(nodes):
        return []
    similarity = _cosine(phrase_vectors, node_vectors)  # [phrases, nodes]
    best = similarity.argmax(axis=0)
    scores = similarity[best, np.arange(len(nodes))]
    matches = [
        EntryMatch(nodes[i], float(scores[i]), phrases[int(best[i])])
        for i in range(len(nodes))
        if scores[i] > tau
    ]
    return sorted(matches, key=lambda m: (-m.similarity, m.node))


def _cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_norm = np.linalg.norm(a, axis=1, keepdims=True)
    b_norm = np.linalg.norm(b, axis=1, keepdims=True)
    a = np.divide(a, a_norm, out=np.zeros_like(a), where=a_norm > 0)
    b = np.divide(b, b_norm, out=np.zeros_like(b), where=b_norm > 0)
    return a @ b.T


def cosine_to(query: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """cos(query, row) for every row of `vectors` (zero vectors give 0)."""
    return _cosine(np.asarray(query)[None, :], vectors)[0]
