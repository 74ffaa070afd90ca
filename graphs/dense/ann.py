"""AnnIndex: approximate cosine top-k from an HNSW index, rescored exactly from the matrix.

The HNSW graph proposes candidates (at least `ef_search` of them); their cosines are then
computed from the same float16 matrix the exact scan reads and the k best kept, ties by
node id, so an ANN result differs from `CosineIndex.top_k` only by nodes the graph missed,
never by a score. Type filters and exclusions are applied to the candidates, fetching more
when a filter keeps a small share; a filter too narrow for that (or a k too large) falls
back to an exact scan of the qualifying nodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphs.dense.ann_backends import LIBRARIES, AnnBackend, Library, Storage, load_backend
from graphs.dense.cosine import CosineIndex, top_of
from graphs.errors import ConfigError

ANN_SUFFIX = ".ann"
MAX_FETCH = 4_096
"""Above this many candidates an HNSW query costs more than scanning the qualifying nodes."""
SUBSET_SCAN = 262_144
"""A filter keeping at most this many nodes falls back to scanning just them."""


@dataclass(frozen=True, kw_only=True)
class AnnParams:
    """The HNSW index of `ark graph embed --ann` (defaults chosen in BENCHMARKS.md, issue 41).

    Attributes:
        library: hnswlib, faiss or usearch.
        m: Links per node (HNSW's M; usearch's connectivity).
        ef_construction: Candidate list while inserting (faiss efConstruction, usearch
            expansion_add).
        ef_search: Candidate list while searching; also the fewest candidates rescored.
        storage: Vector storage in the index: f32, or f16 (faiss and usearch only; lossless
            here since the embeddings themselves are float16).
        threads: Build threads (0: every core). Not recorded: it does not change the index
            enough to matter and depends on the machine.
        chunk_rows: Rows converted to float32 and inserted at once (bounds the build's
            memory beyond the index itself). Not recorded.
        seed: Level-assignment seed (hnswlib).
    """

    library: Library = "hnswlib"
    m: int = 16
    ef_construction: int = 128
    ef_search: int = 128
    storage: Storage = "f32"
    threads: int = 0
    chunk_rows: int = 65_536
    seed: int = 42

    def __post_init__(self) -> None:
        if self.library not in LIBRARIES:
            raise ConfigError(
                f"unknown ANN library {self.library!r}; choose from {', '.join(LIBRARIES)}"
            )
        if self.storage not in ("f32", "f16"):
            raise ConfigError(f"ANN storage must be f32 or f16, got {self.storage!r}")
        if self.library == "hnswlib" and self.storage != "f32":
            raise ConfigError(
                "hnswlib stores float32 only: use --ann-storage f32, or faiss/usearch"
            )
        for name in ("m", "ef_construction", "ef_search", "chunk_rows"):
            if getattr(self, name) < 1:
                raise ConfigError(f"AnnParams.{name} must be >= 1, got {getattr(self, name)}")
        if self.threads < 0:
            raise ConfigError(f"AnnParams.threads must be >= 0 (0: every core), got {self.threads}")

    def record(self) -> dict[str, Any]:
        """What shapes the index (stored in the embeddings manifest, compared on rebuild)."""
        fields = asdict(self)
        del fields["threads"], fields["chunk_rows"]
        return fields

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> AnnParams:
        """The params a manifest recorded."""
        return cls(**record)


def ann_file(variant: str) -> str:
    """The index file name of `variant`'s matrix inside embeddings/."""
    return f"{variant}{ANN_SUFFIX}"


