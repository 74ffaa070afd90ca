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
    """Cosine over the snapshot's embeddings (`ark graph embed`) with the encoder that made them."""

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
        from graphs.dense.cosine import CosineIndex
        from graphs.dense.embeddings import PLAIN, Embeddings, EmbeddingsError

        try:
            embeddings = Embeddings.open(snapshot.path, content_hash=snapshot.manifest.content_hash)
        except EmbeddingsError as error:
            raise RetrievalError(
                f"--retriever dense needs the snapshot's embeddings: {error}; "
                f"run `ark graph embed {snapshot.path} --encoder DIR` first"
            ) from error
        self.index = CosineIndex(embeddings.matrix(PLAIN), snapshot.node_type_codes)
        self.encoder = encoder
        self.node_types = list(node_types) if node_types else None

    async def retrieve(self, question: str, k: int) -> list[int]:
        """The `k` nodes nearest to the question."""
        vector = np.asarray(self.encoder.encode([question])[0], dtype=np.float32)
        nodes, _ = self.index.top_k(vector, k, node_types=self.node_types)
        return [int(node) for node in nodes]
