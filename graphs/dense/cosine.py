"""CosineIndex: exact cosine top-k over one memory-mapped float16 embedding matrix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_NUMPY_BLOCK = 65_536
SELECT_BLOCK = 1_024
"""Scores per block of the two-level top-k (see `block_top_k`)."""
_MASK_CACHE = 16


class CosineIndex:
    """Exact cosine similarity (rows are unit vectors, so a dot product) over every node.

    The matrix product runs in torch's float16 kernels when torch is installed (the dense extra
    brings it; numpy has no fast float16 product), else in numpy over float32 blocks. Results
    are identical up to float16 rounding of the query. The k best of the full scan are chosen
    by an exact two-level top-k (`block_top_k`), so selecting costs far less than the scan.

    Args:
        matrix: float16[num_nodes, dim] with L2-normalised rows (e.g. Embeddings.matrix()).
        node_types: int16[num_nodes] type code of every node (for type filters).
        select_block: Scores per block of the two-level top-k.
    """

    def __init__(
        self, matrix: np.ndarray, node_types: np.ndarray, *, select_block: int = SELECT_BLOCK
    ) -> None:
        self.matrix = matrix
        self.select_block = select_block
        self.node_types = np.asarray(node_types)
        self._outside: dict[tuple[int, ...], np.ndarray] = {}
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
        if candidates is None:
            return self.top_k_of(self.scores(query), k, node_types=node_types, exclude=exclude)
        ids = np.asarray(candidates)
        scores = self.scores_of(query, ids)
        return top_of(scores, ids, k, self._keep(ids, node_types, exclude))

    def top_k_of(
        self,
        scores: np.ndarray,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k best nodes by `scores` (float32[num_nodes] from :meth:`scores`), as `top_k`.

        Lets a caller scan the matrix once for a query and select from it many times (with
        other filters or exclusions); `scores` itself is never modified.
        """
        masked = node_types is not None or len(exclude) > 0
        if masked:
            scores = scores.copy()
            if node_types is not None:
                np.copyto(scores, -np.inf, where=self._outside_types(node_types))
            scores[np.asarray(exclude, dtype=np.int64)] = -np.inf
        return block_top_k(scores, k, block=self.select_block, drop_minus_inf=masked)

    def query_scan(self, query: np.ndarray) -> ExactQuery:
        """One scan of every node for `query`, to select from many times (`ExactQuery.top_k`)."""
        return ExactQuery(self, self.scores(query))

    def scores_of(self, query: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """float32[len(nodes)]: cosine of the given nodes only."""
        rows = self.matrix[np.asarray(nodes, dtype=np.int64)].astype(np.float32)
        return rows @ np.asarray(query, dtype=np.float32)

    def _outside_types(self, node_types: Sequence[int]) -> np.ndarray:
        """bool[num_nodes]: nodes NOT of these types (kept per filter; an agent reuses few)."""
        key = tuple(sorted({int(code) for code in node_types}))
        outside = self._outside.get(key)
        if outside is None:
            outside = ~np.isin(self.node_types, np.asarray(key, dtype=np.int16))
            if len(self._outside) >= _MASK_CACHE:
                self._outside.pop(next(iter(self._outside)))
            self._outside[key] = outside
        return outside

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


class ExactQuery:
    """The scores of one query over every node, selected from with filters and exclusions."""

    def __init__(self, index: CosineIndex, scores: np.ndarray) -> None:
        self.index = index
        self.scores = scores

    def top_k(
        self,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k best nodes for the scanned query, as `CosineIndex.top_k`."""
        return self.index.top_k_of(self.scores, k, node_types=node_types, exclude=exclude)


def block_top_k(
    scores: np.ndarray, k: int, *, block: int = SELECT_BLOCK, drop_minus_inf: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The k highest `scores` (ids are positions), best first, ties by smaller position.

    Exact, in two levels: the maximum of each block of `block` scores, the k best blocks by
    (maximum, then block position), then the k best scores inside those k blocks. Every score
    of the true top k lies in one of them: fewer than k scores beat the k-th best, so fewer
    than k blocks have a higher maximum, and the tied scores the top k keeps (the smallest
    positions) lie in the first blocks whose maximum equals it. Costs one pass for the block
    maxima plus a selection over k * block scores, instead of a selection over all of them.

    Args:
        scores: float32[n].
        k: How many to return (fewer when fewer qualify).
        block: Scores per block.
        drop_minus_inf: Never return -inf scores (how `CosineIndex.top_k_of` masks nodes out).

    Returns:
        (positions int64, scores float32).
    """
    count = len(scores)
    if count <= 4 * block * max(k, 1):  # a few blocks' worth: one level costs no more
        positions = np.arange(count)
        return top_of(scores, positions, k, scores > -np.inf if drop_minus_inf else None)
    full = count // block
    maxima = scores[: full * block].reshape(full, block).max(axis=1)
    if full * block < count:
        maxima = np.append(maxima, scores[full * block :].max())
    best_blocks, _ = top_of(maxima, np.arange(len(maxima)), k)
    positions = (best_blocks[:, None] * block + np.arange(block)).ravel()
    positions = positions[positions < count]
    chosen = scores[positions]
    return top_of(chosen, positions, k, chosen > -np.inf if drop_minus_inf else None)


def top_of(
    scores: np.ndarray, ids: np.ndarray, k: int, keep: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The k highest `scores` (aligned with `ids`), best first, ties by smaller id.

    Exact with ties at the cut too: of the scores equal to the k-th best, the smallest ids
    are kept.
    """
    if keep is not None:
        scores, ids = scores[keep], ids[keep]
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    if k < len(scores):
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)
        tied = tied[np.argsort(ids[tied], kind="stable")[: k - len(above)]]
        part = np.concatenate([above, tied])
    else:
        part = np.arange(len(scores))
    order = np.lexsort((ids[part], -scores[part]))
    chosen = part[order]
    return ids[chosen].astype(np.int64), scores[chosen].astype(np.float32)
