"""How each named node walks to the answers: one hop, or two through an intermediate type.

The offline planner (tools/plans/rule_planner.py) reads what a question names (its nodes,
relations and answer type); the walks here follow from the schema's relation signatures:
one hop along the named relation that touches the anchor's type (every relation when none
does), two through a type the question names or that a named relation leads through, and one
chain per question when several anchors would walk it (`one_chain`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from tools.plans.rule_plan import RoutedHop
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader, blanked


@dataclass(frozen=True)
class RouteWriter:
    """Writes each anchor's hops from the schema.

    Attributes:
        reader: The question reader (named types, relation directions).
        schema: The snapshot's relation signatures as type-to-type paths.
        type_sizes: Nodes of each type (how far a type fans out into another).
    """

    reader: QuestionReader
    schema: SchemaPaths
    type_sizes: Mapping[str, int]

    def hops_for(
        self,
        anchor_type: str,
        target: str | None,
        relations: list[str],
        question: str,
        words: str,
        *,
        claimed: Collection[str] = (),
        whole: Collection[str] = frozenset(),
        schema_text: str | None = None,
    ) -> tuple[RoutedHop, ...]:
        """One hop to the target, or two through an intermediate type.

        Two hops through a type the question names that links both ends, through an end type
        of a named relation that does not touch the anchor's type (when the question names
        the answer type or every word of the relation's label: "also" alone, half of
        WordNet's `also_see`, does not send a walk from a painter through the adjectives),
        through the far end of a named relation that leaves the anchor's type but does not
        reach the answer type while another named relation goes on to it ("the packages that
        recommend patch: who maintains them?" walks `recommends`, then `maintained_by`; a
        relation `claimed` by another anchor, which joins its type to the answer type, is
        that anchor's; or, when none goes on, a named relation within the anchor's type that
        never reaches the answer type, then any link to it), or through the best-linked type
        when the anchor's type has no direct link to the answer type.
        """
        near = tuple(r for r in relations if self.schema.touches(r, anchor_type))
        far = tuple(r for r in relations if not self.schema.touches(r, anchor_type))
        named = [
            t
            for t in self.reader.mentioned_types(
                blanked(question, [words]) if schema_text is None else schema_text
            )
            if t not in (target, anchor_type) and self.schema.linked(anchor_type, t)
        ]
        middle = named[0] if named and target and self.schema.linked(named[0], target) else None
        direct = target is not None and self.schema.linked(anchor_type, target)
        if (
            middle is None
            and far
            and not near
            and (target is not None or any(r in whole for r in far))
        ):
            entry = self.schema.entry_type(list(far), anchor_type)
            joined = (
                target is not None
                and entry is not None
                and any(self.schema.joins(r, entry, target) for r in far)
            )
            if entry is not None and (joined or not direct):
                middle = entry
        if middle is None and target is not None:
            chain = self._step_then_target(anchor_type, target, near, relations, claimed)
            if chain is not None:
                step, last = chain
                first = self._first(near, anchor_type, target, claimed, step)
                return (
                    RoutedHop(step, first, self.reader.direction(question, words, first)),
                    RoutedHop(target, last),
                )
        if middle is None and target and not direct:
            middle = self.schema.bridge(anchor_type, target)
        if middle is None:  # a relation another named node claims is that node's walk
            own = tuple(r for r in near if r not in claimed) or near
            return (RoutedHop(target, own, self.reader.direction(question, words, own)),)
        first = tuple(r for r in near if self.schema.touches(r, middle))
        return (
            RoutedHop(middle, first, self.reader.direction(question, words, first)),
            RoutedHop(target, far, self.reader.direction(question, words, far)),
        )

    def _first(
        self,
        near: Sequence[str],
        anchor_type: str,
        target: str,
        claimed: Collection[str],
        step: str,
    ) -> tuple[str, ...]:
        """The named relations leaving `anchor_type` for `step` that do not reach `target`."""
        return tuple(
            r
            for r in near
            if r not in claimed
            and not self.schema.joins(r, anchor_type, target)
            and self.schema.joins(r, anchor_type, step)
        )

    def _step_then_target(
        self,
        anchor_type: str,
        target: str,
        near: Sequence[str],
        relations: Sequence[str],
        claimed: Collection[str],
    ) -> tuple[str, tuple[str, ...]] | None:
        """A chain of two named relations from `anchor_type` to `target` (see `hops_for`).

        Or of one: a named relation that links the anchor's type to itself and never to the
        answer type is walked first, within the type, then every relation on to the answer
        type ("Which diseases show any of the specific forms of Monochromacy?": `is_a` among
        phenotypes, then to diseases; "python3-joypy's direct dependencies back to their
        source packages": `depends`, then to sources).

        Returns:
            (the intermediate type, the last hop's relations), or None when there is none.
        """
        for relation in near:
            if relation in claimed or self.schema.joins(relation, anchor_type, target):
                continue
            for step in self.schema.other_ends(relation, anchor_type):
                last = tuple(
                    r for r in relations if r != relation and self.schema.joins(r, step, target)
                )
                if last:
                    return step, last
        if not self.schema.linked(anchor_type, target):
            return None
        if self._first(near, anchor_type, target, claimed, anchor_type):
            return anchor_type, ()  # within the type first ("the specific forms of X"), then on
        return None

    def claimed(
        self, relations: Sequence[str], types: Sequence[str], own: int, target: str | None
    ) -> frozenset[str]:
        """Named relations joining another anchor's type to the answer type (that anchor's)."""
        if target is None:
            return frozenset()
        others = [t for i, t in enumerate(types) if i != own]
        return frozenset(r for r in relations for t in others if self.schema.joins(r, t, target))

    def one_chain(
        self,
        walks: dict[str, tuple[RoutedHop, ...]],
        types: dict[str, str],
        target: str | None,
        relations: list[str],
    ) -> dict[str, tuple[RoutedHop, ...]]:
        """One chain per question: the other anchors constrain the target directly.

        The relation the question names is walked once. When an anchor walks it in one hop,
        no other anchor walks it; else, of the anchors that would walk two hops, only the
        one whose type fans out least into the first step keeps the chain (a brand's few
        products, not a category's hundreds). The others, of another type linked to the
        target type directly, walk one hop to it instead, so the target is reached from all
        (their agreement is the question's intersection).
        """
        chained = [var for var, walk in walks.items() if len(walk) > 1]
        if target is None or len(walks) < 2 or not chained:
            return walks
        walked = [v for v, walk in walks.items() if len(walk) == 1 and walk[0].relations]
        owner = (
            walked[0]
            if walked
            else min(chained, key=lambda v: (self.fan_out(types[v], walks[v][0].node_type), v))
        )
        out = dict(walks)
        for var in chained:
            kind = types[var]
            if var == owner or kind == types[owner] or not self.schema.linked(kind, target):
                continue
            near = tuple(r for r in relations if self.schema.joins(r, kind, target))
            out[var] = (RoutedHop(target, near),)
        return out

    def fan_out(self, source: str, other: str | None) -> float:
        """Edges per `source` node into type `other` (any type when None), from the schema."""
        size = self.type_sizes.get(source, 0)
        links = self.schema.links.get(source, {})
        edges = links.get(other, 0) if other is not None else sum(links.values())
        return edges / size if size else float("inf")
