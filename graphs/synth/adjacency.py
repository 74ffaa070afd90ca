"""Per-relation CSR adjacency of a synthetic graph, used to compute exact gold answers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphs.synth.model import SynthGraph
from graphs.synth.recipes import Step
from graphs.synth.sampling import distinct


@dataclass(frozen=True)
class _Csr:
    indptr: np.ndarray
    targets: np.ndarray


@dataclass
class Adjacency:
    """Neighbour sets by relation and direction; each CSR is built on first use and kept."""

    graph: SynthGraph
    _cache: dict[tuple[int, bool], _Csr] = field(default_factory=dict)

    def _csr(self, relation: int, forward: bool) -> _Csr:
        key = (relation, forward)
        if key not in self._cache:
            chosen = self.graph.rel == relation
            src, dst = self.graph.src[chosen], self.graph.dst[chosen]
            if not forward:
                src, dst = dst, src
            order = np.argsort(src, kind="stable")
            counts = np.bincount(src, minlength=self.graph.num_nodes)
            indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            self._cache[key] = _Csr(indptr, dst[order])
        return self._cache[key]

    def _directed(self, nodes: Iterable[int], relation: int, forward: bool) -> list[np.ndarray]:
        csr = self._csr(relation, forward)
        return [csr.targets[csr.indptr[n] : csr.indptr[n + 1]] for n in nodes]

    def step(self, nodes: Sequence[int] | np.ndarray, step: Step) -> np.ndarray:
        """Distinct nodes of `step.target_type` one `step` away from any of `nodes`, ascending."""
        relation = self.graph.relation_code(step.relation)
        nodes = np.atleast_1d(np.asarray(nodes, dtype=np.int64)).tolist()
        parts: list[np.ndarray] = []
        if step.direction in ("out", "both"):
            parts += self._directed(nodes, relation, True)
        if step.direction in ("in", "both"):
            parts += self._directed(nodes, relation, False)
        if not parts:
            return np.empty(0, dtype=np.int64)
        found = distinct(np.concatenate(parts))
        wanted = self.graph.type_code(step.target_type)
        return found[self.graph.type_codes[found] == wanted]

    def degree(self, step: Step, source_type: str) -> np.ndarray:
        """Edges per node of `source_type` along `step` (ignoring the target type), by index."""
        relation = self.graph.relation_code(step.relation)
        total = np.zeros(self.graph.num_nodes, dtype=np.int64)
        if step.direction in ("out", "both"):
            total += np.diff(self._csr(relation, True).indptr)
        if step.direction in ("in", "both"):
            total += np.diff(self._csr(relation, False).indptr)
        return total[self.graph.of_type(source_type)]
