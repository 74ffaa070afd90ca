"""Retrievers that hand SARG its evidence: BM25, ARK's agents, or dense embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from answer.errors import RetrievalError

if TYPE_CHECKING:
    from agent.ark import ArkAgent
    from answer.encoding import Embedder
    from graphs.snapshot import Snapshot


class Retriever(Protocol):
    """Returns the internal ids of the top nodes / passages for a question, best first."""

    name: str

    async def retrieve(self, question: str, k: int) -> list[int]:
        """Up to `k` internal node ids, best first."""
        ...


class BM25Retriever:
    """The snapshot's BM25 index, optionally restricted to some node types (e.g. passages)."""

    name = "bm25"

    def __init__(self, snapshot: Snapshot, *, node_types: Sequence[int] | None = None) -> None:
        self.snapshot = snapshot
        self.node_types = list(node_types) if node_types else None

    async def retrieve(self, question: str, k: int) -> list[int]:
        """BM25's top `k`."""
        nodes, _ = self.snapshot.index.search(question, k, node_types=self.node_types)
        return [int(node) for node in nodes]


class AgentRetriever:
    """ARK's agents explore the graph; their vote-fused answer list is the retrieval."""

    name = "agents"

    def __init__(self, snapshot: Snapshot, agent: ArkAgent) -> None:
        self.snapshot = snapshot
        self.agent = agent

    async def retrieve(self, question: str, k: int) -> list[int]:
        """The first `k` ids of the fused ranking (fewer when the agents found fewer)."""
        result = await self.agent.ask(question)
        internal = self.snapshot.find_internal_ids(result.fused[:k])
        return [int(node) for node in internal if node >= 0]


class DenseRetriever:
    """Cosine over the snapshot's embeddings (`ark graph embed`) with the encoder that made them.

    Through the HNSW index when `ark graph embed --ann` built one, else the exact scan.
    """

    name = "dense"

    def __init__(
        self,
        snapshot: Snapshot,
        encoder: Embedder,
        *,
        node_types: Sequence[int] | None = None,
    ) -> None:
        """Open the embeddings.

        Raises:
            RetrievalError: the snapshot has no embeddings.
        """
        from graphs.dense.embeddings import EmbeddingsError
        from graphs.dense.search import open_snapshot_index

        try:
            self.index = open_snapshot_index(snapshot)
        except EmbeddingsError as error:
            raise RetrievalError(
                f"--retriever dense needs the snapshot's embeddings: {error}; "
                f"run `ark graph embed {snapshot.path} --encoder DIR` first"
            ) from error
        self.encoder = encoder
        self.node_types = list(node_types) if node_types else None

    async def retrieve(self, question: str, k: int) -> list[int]:
        """The `k` nodes nearest to the question."""
        vector = np.asarray(self.encoder.encode([question])[0], dtype=np.float32)
        nodes, _ = self.index.top_k(vector, k, node_types=self.node_types)
        return [int(node) for node in nodes]


class GoldPassages:
    """Retrieval confined to the passages a QA row names (the paper's supporting documents).

    An id names a retrievable node itself (a passage, or any node of a typed KG) or a
    document, which stands for its passages (`has_passage`); the named passages are ranked
    among themselves by BM25 and all of them are kept.
    """

    name = "gold"

    def __init__(self, snapshot: Snapshot, *, node_types: Sequence[int] | None = None) -> None:
        self.snapshot = snapshot
        self.node_types = set(node_types) if node_types else None
        relations = snapshot.relation_names
        self._has_passage = (
            snapshot.relation_code("has_passage") if "has_passage" in relations else None
        )

    def retrieve(self, question: str, supporting: Sequence[str]) -> list[int]:
        """The named passages, best BM25 match to `question` first.

        Raises:
            RetrievalError: the row names no id, or an id the snapshot does not hold.
        """
        if not supporting:
            raise RetrievalError(
                '--retrieval gold answers from the passages the QA row names in "supporting" '
                '(or "context"), and this row names none; add them, or use --retrieval search'
            )
        nodes = [node for key in supporting for node in self._passages(key)]
        unique = np.asarray(list(dict.fromkeys(nodes)), dtype=np.int64)
        scores = self.snapshot.index.score_nodes(question, unique)
        order = np.argsort(-scores, kind="stable")
        return [int(node) for node in unique[order]]

    def _passages(self, key: str) -> list[int]:
        snapshot = self.snapshot
        for candidate in (key, f"doc:{key}", f"passage:{key}"):
            node = snapshot.find_internal_ids([candidate])[0]
            if node < 0:
                continue
            if self.node_types is None or int(snapshot.node_type_codes[node]) in self.node_types:
                return [int(node)]
            if self._has_passage is not None:
                around = snapshot.neighbors(int(node), relations=[self._has_passage])
                return [int(n) for n in around.nodes[around.directions > 0].tolist()]
        raise RetrievalError(
            f"the QA row names {key!r} as supporting, but the snapshot holds no such passage "
            "or document; ids are the input's own (a document's id, or a passage's "
            "`passage:ID#N`)"
        )
