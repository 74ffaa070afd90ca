"""Which node types a graph's relations link, for planning one- and two-hop expansions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphs.manifest import RelationSignature


@dataclass(frozen=True)
class SchemaPaths:
    """Type-level links read from a snapshot's relation signatures (both directions)."""

    links: dict[str, dict[str, int]]
    endpoints: dict[str, frozenset[str]]
    pairs: dict[str, frozenset[frozenset[str]]]

    @classmethod
    def from_signatures(cls, signatures: Iterable[RelationSignature]) -> SchemaPaths:
        """Aggregate edge counts between node types, and each relation's endpoint types."""
        links: dict[str, dict[str, int]] = {}
        endpoints: dict[str, set[str]] = {}
        pairs: dict[str, set[frozenset[str]]] = {}
        for sig in signatures:
            pairs.setdefault(sig.relation, set()).add(frozenset((sig.source_type, sig.target_type)))
            for a, b in ((sig.source_type, sig.target_type), (sig.target_type, sig.source_type)):
                links.setdefault(a, {})
                links[a][b] = links[a].get(b, 0) + sig.count
            endpoints.setdefault(sig.relation, set()).update((sig.source_type, sig.target_type))
        return cls(
            links,
            {r: frozenset(types) for r, types in endpoints.items()},
            {r: frozenset(found) for r, found in pairs.items()},
        )

    def linked(self, a: str, b: str) -> bool:
        """True when some relation links type a and type b."""
        return b in self.links.get(a, {})

    def joins(self, relation: str, a: str, b: str) -> bool:
        """True when some edge of `relation` links type a and type b (either way)."""
        return frozenset((a, b)) in self.pairs.get(relation, frozenset())

    def touches(self, relation: str, node_type: str) -> bool:
        """True when `relation` has `node_type` at one of its ends."""
        return node_type in self.endpoints.get(relation, frozenset())

    def bridge(self, source: str, target: str) -> str | None:
        """The intermediate type best linking `source` to `target` in two hops, if any."""
        options = [
            (min(count, self.links.get(middle, {}).get(target, 0)), middle)
            for middle, count in self.links.get(source, {}).items()
            if self.linked(middle, target)
        ]
        return max(options, key=lambda option: (option[0], option[1]))[1] if options else None

    def other_ends(self, relation: str, node_type: str) -> list[str]:
        """The types `relation` links `node_type` to (itself for a relation within a type)."""
        ends = set()
        for pair in self.pairs.get(relation, frozenset()):
            if node_type in pair:
                rest = pair - {node_type}
                ends.add(next(iter(rest)) if rest else node_type)
        return sorted(ends)

    def distance(self, source: str, target: str) -> int | None:
        """Hops between two node types over the schema's links (None: not linked at all)."""
        seen, frontier, hops = {source}, [source], 0
        while frontier:
            if target in frontier:
                return hops
            frontier = [b for a in frontier for b in self.links.get(a, {}) if b not in seen]
            seen.update(frontier)
            hops += 1
        return None

    def entry_type(self, relations: Sequence[str], source: str) -> str | None:
        """An end type of the first of `relations` that `source` links to (to reach it)."""
        for relation in relations:
            ends = sorted(self.endpoints.get(relation, frozenset()))
            for end in ends:
                if self.linked(source, end):
                    return end
        return None
