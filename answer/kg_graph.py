"""The query graph of a typed KG: its edges among the retrieved nodes and their neighbours."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from answer.query_graph import Passage, QueryGraph, Triple

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


def kg_query_graph(
    snapshot: Snapshot, retrieved: Sequence[int], question: str, *, max_neighbors: int
) -> QueryGraph:
    """G_D for a typed KG: the snapshot's edges among the retrieved nodes and their neighbours.

    Each retrieved node brings its `max_neighbors` neighbours that BM25 scores highest for the
    question (ties by id); the triples are every snapshot edge with both ends in that set, and
    each triple cites its two nodes (their texts are the evidence, D_P).

    Args:
        snapshot: The typed graph.
        retrieved: Internal ids of the retrieved nodes.
        question: Ranks the neighbours kept.
        max_neighbors: Neighbours kept per retrieved node (0: the retrieved nodes alone).
    """
    kept = {int(node) for node in retrieved}
    for node in retrieved:
        if max_neighbors:
            kept.update(_best_neighbors(snapshot, int(node), question, max_neighbors))
    nodes = np.array(sorted(kept), dtype=np.int64)
    ids, names, _ = snapshot.labels(nodes)
    external = dict(zip(nodes.tolist(), ids, strict=True))
    triples = []
    for node in nodes.tolist():
        around = snapshot.neighbors(node)
        columns = (around.nodes.tolist(), around.relations.tolist(), around.directions.tolist())
        for other, relation, direction in zip(*columns, strict=True):
            if direction > 0 and other in external:
                head, tail = external[node], external[other]
                triples.append(Triple(head, snapshot.relation_names[relation], tail, (head, tail)))
    texts = snapshot.texts(nodes)
    return QueryGraph(
        triples,
        labels=dict(zip(ids, names, strict=True)),
        sources=dict(zip(ids, texts, strict=True)),
    )


def _best_neighbors(snapshot: Snapshot, node: int, question: str, limit: int) -> list[int]:
    candidates = np.unique(snapshot.neighbors(node).nodes)
    if len(candidates) <= limit:
        return candidates.tolist()
    scores = snapshot.index.score_nodes(question, candidates)
    order = np.lexsort((candidates, -scores))[:limit]
    return candidates[order].tolist()


class KGSource:
    """Evidence from a typed KG snapshot: node texts, and its edges as the triples."""

    def __init__(self, snapshot: Snapshot, *, max_neighbors: int) -> None:
        self.snapshot = snapshot
        self.max_neighbors = max_neighbors

    async def query_graph(self, retrieved: Sequence[int], question: str) -> QueryGraph:
        """See `kg_query_graph`."""
        return kg_query_graph(self.snapshot, retrieved, question, max_neighbors=self.max_neighbors)

    def passages(self, retrieved: Sequence[int]) -> list[Passage]:
        """The retrieved nodes (id, name, text), in retrieval order (flat context)."""
        nodes = np.asarray(list(retrieved), dtype=np.int64)
        ids, names, kinds = self.snapshot.labels(nodes)
        texts = self.snapshot.texts(nodes)
        rows = zip(ids, names, texts, kinds, strict=True)
        return [Passage(i, name, text, kind, answerable=True) for i, name, text, kind in rows]
