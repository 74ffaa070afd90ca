"""CosineIndex: exact cosine top-k over one memory-mapped float16 embedding matrix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_NUMPY_BLOCK = 65_536


class CosineIndex:
    """Exact cosine similarity (rows are unit vectors, so a dot product) over every node.

    The matrix product runs in torch's float16 kernels when torch is installed (the dense extra
    brings it; numpy has no fast float16 product), else in numpy over float32 blocks. Results
    are identical up to float16 rounding of the query.

    Args:
        matrix: float16[num_nodes, dim] with L2-normalised rows (e.g. Embeddings.matrix()).
        node_types: int16[num_nodes] type code of every node (for type filters).
    """

    def __init__(self, matrix: np.ndarray, node_types: np.ndarray) -> None:
        self.matrix = matrix
        self.node_types = np.asarray(node_types)
        self._torch: Any = None
        self._tensor: Any = None
        try:
            import torch
        except ImportError:
            return
        self._torch = torch
        self._tensor = torch.from_numpy(matrix)

    @property
    def num_nodes(self) -> int:
        """Rows of the matrix."""
        return int(self.matrix.shape[0])

    def scores(self, query: np.ndarray) -> np.ndarray:
        """float32[num_nodes]: cosine of every node with unit vector `query` (float32[dim])."""
        query = np.asarray(query, dtype=np.float32)
        if self._torch is not None:
            vector = self._torch.from_numpy(query.astype(np.float16))
            return self._torch.mv(self._tensor, vector).float().numpy()
        out = np.empty(self.num_nodes, dtype=np.float32)
        for start in range(0, self.num_nodes, _NUMPY_BLOCK):
            block = self.matrix[start : start + _NUMPY_BLOCK].astype(np.float32)
            out[start : start + len(block)] = block @ query
        return out

    def top_k(
        self,
        query: np.ndarray,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
        candidates: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k best nodes for `query`, best first, ties by node id.

        Args:
            query: float32[dim] unit vector.
            k: How many to return (fewer when fewer nodes qualify).
            node_types: Keep only nodes of these type codes.
            exclude: Internal ids never returned (earlier stages' results).
            candidates: Score only these internal ids (None: every node).

        Returns:
            (internal ids int64, cosines float32).
        """
        scores = self.scores(query) if candidates is None else self.scores_of(query, candidates)
        ids = np.arange(self.num_nodes) if candidates is None else np.asarray(candidates)
        return top_of(scores, ids, k, self._keep(ids, node_types, exclude))

    def scores_of(self, query: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """float32[len(nodes)]: cosine of the given nodes only."""
        rows = self.matrix[np.asarray(nodes, dtype=np.int64)].astype(np.float32)
        return rows @ np.asarray(query, dtype=np.float32)

    def _keep(
        self,
        ids: np.ndarray,
        node_types: Sequence[int] | None,
        exclude: Sequence[int] | np.ndarray,
    ) -> np.ndarray | None:
        keep = None
        if node_types is not None:
            keep = np.isin(self.node_types[ids], np.asarray(node_types, dtype=np.int16))
        if len(exclude):
            outside = ~np.isin(ids, np.asarray(exclude, dtype=np.int64))
            keep = outside if keep is None else keep & outside
        return keep


def top_of(
    scores: np.ndarray, ids: np.ndarray, k: int, keep: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The k highest `scores` (aligned with `ids`), best first, ties by smaller id."""
    if keep is not None:
        scores, ids = scores[keep], ids[keep]
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    order = np.lexsort((ids[part], -scores[part]))
    chosen = part[order]
    return ids[chosen].astype(np.int64), scores[chosen].astype(np.float32)
