"""The neighbors tool: a node's one-hop neighbour *set*, filtered, ranked by BM25, top k formatted.

One row per neighbour node, listing every relation and direction that links it to the anchor
(`<-[cites]->` when edges go both ways), so k counts nodes. The neighbourhood is the open one:
the anchor is never its own neighbour, even through a self-loop. With a query, the whole
(filtered) neighbourhood is ranked by its BM25 score rel >= 0 (`BM25Index.score_nodes`, the
same statistics as global search) and the top k are listed, as the paper defines the tool:
neighbours that share a word with the query come first, and those that share none (score 0)
fill the remaining slots. Equal scores, the zero-score fill, and the whole list without a
query follow the default order of :class:`tools.neighbor_set.NeighborOrder` (relation name,
outgoing before incoming, most connected first, then internal id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tools.config import ToolConfig
from tools.format import (
    EdgeLink,
    NeighborRow,
    NodeView,
    filters_text,
    neighbors_text,
    no_neighbors_text,
    page_size,
)
from tools.neighbor_set import NeighborOrder, NeighborSet, open_neighborhood, top_entries
from tools.node import node_views
from tools.observation import Observation
from tools.schemas import NeighborsArgs
from tools.snippet import query_snippets
from tools.vocab import Vocabulary, resolve_node

if TYPE_CHECKING:
    from graphs.snapshot import Neighborhood, Snapshot


def run_neighbors(
    snapshot: Snapshot,
    vocabulary: Vocabulary,
    order: NeighborOrder,
    config: ToolConfig,
    args: NeighborsArgs,
    notes: Sequence[str] = (),
) -> Observation:
    """Run a validated neighbors call (a blank query counts as no query).

    Raises:
        UnknownNodeIdError: `node_id` is not in the snapshot.
        UnknownTypeError, UnknownRelationError: A filter names an unknown type or relation.
    """
    anchor = resolve_node(snapshot, args.node_id)
    type_codes = vocabulary.type_codes(args.node_types) if args.node_types else None
    relation_codes = vocabulary.relation_codes(args.edge_types) if args.edge_types else None
    filters = filters_text(args.node_types or (), args.edge_types or ())
    k, notes = page_size(args.k or config.neighbors_k, config.max_k, notes)
    query = args.query if args.query and args.query.strip() else None
    ranked_hood = rank_neighbourhood(snapshot, order, anchor, type_codes, relation_codes, query, k)
    if ranked_hood is None:
        anchor_view = node_views(snapshot, np.array([anchor]))[0]
        return _empty(snapshot, anchor, anchor_view, filters, notes)
    hood, members, shown = ranked_hood.hood, ranked_hood.members, ranked_hood.shown
    scores, matches = ranked_hood.scores, ranked_hood.matches
    ranked: list[float] = scores[shown].tolist() if scores is not None else []
    row_scores: list[float | None] = list(ranked) if scores is not None else [None] * len(shown)
    shown_nodes = members.nodes[shown]
    anchor_view, *views = node_views(snapshot, np.concatenate(([anchor], shown_nodes)))
    snippets = [""] * len(shown)
    matched = min(matches, len(shown))  # the matching rows come first
    if query and scores is not None and matched:
        names = [view.name for view in views[:matched]]
        snippets[:matched] = query_snippets(
            snapshot, query, shown_nodes[:matched], names, config.neighbor_snippet_chars
        )
    links = ranked_hood.links(snapshot, order)
    rows = [
        NeighborRow(node=view, links=node_links, score=score, snippet=snippet)
        for view, node_links, score, snippet in zip(views, links, row_scores, snippets, strict=True)
    ]
    breakdown: list[tuple[str, int]] = []
    if len(shown) < len(members):
        breakdown = _named_counts(
            members.nodes_per_code(hood.relations, len(snapshot.relation_names)),
            snapshot.relation_names,
        )
    text = neighbors_text(
        anchor_view,
        rows,
        total=len(members),
        query=query,
        query_matches=matches,
        filters=filters,
        breakdown=breakdown,
        notes=notes,
    )
    return Observation(text=text, node_ids=[row.node.node_id for row in rows], scores=ranked)


@dataclass(frozen=True)
class RankedNeighbourhood:
    """A node's filtered open neighbourhood, ranked as the tool lists it.

    Attributes:
        hood: The neighbourhood's entries (one per edge and direction).
        members: Its nodes, each once.
        shown: Positions in `members` of the rows listed, in order.
        scores: Every member's score for the query (None: no query, or nothing matched).
        matches: Members scoring above zero.
    """

    hood: Neighborhood
    members: NeighborSet
    shown: np.ndarray
    scores: np.ndarray | None
    matches: int

    def links(self, snapshot: Snapshot, order: NeighborOrder) -> list[tuple[EdgeLink, ...]]:
        """Every relation linking each listed row to the node, by relation name."""
        return _links(snapshot, self.hood, self.members, order, self.shown)


def rank_neighbourhood(
    snapshot: Snapshot,
    order: NeighborOrder,
    anchor: int,
    type_codes: Sequence[int] | None,
    relation_codes: Sequence[int] | None,
    query: str | None,
    k: int | None,
) -> RankedNeighbourhood | None:
    """`anchor`'s neighbours by the filters, the first `k` (None: all) as the tool lists them.

    By the query's BM25 score (rel >= 0), then the default order (`NeighborOrder`); without
    a query, or when nothing matches, in the default order. None: no neighbour passes the
    filters. The `neighbors` tool and the plan executor (tools/plans/execute.py) list alike.
    """
    hood = open_neighborhood(
        snapshot.neighbors(anchor, node_types=type_codes, relations=relation_codes), anchor
    )
    if not len(hood.nodes):
        return None
    members = NeighborSet.of(hood)
    scores = snapshot.index.score_nodes(query, members.nodes) if query else None
    matches = int(np.count_nonzero(scores > 0)) if scores is not None else 0
    if not matches:
        scores = None  # nothing matched: the default order, shown unranked
    shown = _shown(hood, members, order, scores, len(members) if k is None else k)
    return RankedNeighbourhood(hood, members, shown, scores, matches)


def _shown(
    hood: Neighborhood,
    members: NeighborSet,
    order: NeighborOrder,
    scores: np.ndarray | None,
    k: int,
) -> np.ndarray:
    """Positions in `members` of the k listed, in order: by score, then the default order.

    With scores the whole neighbourhood is ranked by rel >= 0: the positively scored come
    first and only they need their default-order keys up front (to break ties); when fewer
    than k match, the zero-scored fill the rest in the default order.
    """
    if scores is None:
        return top_entries(order.first_keys(hood, members), None, k)
    return order.top_ranked(hood, members, scores, k)


def _links(
    snapshot: Snapshot,
    hood: Neighborhood,
    members: NeighborSet,
    order: NeighborOrder,
    shown: np.ndarray,
) -> list[tuple[EdgeLink, ...]]:
    """Every relation linking each shown neighbour to the anchor, by relation name."""
    counts, codes, flags = order.member_links(hood, members, shown)
    made: dict[tuple[int, int], EdgeLink] = {}  # a few distinct links recur on every row
    links = []
    for key in zip(codes.tolist(), flags.tolist(), strict=True):
        link = made.get(key)
        if link is None:
            code, flag = key
            link = made[key] = EdgeLink(
                snapshot.relation_names[code], outgoing=bool(flag & 1), incoming=bool(flag & 2)
            )
        links.append(link)
    rows, start = [], 0
    for count in counts.tolist():
        rows.append(tuple(links[start : start + count]))
        start += count
    return rows


def _empty(
    snapshot: Snapshot, anchor: int, view: NodeView, filters: str, notes: Sequence[str]
) -> Observation:
    if not filters:
        return Observation(text=no_neighbors_text(view, notes=notes))
    everything = open_neighborhood(snapshot.neighbors(anchor), anchor)
    members = NeighborSet.of(everything)
    type_counts = np.bincount(
        snapshot.node_type_codes[members.nodes], minlength=len(snapshot.node_type_names)
    )
    text = no_neighbors_text(
        view,
        filters=filters,
        degree=len(members),
        edge_counts=_named_counts(
            members.nodes_per_code(everything.relations, len(snapshot.relation_names)),
            snapshot.relation_names,
        ),
        type_counts=_named_counts(type_counts, snapshot.node_type_names),
        notes=notes,
    )
    return Observation(text=text)


def _named_counts(counts: np.ndarray, names: Sequence[str]) -> list[tuple[str, int]]:
    """(name, count) of the codes present, most frequent first, then by name."""
    present = [(names[code], int(count)) for code, count in enumerate(counts.tolist()) if count]
    return sorted(present, key=lambda pair: (-pair[1], pair[0]))
