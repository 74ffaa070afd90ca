"""One way to walk a plan: the plan executor and the rule agent drive the same walk.

Each anchor's walk starts from its nodes and follows its hops. A round asks for
neighbourhoods (`Expand`: a node, the hop's types and relations, the words that rank the rows,
how many rows) and is sent back the rows each listed, as `ListedNode`s with their links and
scores. The executor answers from the snapshot's CSR (tools/plans/execute.py), the rule agent
with `neighbors` calls (agent/models/rules/expand.py); what the walk does with the rows is
here, once:

- a hop filtered by relation that lists nothing is asked again over every relation (still of
  the hop's types);
- an intermediate hop keeps `MAX_INTERMEDIATES` rows, those along the named relation in its
  direction first, then in the order listed (by the remaining words);
- the last hop's rows are added to a `Reach` (tools/plans/reach.py) with the path that
  reached them, how much of it lies on the question's path (`path_on`) and their score; a
  row that is a node the walk started from (the anchor or one of its homonyms) is not: a
  path back to its start, as a round trip disease -> gene -> disease finds the disease
  itself, reaches nothing new.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Literal

from tools.listing_parse import ListedNode
from tools.plans.reach import IN_DIRECTION, MAX_INTERMEDIATES, Reach, Step, path_on, path_text


@dataclass(frozen=True)
class WalkHop:
    """One hop of a walk.

    Attributes:
        node_types: The node types it goes to (empty: any).
        relations: The relations it names (empty: any).
        direction: The direction the question gives them ("out": edges pointing away from
            the node walked from).
    """

    node_types: tuple[str, ...]
    relations: tuple[str, ...] = ()
    direction: Literal["out", "in"] | None = None


@dataclass(frozen=True)
class AnchorWalk:
    """One anchor's walk: where it starts (nodes with their scores), its hops, its words.

    Attributes:
        var: The anchor's plan variable.
        starts: The nodes the walk starts from, each with the anchor's score for it.
        hops: One hop, or two through an intermediate type.
        query: The question's remaining words for this anchor (rank every hop's rows).
    """

    var: str
    starts: tuple[tuple[ListedNode, float], ...]
    hops: tuple[WalkHop, ...]
    query: str = ""


@dataclass(frozen=True)
class Expand:
    """A neighbourhood the walk asks for: `node`'s neighbours by `hop`, ranked by `query`.

    `limit`: rows wanted (None: the last hop, as many as the transport lists).
    """

    walk: AnchorWalk
    index: int
    node: ListedNode
    hop: WalkHop
    before: tuple[tuple[ListedNode, Step], ...] = ()
    """The path from the anchor to `node` (empty on the first hop)."""
    origin: tuple[ListedNode, float] | None = None
    on: int | None = None
    """How much of the path to `node` lies on the question's path (`path_on`)."""

    @property
    def query(self) -> str:
        """The words that rank the rows."""
        return self.walk.query

    @property
    def last(self) -> bool:
        """Whether this is the walk's last hop (its rows are the reached nodes)."""
        return self.index == len(self.walk.hops) - 1

    @property
    def limit(self) -> int | None:
        """Rows wanted: `MAX_INTERMEDIATES` on an intermediate hop, else all listed."""
        return None if self.last else MAX_INTERMEDIATES


Walking = Generator[list[Expand], list[list[ListedNode]], None]
"""Yields each round's requests; is sent the rows each request listed, in request order."""


def walk(walks: Sequence[AnchorWalk], reach: Reach) -> Walking:
    """Walk every anchor's hops, a round at a time, adding what the last hops reach to `reach`.

    The caller may stop sending rounds (a turn budget): what was reached so far stays. The
    node each of `reach`'s loose anchors names best (its walk's first start) is recorded in
    `reach.loose_bests` (the executor binds other nodes named like it too: "national parks"
    binds `Sequoia National Park`, an answer).
    """
    reach.loose_bests.update(
        anchor.starts[0][0].node_id
        for anchor in walks
        if anchor.var in reach.loose and anchor.starts
    )
    pending = [
        Expand(anchor, 0, node, anchor.hops[0], origin=(node, score))
        for anchor in walks
        if anchor.hops
        for node, score in anchor.starts
    ]
    while pending:
        listed = yield pending
        follow: list[Expand] = []
        for request, rows in zip(pending, padded(listed, len(pending)), strict=True):
            follow += _next(request, rows, reach)
        pending = follow


def _next(request: Expand, rows: list[ListedNode], reach: Reach) -> list[Expand]:
    """Record a request's rows; the requests they lead to (a relaxed retry or the next hop)."""
    hop, origin = request.hop, request.origin or (request.node, 0.0)
    if not rows:  # the question's relation is not here: walk every relation instead
        if not hop.relations:
            return []
        relaxed = WalkHop(hop.node_types)
        return [
            Expand(request.walk, request.index, request.node, relaxed, request.before,
                   origin, request.on)
        ]  # fmt: skip
    if not request.last:  # along the question's path first, then as listed
        ranked = sorted(rows, key=lambda row: -(path_on(request.on, hop_on(row, hop)) or 0))
        index = request.index + 1
        return [
            Expand(
                request.walk,
                index,
                row,
                request.walk.hops[index],
                (*request.before, (row, step_of(row, hop))),
                origin,
                path_on(request.on, hop_on(row, hop)),
            )
            for row in ranked[:MAX_INTERMEDIATES]
        ]
    starts = {node.node_id for node, _ in request.walk.starts} if request.before else set()
    for row in rows:
        if row.node_id in starts:
            continue  # a path back to where the walk started reaches nothing new
        steps = [*request.before, (row, step_of(row, hop))]
        names = [origin[0].name, *(node.name for node, _ in steps)]
        reach.add(
            row.node_id,
            name=row.name,
            type=row.type,
            anchor=request.walk.var,
            anchor_score=origin[1],
            relevance=row.score or 0.0,
            on_path=path_on(request.on, hop_on(row, hop)) or 0,
            path=path_text(names, [step for _, step in steps]),
        )
    return []


def step_of(row: ListedNode, hop: WalkHop) -> Step:
    """The edge that links a listed row to the node listed from, the hop's relation first."""
    links = sorted(row.links, key=lambda link: link.relation not in hop.relations)
    if not links:
        return Step("linked", forward=True)
    link = links[0]
    if hop.direction == "in" and link.incoming:
        return Step(link.relation, forward=False)
    return Step(link.relation, forward=link.outgoing)


def hop_on(row: ListedNode, hop: WalkHop) -> int | None:
    """How much a listed row's link lies on the question's path (see `path_on`).

    2: along the question's relation in its direction; 1: along it; 0: another relation;
    None: the hop names no relation.
    """
    if not hop.relations:
        return None
    on = [link for link in row.links if link.relation in hop.relations]
    if not on:
        return 0
    if hop.direction == "out" and any(link.outgoing for link in on):
        return IN_DIRECTION
    if hop.direction == "in" and any(link.incoming for link in on):
        return IN_DIRECTION
    return 1


def padded(results: Sequence[list[ListedNode]], size: int) -> list[list[ListedNode]]:
    """Exactly `size` result lists (a conversation edited by hand may hold fewer)."""
    return [list(results[i]) if i < len(results) else [] for i in range(size)]
