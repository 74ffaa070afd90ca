"""The query graph G_D of SARG's Eq. 2: triples from the retrieved evidence as a directed graph."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Direction(StrEnum):
    """Which edges a traversal follows (Sec. 3.4): successors, predecessors or both."""

    forward = "forward"
    backward = "backward"
    bidirectional = "bidirectional"


@dataclass(frozen=True)
class Triple:
    """One fact ⟨head, relation, tail⟩ and the evidence that states it.

    Attributes:
        head: Key of the head node (an external node id).
        relation: Relation name.
        tail: Key of the tail node.
        sources: Ids of the passages / nodes whose text supports the fact (provenance).
    """

    head: str
    relation: str
    tail: str
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Passage:
    """One retrieved item as flat context: its id, a short name (a title) and its text.

    Attributes:
        kind: The node's type (a typed KG's `paper`, `author`; `passage` for documents).
        answerable: The name is itself a possible answer (a typed KG's node), not a title
            guessed for a passage.
    """

    id: str
    name: str
    text: str
    kind: str = ""
    answerable: bool = False


@dataclass(frozen=True)
class Hop:
    """One step of a traversal: the triple used and whether it was walked head to tail."""

    triple: Triple
    forward: bool

    @property
    def target(self) -> str:
        """The node this hop arrives at."""
        return self.triple.tail if self.forward else self.triple.head


class QueryGraph:
    """V and E of Eq. 2 built from triples, with node labels and the source texts they cite.

    Attributes:
        nodes: Every node key in a triple (V), in first-seen order.
        triples: The distinct triples (E with relation names and provenance).
        labels: Node key -> the text embedded and shown for it (a name).
        sources: Source id -> its text (the passages / node texts behind the triples).
        built: How the graph was built, when that is worth recording (per-question
            extraction: schema, passages, cache hits, failures).
    """

    def __init__(
        self,
        triples: Iterable[Triple],
        *,
        labels: Mapping[str, str] | None = None,
        sources: Mapping[str, str] | None = None,
        built: Mapping[str, object] | None = None,
    ) -> None:
        self.triples: list[Triple] = list(dict.fromkeys(t for t in triples if t.head != t.tail))
        self.nodes: list[str] = list(
            dict.fromkeys(key for t in self.triples for key in (t.head, t.tail))
        )
        given = dict(labels or {})
        self.labels: dict[str, str] = {key: given.get(key, key) for key in self.nodes}
        self.sources: dict[str, str] = dict(sources or {})
        self.built: dict[str, object] = dict(built or {})
        self._out: dict[str, list[Triple]] = defaultdict(list)
        self._in: dict[str, list[Triple]] = defaultdict(list)
        for triple in self.triples:
            self._out[triple.head].append(triple)
            self._in[triple.tail].append(triple)

    def hops(self, node: str, direction: Direction) -> list[Hop]:
        """The hops leaving `node`: out-edges forward, in-edges backward, or both."""
        hops: list[Hop] = []
        if direction in (Direction.forward, Direction.bidirectional):
            hops += [Hop(t, True) for t in self._out.get(node, ())]
        if direction in (Direction.backward, Direction.bidirectional):
            hops += [Hop(t, False) for t in self._in.get(node, ())]
        return hops

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"QueryGraph({len(self.nodes)} nodes, {len(self.triples)} triples)"
