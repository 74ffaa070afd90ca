"""The in-memory synthetic graph (nodes, edges, traits) and the builder the domains fill in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from graphs.errors import GraphError
from graphs.synth.sampling import distinct


@dataclass(frozen=True)
class SynthGraph:
    """A generated graph over dense node indices, before it becomes a snapshot.

    Attributes:
        type_names: Node type names, in type-code order.
        type_codes: int16[N] type code of every node.
        ids: External node ids (``prod-17``), never shown in questions.
        names: Node names, unique case-insensitively across the graph.
        texts: Searchable descriptions.
        relation_names: Relation names, in relation-code order.
        src: int64[E] source node index of every edge.
        dst: int64[E] target node index of every edge.
        rel: int16[E] relation code of every edge.
        candidate_types: Node types that can be answers (empty = all).
    """

    type_names: tuple[str, ...]
    type_codes: np.ndarray
    ids: list[str]
    names: list[str]
    texts: list[str]
    relation_names: tuple[str, ...]
    src: np.ndarray
    dst: np.ndarray
    rel: np.ndarray
    candidate_types: tuple[str, ...]

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return len(self.ids)

    def type_code(self, name: str) -> int:
        """Code of a node type by name."""
        return self.type_names.index(name)

    def relation_code(self, name: str) -> int:
        """Code of a relation by name."""
        return self.relation_names.index(name)

    def of_type(self, name: str) -> np.ndarray:
        """Indices of every node of one type, ascending."""
        return np.flatnonzero(self.type_codes == self.type_code(name))

    def node_table(self) -> pa.Table:
        """The nodes as the snapshot builder expects them (id, type, name, text)."""
        types = np.asarray(self.type_names, dtype=object)[self.type_codes]
        return pa.table(
            {
                "id": pa.array(self.ids, pa.string()),
                "type": pa.array(types.tolist(), pa.string()),
                "name": pa.array(self.names, pa.string()),
                "text": pa.array(self.texts, pa.string()),
            }
        )

    def edge_table(self) -> pa.Table:
        """The edges as the snapshot builder expects them (src, dst, relation)."""
        ids = np.asarray(self.ids, dtype=object)
        relations = np.asarray(self.relation_names, dtype=object)[self.rel]
        return pa.table(
            {
                "src": pa.array(ids[self.src].tolist(), pa.string()),
                "dst": pa.array(ids[self.dst].tolist(), pa.string()),
                "relation": pa.array(relations.tolist(), pa.string()),
            }
        )


@dataclass
class GraphBuilder:
    """Collects node blocks and edge blocks, then freezes them into a :class:`SynthGraph`."""

    taken_names: set[str] = field(default_factory=set)
    _type_names: list[str] = field(default_factory=list)
    _type_codes: list[np.ndarray] = field(default_factory=list)
    _type_counts: dict[str, int] = field(default_factory=dict)
    _ids: list[str] = field(default_factory=list)
    _names: list[str] = field(default_factory=list)
    _texts: list[str] = field(default_factory=list)
    _relations: list[str] = field(default_factory=list)
    _edges: list[tuple[np.ndarray, np.ndarray, int]] = field(default_factory=list)

    def add_nodes(
        self, type_name: str, prefix: str, names: Sequence[str], texts: Sequence[str]
    ) -> np.ndarray:
        """Append a block of nodes of one type; returns their indices.

        Ids are ``{prefix}-{k}`` with k counting within the type, so they never read like names.
        """
        if len(names) != len(texts):
            raise GraphError(f"{type_name}: {len(names)} names but {len(texts)} texts")
        if type_name not in self._type_names:
            self._type_names.append(type_name)
        code = self._type_names.index(type_name)
        start = len(self._ids)
        already = self._type_counts.get(type_name, 0)
        self._type_counts[type_name] = already + len(names)
        self._ids.extend(f"{prefix}-{already + k}" for k in range(len(names)))
        self._names.extend(names)
        self._texts.extend(texts)
        self._type_codes.append(np.full(len(names), code, dtype=np.int16))
        return np.arange(start, start + len(names), dtype=np.int64)

    def add_edges(
        self, relation: str, src: np.ndarray, dst: np.ndarray, *, symmetric: bool = False
    ) -> None:
        """Append edges of one relation; self-loops and repeats are removed.

        Args:
            relation: Relation name.
            src: Source node indices.
            dst: Target node indices (same length).
            symmetric: The relation has no direction (``also_buy``): a pair is stored once,
                from the smaller index to the larger, whichever order it was drawn in.
        """
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        if symmetric:
            src, dst = np.minimum(src, dst), np.maximum(src, dst)
        keep = src != dst
        span = np.int64(max(int(src.max(initial=0)), int(dst.max(initial=0))) + 1)
        pairs = distinct(src[keep] * span + dst[keep])
        if relation not in self._relations:
            self._relations.append(relation)
        self._edges.append((pairs // span, pairs % span, self._relations.index(relation)))

    def finish(self, candidate_types: Sequence[str]) -> SynthGraph:
        """Freeze the collected blocks; repeats across blocks of one relation are removed."""
        src = np.concatenate([block[0] for block in self._edges])
        dst = np.concatenate([block[1] for block in self._edges])
        rel = np.concatenate([np.full(block[0].size, block[2], np.int64) for block in self._edges])
        n = np.int64(len(self._ids))
        key = distinct((rel * n + src) * n + dst)  # sorted by relation, then source, then target
        return SynthGraph(
            type_names=tuple(self._type_names),
            type_codes=np.concatenate(self._type_codes),
            ids=self._ids,
            names=self._names,
            texts=self._texts,
            relation_names=tuple(self._relations),
            src=key // n % n,
            dst=key % n,
            rel=(key // (n * n)).astype(np.int16),
            candidate_types=tuple(candidate_types),
        )
