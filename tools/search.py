"""The search tool: global BM25 over every node's name and text, top k with snippets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tools.config import ToolConfig
from tools.format import (
    NamedNode,
    SearchHit,
    empty_query_text,
    filters_text,
    names_text,
    page_size,
    search_text,
)
from tools.mentions import find_mentions
from tools.node import node_views
from tools.observation import Observation
from tools.schemas import SearchArgs
from tools.snippet import query_snippets
from tools.vocab import Vocabulary

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


def run_search(
    snapshot: Snapshot,
    vocabulary: Vocabulary,
    config: ToolConfig,
    args: SearchArgs,
    notes: Sequence[str] = (),
) -> Observation:
    """Run a validated search call.

    A query with no indexable word (empty, punctuation only) is an expected empty result that
    says so, not an error.

    Raises:
        UnknownTypeError: `node_types` names an unknown type.
    """
    type_codes = vocabulary.type_codes(args.node_types) if args.node_types else None
    k, notes = page_size(args.k or config.search_k, config.max_k, notes)
    index = snapshot.index
    if not index.tokenize(args.query):
        return Observation(text="\n".join([empty_query_text(args.query), *notes]))
    ids, scores = index.search(args.query, k, node_types=type_codes)
    observation = ranking_observation(
        snapshot, ids, scores, args.query, args.node_types, k, config, notes
    )
    if not config.link_names or config.toolset != "extended":
        return observation
    named = named_nodes(snapshot, args.query)
    if not named:
        return observation
    text = "\n".join([observation.text, names_text(named)])
    shown = dict(zip(observation.node_ids, observation.scores, strict=True))
    for row in named:
        shown.setdefault(row.node.node_id, row.score)
    return Observation(text=text, node_ids=list(shown), scores=list(shown.values()))


def named_nodes(snapshot: Snapshot, query: str) -> list[NamedNode]:
    """The nodes the query names (tools/mentions.py), mention by mention, homonyms best first."""
    mentions = find_mentions(snapshot, query)
    nodes = np.array([n for m in mentions for n in m.nodes], dtype=np.int64)
    views = iter(node_views(snapshot, nodes))
    return [
        NamedNode(
            m.text, next(views), score, (m.texts, m.near) if i == 0 and m.near is not None else None
        )
        for m in mentions
        for i, score in enumerate(m.scores)
    ]


def ranking_observation(
    snapshot: Snapshot,
    ids: np.ndarray,
    scores: np.ndarray,
    query: str,
    node_types: Sequence[str] | None,
    k: int,
    config: ToolConfig,
    notes: Sequence[str],
) -> Observation:
    """The observation of a ranked list of nodes (``search`` and ``dense_search`` alike)."""
    hits = search_hits(snapshot, ids, scores, query, config)
    text = search_text(
        query, hits, k=k, max_k=config.max_k, filters=filters_text(node_types or ()), notes=notes
    )
    return Observation(
        text=text, node_ids=[hit.node.node_id for hit in hits], scores=scores.tolist()
    )


def search_hits(
    snapshot: Snapshot, ids: np.ndarray, scores: np.ndarray, query: str, config: ToolConfig
) -> list[SearchHit]:
    """The rows of a search-like listing: each node with its score and a query snippet.

    Snippets centre on the query's most informative terms (the snapshot's analyzer), so
    `search` and `dense_search` show the same kind of evidence.
    """
    views = node_views(snapshot, ids)
    snippets = query_snippets(
        snapshot, query, ids, [view.name for view in views], config.snippet_chars
    )
    return [
        SearchHit(view, score, snippet)
        for view, score, snippet in zip(views, scores.tolist(), snippets, strict=True)
    ]