class AnnIndex:
    """Approximate top-k with `CosineIndex`'s interface (scores of given nodes stay exact).

    Args:
        exact: The exact index over the same matrix (rescoring, fallbacks, `scores_of`).
        backend: The loaded HNSW index whose labels are the matrix's row numbers.
        params: How it was built; `ef_search` is used per query.
    """

    def __init__(self, exact: CosineIndex, backend: AnnBackend, params: AnnParams) -> None:
        self.exact = exact
        self.backend = backend
        self.params = params
        self._allowed: dict[tuple[int, ...], np.ndarray] = {}

    @classmethod
    def load(cls, exact: CosineIndex, path: Path, params: AnnParams) -> AnnIndex:
        """Open the index file at `path` for the matrix of `exact`."""
        backend = load_backend(params.library, path, int(exact.matrix.shape[1]))
        return cls(exact, backend, params)

    @property
    def matrix(self) -> np.ndarray:
        """The float16 matrix (rows are nodes)."""
        return self.exact.matrix

    @property
    def node_types(self) -> np.ndarray:
        """int16 type code of every node."""
        return self.exact.node_types

    @property
    def num_nodes(self) -> int:
        """Rows of the matrix."""
        return self.exact.num_nodes

    def top_k(
        self,
        query: np.ndarray,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
        candidates: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The (approximately) k best nodes for `query`, best first; see `CosineIndex.top_k`.

        `candidates` (a given set of nodes) is always scored exactly.
        """
        if candidates is not None or k <= 0:
            return self.exact.top_k(
                query, k, node_types=node_types, exclude=exclude, candidates=candidates
            )
        excluded = np.asarray(exclude, dtype=np.int64)
        allowed = None if node_types is None else self._allowed_ids(node_types)
        share = 1.0 if allowed is None else len(allowed) / max(1, self.num_nodes)
        if share == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        need = k + len(excluded)
        fetch = max(self.params.ef_search, math.ceil(need / share * (1.0 if share == 1 else 2.0)))
        if fetch > MAX_FETCH or fetch >= self.num_nodes:
            return self._exact_fallback(query, k, allowed, node_types, excluded)
        query = np.asarray(query, dtype=np.float32)
        found = self.backend.search(query, fetch, self.params.ef_search)
        keep = np.ones(len(found), dtype=bool)
        if node_types is not None:
            keep &= np.isin(self.exact.node_types[found], np.asarray(node_types, dtype=np.int16))
        if len(excluded):
            keep &= ~np.isin(found, excluded)
        found = found[keep]
        if len(found) < k:  # the filter kept fewer than asked: only a scan can tell
            return self._exact_fallback(query, k, allowed, node_types, excluded)
        return top_of(self.exact.scores_of(query, found), found, k)

    def scores_of(self, query: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """float32[len(nodes)]: exact cosine of the given nodes."""
        return self.exact.scores_of(query, nodes)

    def query_scan(self, query: np.ndarray) -> AnnQuery:
        """Many selections for one query (each an HNSW search; nothing is shared)."""
        return AnnQuery(self, query)

    def _allowed_ids(self, node_types: Sequence[int]) -> np.ndarray:
        key = tuple(sorted({int(code) for code in node_types}))
        ids = self._allowed.get(key)
        if ids is None:
            ids = np.flatnonzero(np.isin(self.exact.node_types, np.asarray(key, dtype=np.int16)))
            self._allowed[key] = ids
        return ids

    def _exact_fallback(
        self,
        query: np.ndarray,
        k: int,
        allowed: np.ndarray | None,
        node_types: Sequence[int] | None,
        excluded: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        if allowed is not None and len(allowed) <= SUBSET_SCAN:
            return self.exact.top_k(query, k, exclude=excluded, candidates=allowed)
        return self.exact.top_k(query, k, node_types=node_types, exclude=excluded)


class AnnQuery:
    """`query_scan` of an AnnIndex: each `top_k` is its own approximate search."""

    def __init__(self, index: AnnIndex, query: np.ndarray) -> None:
        self.index = index
        self.query = query

    def top_k(
        self,
        k: int,
        *,
        node_types: Sequence[int] | None = None,
        exclude: Sequence[int] | np.ndarray = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k best nodes for the query (see `AnnIndex.top_k`)."""
        return self.index.top_k(self.query, k, node_types=node_types, exclude=exclude)
