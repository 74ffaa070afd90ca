"""HNSW libraries behind one small interface: hnswlib, faiss and usearch, inner product only.

Each backend builds an index chunk by chunk (labels are internal node ids), saves it to one
file, loads it back and answers one query at a time. The libraries come with the `ann`
extra and are imported only when a backend is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from graphs.errors import ConfigError, MissingExtraError

Library = Literal["hnswlib", "faiss", "usearch"]
LIBRARIES: tuple[Library, ...] = ("hnswlib", "faiss", "usearch")
Storage = Literal["f32", "f16"]


class AnnBackend(Protocol):
    """One HNSW index of unit vectors under inner product."""

    def add(self, vectors: np.ndarray, labels: np.ndarray, threads: int) -> None:
        """Insert float32[rows, dim] `vectors` under int64 `labels`."""
        ...

    def save(self, path: Path) -> None:
        """Write the index to one file."""
        ...

    def search(self, query: np.ndarray, count: int, ef: int) -> np.ndarray:
        """int64 labels of up to `count` approximate neighbours of float32[dim] `query`."""
        ...


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError("ann", module.split(".")[0], what="an ANN index") from error


class _Hnswlib:
    """hnswlib's `Index(space="ip")`: float32 vectors, the graph and vectors in memory."""

    def __init__(self, index: Any) -> None:
        self._index = index

    @classmethod
    def create(cls, dim: int, capacity: int, *, m: int, ef_construction: int, seed: int) -> Any:
        hnswlib = _need("hnswlib")
        index = hnswlib.Index(space="ip", dim=dim)
        index.init_index(
            max_elements=capacity, M=m, ef_construction=ef_construction, random_seed=seed
        )
        return cls(index)

    @classmethod
    def load(cls, path: Path, dim: int) -> _Hnswlib:
        hnswlib = _need("hnswlib")
        index = hnswlib.Index(space="ip", dim=dim)
        index.load_index(str(path))
        index.set_num_threads(1)
        return cls(index)

    def add(self, vectors: np.ndarray, labels: np.ndarray, threads: int) -> None:
        self._index.add_items(vectors, labels, num_threads=threads)

    def save(self, path: Path) -> None:
        self._index.save_index(str(path))

    def search(self, query: np.ndarray, count: int, ef: int) -> np.ndarray:
        count = min(count, self._index.get_current_count())
        self._index.set_ef(max(ef, count))
        labels, _ = self._index.knn_query(query[None, :], k=count, num_threads=1)
        return labels[0].astype(np.int64)


class _Faiss:
    """faiss `IndexHNSWFlat` (f32) or `IndexHNSWSQ` with fp16 storage, inner product."""

    def __init__(self, index: Any) -> None:
        self._faiss = _need("faiss")
        self._index = index

    @classmethod
    def create(cls, dim: int, *, m: int, ef_construction: int, storage: Storage = "f32") -> _Faiss:
        faiss = _need("faiss")
        if storage == "f16":
            index = faiss.IndexHNSWSQ(
                dim, faiss.ScalarQuantizer.QT_fp16, m, faiss.METRIC_INNER_PRODUCT
            )
        else:
            index = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
        return cls(index)

    @classmethod
    def load(cls, path: Path) -> _Faiss:
        faiss = _need("faiss")
        return cls(faiss.read_index(str(path)))

    def add(self, vectors: np.ndarray, labels: np.ndarray, threads: int) -> None:
        # HNSW ids are insertion order; the build inserts nodes 0..n-1 in order
        if int(labels[0]) != self._index.ntotal:
            raise ValueError("faiss HNSW labels must be added in order from 0")
        self._faiss.omp_set_num_threads(threads)
        self._index.add(np.ascontiguousarray(vectors, dtype=np.float32))

    def save(self, path: Path) -> None:
        self._faiss.write_index(self._index, str(path))

    def search(self, query: np.ndarray, count: int, ef: int) -> np.ndarray:
        self._faiss.omp_set_num_threads(1)
        params = self._faiss.SearchParametersHNSW(efSearch=max(ef, count))
        _, labels = self._index.search(query[None, :].astype(np.float32), count, params=params)
        found = labels[0]
        return found[found >= 0].astype(np.int64)


class _Usearch:
    """usearch `Index(metric="ip")`; the saved file is memory-mapped (`view`) when loaded."""

    def __init__(self, index: Any) -> None:
        self._index = index

    @classmethod
    def create(
        cls, dim: int, *, m: int, ef_construction: int, seed: int, storage: Storage = "f32"
    ) -> _Usearch:
        usearch = _need("usearch.index")
        index = usearch.Index(
            ndim=dim,
            metric="ip",
            dtype=storage,
            connectivity=m,
            expansion_add=ef_construction,
        )
        return cls(index)

    @classmethod
    def load(cls, path: Path) -> _Usearch:
        usearch = _need("usearch.index")
        return cls(usearch.Index.restore(str(path), view=True))

    def add(self, vectors: np.ndarray, labels: np.ndarray, threads: int) -> None:
        self._index.add(labels.astype(np.uint64), vectors, threads=threads)

    def save(self, path: Path) -> None:
        self._index.save(str(path))

    def search(self, query: np.ndarray, count: int, ef: int) -> np.ndarray:
        self._index.expansion_search = max(ef, count)
        matches = self._index.search(query.astype(np.float32), count, threads=1)
        return np.asarray(matches.keys, dtype=np.int64)


def create_backend(
    library: Library,
    dim: int,
    capacity: int,
    *,
    m: int,
    ef_construction: int,
    seed: int,
    storage: Storage,
) -> AnnBackend:
    """An empty index of `library` for `capacity` vectors of `dim`."""
    if library == "hnswlib":
        if storage != "f32":
            raise ConfigError("hnswlib stores float32 only: use storage f32, or faiss or usearch")
        backend: AnnBackend = _Hnswlib.create(
            dim, capacity, m=m, ef_construction=ef_construction, seed=seed
        )
        return backend
    if library == "faiss":
        return _Faiss.create(dim, m=m, ef_construction=ef_construction, storage=storage)
    return _Usearch.create(dim, m=m, ef_construction=ef_construction, seed=seed, storage=storage)


def load_backend(library: Library, path: Path, dim: int) -> AnnBackend:
    """The index of `library` saved at `path`."""
    if library == "hnswlib":
        return _Hnswlib.load(path, dim)
    if library == "faiss":
        return _Faiss.load(path)
    return _Usearch.load(path)
