"""The optional dense_search tool: cosine top-k over the snapshot's plain node embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from graphs.dense.search import SearchMode, VectorIndex, open_snapshot_index
from tools.config import ToolConfig
from tools.format import page_size
from tools.observation import Observation
from tools.schemas import DenseSearchArgs
from tools.search import ranking_observation
from tools.vocab import Vocabulary

QUERY_CACHE = 256

if TYPE_CHECKING:
    from graphs.dense.encoder import TextEncoder
    from graphs.snapshot import Snapshot


@dataclass(frozen=True)
class DenseSearch:
    """What dense_search needs at query time: the query encoder and the node matrix's index.

    Build it once per run with :meth:`open` and pass it to the Toolset. Query vectors are
    kept (the last `QUERY_CACHE` queries): the n agents of a question, and a model retrying,
    often send the same query, and encoding is most of a call's cost on a CPU.
    """

    encoder: TextEncoder
    index: VectorIndex
    _vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def query_vector(self, query: str) -> np.ndarray:
        """float32[dim]: the encoder's vector for `query` (encoded once while kept)."""
        vector = self._vectors.get(query)
        if vector is None:
            vector = self.encoder.encode_query(query)
            if len(self._vectors) >= QUERY_CACHE:
                self._vectors.pop(next(iter(self._vectors)), None)
            self._vectors[query] = vector
        return vector

    @classmethod
    def open(
        cls, snapshot: Snapshot, encoder: TextEncoder, *, search: SearchMode = "auto"
    ) -> DenseSearch:
        """Map `snapshot`'s plain embeddings for queries encoded by `encoder`.

        Args:
            snapshot: The graph.
            encoder: The encoder the embeddings were made with.
            search: "auto" uses the HNSW index when `ark graph embed --ann` built one,
                "exact" always scans, "ann" requires the index.

        Raises:
            EmbeddingsError: the snapshot has no embeddings, or they were made by another
                encoder (queries and nodes must share one model).
        """
        return cls(encoder, open_snapshot_index(snapshot, encoder=encoder, mode=search))


def run_dense_search(
    snapshot: Snapshot,
    vocabulary: Vocabulary,
    config: ToolConfig,
    dense: DenseSearch,
    args: DenseSearchArgs,
    notes: Sequence[str] = (),
) -> Observation:
    """Run a validated dense_search call; the observation reads like search's.

    Raises:
        UnknownTypeError: `node_types` names an unknown type.
    """
    type_codes = vocabulary.type_codes(args.node_types) if args.node_types else None
    k, notes = page_size(args.k or config.search_k, config.max_k, notes)
    if not args.query.strip():
        text = "empty query: describe what you look for in words, e.g. a phrase of the question."
        return Observation(text="\n".join([text, *notes]))
    vector = dense.query_vector(args.query)
    ids, scores = dense.index.top_k(vector, k, node_types=type_codes)
    return ranking_observation(snapshot, ids, scores, args.query, args.node_types, k, config, notes)
