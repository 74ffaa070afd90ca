"""The neighbors tool: a node's one-hop neighbourhood, filtered, ranked by BM25, top k formatted.

Each (edge, direction) is one line: a neighbour linked by two edges (say `cites` both ways)
appears once per edge, so every relation is visible. With a query, lines are ranked by the
neighbour's BM25 score (`BM25Index.score_nodes`, the same statistics as global search) and only
matching neighbours are listed, unless none matches: then the listing falls back to the default
order and says that nothing matched. Equal scores, and the whole list without a query, follow
the default order: relation name, then outgoing before incoming, then neighbour degree (most
connected first), then internal node id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tools.config import ToolConfig
from tools.format import (
    NeighborRow,
    NodeView,
    capped_note,
    filters_text,
    neighbors_text,
    no_neighbors_text,
)
from tools.observation import Observation
from tools.schemas import NeighborsArgs
from tools.snippet import make_snippet, terms_by_weight
from tools.vocab import Vocabulary, resolve_node

if TYPE_CHECKING:
    from graphs.bm25 import BM25Index
    from graphs.snapshot import Neighborhood, Snapshot

_KEY_BITS = 63


class NeighborOrder:
    """The default order of a neighbourhood as one int64 key per entry (smaller = earlier)."""

    def __init__(self, relation_names: Sequence[str], degrees: np.ndarray) -> None:
        by_name = sorted(range(len(relation_names)), key=lambda code: relation_names[code])
        self._relation_rank = np.empty(max(len(relation_names), 1), dtype=np.int64)
        self._relation_rank[by_name] = np.arange(len(by_name), dtype=np.int64)
        self._degrees = degrees
        self._max_degree = int(degrees.max()) if len(degrees) else 0
        self._node_bits = max(len(degrees) - 1, 1).bit_length()
        self._degree_bits = max(self._max_degree, 1).bit_length()
        relation_bits = max(len(relation_names) - 1, 1).bit_length()
        self._packed = relation_bits + 1 + self._degree_bits + self._node_bits < _KEY_BITS

    def keys(self, hood: Neighborhood) -> np.ndarray:
        """Sort keys of the entries of `hood` (unique except for repeated identical edges)."""
        nodes = np.asarray(hood.nodes, dtype=np.int64)
        rank = self._relation_rank[hood.relations]
        incoming = (hood.directions < 0).astype(np.int64)
        missing_degree = self._max_degree - self._degrees[nodes]
        if not self._packed:
            order = np.lexsort((nodes, missing_degree, incoming, rank))
            keys = np.empty(len(order), dtype=np.int64)
            keys[order] = np.arange(len(order), dtype=np.int64)
            return keys
        key = (rank << 1) | incoming
        key = (key << self._degree_bits) | missing_degree
        return (key << self._node_bits) | nodes


def top_entries(keys: np.ndarray, scores: np.ndarray | None, k: int) -> np.ndarray:
    """Positions of the best `k` entries, in order: by score (highest first) then key.

    Runs in O(n + k log k): only the top k are sorted (ties at the cut are broken by key).
    """
    if scores is None:
        return _smallest_keys(keys, np.arange(len(keys)), k)
    # Partition the negated scores: np.partition near the end of an array full of equal
    # values (most neighbours score 0) is pathologically slow, near the start it is not.
    negated = -scores
    if len(keys) > k:
        cut = np.partition(negated, k - 1)[k - 1]
        above = np.flatnonzero(negated < cut)
        tied = _smallest_keys(keys, np.flatnonzero(negated == cut), k - len(above))
        chosen = np.concatenate((above, tied))
    else:
        chosen = np.arange(len(keys))
    return chosen[np.lexsort((keys[chosen], negated[chosen]))]


def _smallest_keys(keys: np.ndarray, positions: np.ndarray, count: int) -> np.ndarray:
    """The `count` positions (of `positions`) with the smallest keys, sorted by key."""
    if len(positions) > count:
        positions = positions[np.argpartition(keys[positions], count - 1)[:count]]
    return positions[np.argsort(keys[positions], kind="stable")]


def neighbor_scores(index: BM25Index, nodes: np.ndarray, query: str) -> np.ndarray:
    """BM25 of `query` for each neighbour: `BM25Index.score_nodes` on the distinct nodes.

    The neighbour array is a concatenation of sorted runs (one per relation and direction);
    a stable argsort (timsort) exploits them and is several times faster at hub sizes than
    the unstable sort `score_nodes` would otherwise run to deduplicate them.
    """
    order = np.argsort(nodes, kind="stable")
    ordered = nodes[order]
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    distinct_scores = index.score_nodes(query, ordered[first])
    scores = np.empty(len(nodes), dtype=np.float32)
    scores[order] = distinct_scores[np.cumsum(first) - 1]
    return scores


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
    requested = args.k or config.neighbors_k
    k = min(requested, config.max_k)
    notes = [*([capped_note(requested, k)] if requested > k else []), *notes]
    hood = snapshot.neighbors(anchor, node_types=type_codes, relations=relation_codes)
    anchor_view = _view(snapshot, anchor, with_text=False)
    if not len(hood.nodes):
        return _empty(snapshot, anchor, anchor_view, filters, notes)
    query = args.query if args.query and args.query.strip() else None
    scores = neighbor_scores(snapshot.index, hood.nodes, query) if query else None
    matches = int(np.count_nonzero(scores)) if scores is not None else 0
    if not matches:
        scores = None  # nothing matched: the default order, shown unranked
    shown = top_entries(order.keys(hood), scores, k)
    if scores is not None:
        shown = shown[scores[shown] > 0]  # unrelated neighbours only when nothing matches
    ranked: list[float] = scores[shown].tolist() if scores is not None else []
    shown_scores: list[float | None] = list(ranked) if scores is not None else [None] * len(shown)
    snippet_terms: list[list[str]] = [[] for _ in range(len(shown))]
    if query and scores is not None and config.neighbor_snippet_chars > 0:
        terms = snapshot.index.matched_terms(query)
        names = [snapshot.name(node) for node in hood.nodes[shown].tolist()]
        snippet_terms = terms_by_weight(snapshot.index, terms, hood.nodes[shown], names)
    rows = [
        _row(snapshot, node, relation, direction, score, terms, config)
        for node, relation, direction, score, terms in zip(
            hood.nodes[shown].tolist(),
            hood.relations[shown].tolist(),
            hood.directions[shown].tolist(),
            shown_scores,
            snippet_terms,
            strict=True,
        )
    ]
    breakdown: list[tuple[str, int]] = []
    if len(shown) < len(hood.nodes):
        breakdown = _counts(hood.relations, snapshot.relation_names)
    text = neighbors_text(
        anchor_view,
        rows,
        total=len(hood.nodes),
        query=query,
        query_matches=matches,
        filters=filters,
        breakdown=breakdown,
        notes=notes,
    )
    return Observation(
        text=text,
        node_ids=[row.node.node_id for row in rows],
        scores=ranked,
    )


def _row(
    snapshot: Snapshot,
    node: int,
    relation: int,
    direction: int,
    score: float | None,
    terms: Sequence[str],
    config: ToolConfig,
) -> NeighborRow:
    """One listing row; `terms` are the query terms most informative first, for the snippet."""
    matched = score is not None and score > 0 and config.neighbor_snippet_chars > 0
    view = _view(snapshot, node, with_text=matched)
    matched = matched and view.text != view.name
    return NeighborRow(
        node=view,
        relation=snapshot.relation_names[relation],
        outgoing=direction > 0,
        score=score,
        snippet=make_snippet(
            view.text, terms, config.neighbor_snippet_chars, snapshot.index.tokenizer
        )
        if matched
        else "",
    )


def _view(snapshot: Snapshot, node: int, *, with_text: bool) -> NodeView:
    text = snapshot.text(node) if with_text else ""
    return NodeView(snapshot.external_id(node), snapshot.name(node), snapshot.type_name(node), text)


def _empty(
    snapshot: Snapshot, anchor: int, view: NodeView, filters: str, notes: Sequence[str]
) -> Observation:
    if not filters:
        return Observation(text=no_neighbors_text(view, notes=notes))
    everything = snapshot.neighbors(anchor)
    text = no_neighbors_text(
        view,
        filters=filters,
        degree=len(everything.nodes),
        edge_counts=_counts(everything.relations, snapshot.relation_names),
        type_counts=_counts(snapshot.node_type_codes[everything.nodes], snapshot.node_type_names),
        notes=notes,
    )
    return Observation(text=text)


def _counts(codes: np.ndarray, names: Sequence[str]) -> list[tuple[str, int]]:
    """(name, count) of the codes present, most frequent first, then by name."""
    counts = np.bincount(np.asarray(codes, dtype=np.int64), minlength=len(names))
    present = [(names[code], int(count)) for code, count in enumerate(counts) if count]
    return sorted(present, key=lambda pair: (-pair[1], pair[0]))
