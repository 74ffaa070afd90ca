"""Every text format the model sees from a tool call, in one place (covered by golden tests)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ELLIPSIS = "…"
_SCORE_DIGITS = 2
_NAME_CHARS = 150
_QUERY_CHARS = 100


@dataclass(frozen=True)
class NodeView:
    """What a listing shows of one node."""

    node_id: str
    name: str
    type: str
    text: str = ""


@dataclass(frozen=True)
class EdgeLink:
    """How a neighbour is linked to the anchor by one relation, in one or both directions.

    Attributes:
        relation: The relation name.
        outgoing: An edge anchor -> neighbour exists.
        incoming: An edge neighbour -> anchor exists.
    """

    relation: str
    outgoing: bool
    incoming: bool


@dataclass(frozen=True)
class NeighborRow:
    """One neighbour node with every relation and direction linking it to the anchor."""

    node: NodeView
    links: tuple[EdgeLink, ...]
    score: float | None = None
    snippet: str = ""


@dataclass(frozen=True)
class EdgeGroup:
    """The neighbours of one node that share a relation, a direction and a node type."""

    relation: str
    outgoing: bool
    node_type: str
    count: int


@dataclass(frozen=True)
class SearchHit:
    """One global-search result."""

    node: NodeView
    score: float
    snippet: str = ""


def node_label(node: NodeView) -> str:
    """`[id] name (type)`: the way every listing names a node (one line, long names cut)."""
    return f"[{node.node_id}] {_shortened(node.name, _NAME_CHARS)} ({node.type})"


def _shortened(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + ELLIPSIS


def score_text(score: float) -> str:
    """A score rounded for display."""
    return f"{score:.{_SCORE_DIGITS}f}"


def edge_arrow(relation: str, *, outgoing: bool, incoming: bool = False) -> str:
    """`-[writes]->` anchor -> neighbour, `<-[cites]-` neighbour -> anchor, `<-[cites]->` both.

    Args:
        relation: The relation name.
        outgoing: An edge anchor -> neighbour exists.
        incoming: An edge neighbour -> anchor exists (with `outgoing=False`, the only one).
    """
    if outgoing and incoming:
        return f"<-[{relation}]->"
    return f"-[{relation}]->" if outgoing else f"<-[{relation}]-"


def links_text(links: Sequence[EdgeLink]) -> str:
    """`-[writes]->, <-[cites]->`: every link of one neighbour, in the order given."""
    return ", ".join(
        edge_arrow(link.relation, outgoing=link.outgoing, incoming=link.incoming) for link in links
    )


def filters_text(node_types: Sequence[str] = (), edge_types: Sequence[str] = ()) -> str:
    """`node_types: paper; edge_types: cites` (empty when no filter is set)."""
    parts = []
    if node_types:
        parts.append("node_types: " + ", ".join(node_types))
    if edge_types:
        parts.append("edge_types: " + ", ".join(edge_types))
    return "; ".join(parts)


def counts_text(counts: Sequence[tuple[str, int]]) -> str:
    """`cites 1,200, writes 142`, as given (callers sort)."""
    return ", ".join(f"{name} {count:,}" for name, count in counts)


def _with_filters(text: str, filters: str) -> str:
    return f"{text} with {filters}" if filters else text


def capped_note(requested: int, cap: int) -> str:
    """The note shown when a call asked for more results than allowed."""
    return f"note: k={requested:,} is above the maximum; showing at most {cap}."


def page_size(requested: int, cap: int, notes: Sequence[str]) -> tuple[int, list[str]]:
    """The k a call gets (``requested`` capped at ``cap``) and its notes, the cap's first."""
    k = min(requested, cap)
    return k, [*([capped_note(requested, k)] if requested > k else []), *notes]


def ignored_note(parameter: str, reason: str) -> str:
    """The note shown when a parameter is switched off in this run and was ignored."""
    return f"note: {reason} in this run; {parameter} ignored."


def search_text(
    query: str,
    hits: Sequence[SearchHit],
    *,
    k: int,
    max_k: int,
    filters: str = "",
    notes: Sequence[str] = (),
) -> str:
    """The observation of a global search.

    Args:
        query: The query as the model wrote it.
        hits: Results, best first.
        k: The number of results asked for (after capping).
        max_k: The largest k allowed.
        filters: Output of :func:`filters_text`.
        notes: Extra lines (capped k, ignored parameters).
    """
    if not hits:
        lines = [_with_filters(f"no results for {_quoted(query)}", filters) + "."]
        advice = "Try other words (names, synonyms, key terms of the question) or fewer words"
        lines.append(advice + (", or drop the node_types filter." if filters else "."))
        return "\n".join([*lines, *notes])
    noun = "result" if len(hits) == 1 else "results"
    lines = [_with_filters(f"{len(hits)} {noun} for {_quoted(query)}", filters) + ":"]
    for hit in hits:
        line = f"{node_label(hit.node)} score {score_text(hit.score)}"
        lines.append(f"{line} | {hit.snippet}" if hit.snippet else line)
    if len(hits) == k and k < max_k:
        lines.append(f"more may match: raise k (now {k}, max {max_k}) or refine the query.")
    return "\n".join([*lines, *notes])


NAMES_HEADER = "names in the query (nodes the query names, best first):"
"""The header of `search`'s block of linked names (tools/mentions.py), after the hits."""
USAGE_TEXT = "words in {texts} texts, {near} near it"
"""How a mention's words are used in the graph's text (tools/listing_parse.py reads it)."""


@dataclass(frozen=True)
class NamedNode:
    """A node the query names: the query's words that name it and their BM25 for it.

    `usage` (the first node of a mention only, when more than 20 documents hold its words): how
    many node documents hold the words, and how many of those are this node or its
    neighbours (tools/mentions.py, `Mention.loose`).
    """

    words: str
    node: NodeView
    score: float
    usage: tuple[int, int] | None = None


def names_text(named: Sequence[NamedNode]) -> str:
    """The "names in the query" block: `"words": [id] name (type) score S`, one per node.

    A mention's first row adds its usage: ` | words in T texts, N near it`.
    """
    lines = [NAMES_HEADER]
    for row in named:
        words = _shortened(row.words, _QUERY_CHARS).replace('"', "'")
        line = f'"{words}": {node_label(row.node)} score {score_text(row.score)}'
        if row.usage is not None:
            texts, near = row.usage
            line += f" | {USAGE_TEXT.format(texts=texts, near=near)}"
        lines.append(line)
    return "\n".join(lines)


def empty_query_text(query: str) -> str:
    """The observation of a search whose query has no indexed word."""
    if not query.strip():
        return "empty query: give keywords to search for, e.g. a name or a phrase of the question."
    return (
        f"no indexed word in {_quoted(query)}: use words that may appear in node names or texts, "
        "e.g. a name or a phrase from the question."
    )


def neighbors_text(
    anchor: NodeView,
    rows: Sequence[NeighborRow],
    *,
    total: int,
    query: str | None = None,
    query_matches: int = 0,
    filters: str = "",
    breakdown: Sequence[tuple[str, int]] = (),
    notes: Sequence[str] = (),
) -> str:
    """The observation of a non-empty neighbourhood listing.

    Args:
        anchor: The node whose neighbours are listed.
        rows: The shown neighbours (one per node), in order.
        total: How many distinct neighbour nodes matched the filters.
        query: The ranking query, when one was given.
        query_matches: How many of `total` matched a query word (0: the rows are unranked);
            the matching rows come first, rows after them scored 0.
        filters: Output of :func:`filters_text`.
        breakdown: (relation, neighbours linked by it) over all `total`; shown when the list
            is cut (a node linked by two relations counts under both).
        notes: Extra lines (capped k, ignored parameters).
    """
    header = _with_filters(f"neighbours of {node_label(anchor)}", filters)
    if query is not None and query_matches:
        header += f", ranked by {_quoted(query)}"
    lines = [header + ":"]
    for row in rows:
        line = f"{links_text(row.links)} {node_label(row.node)}"
        if row.score is not None:
            line += f" score {score_text(row.score)}"
        lines.append(f"{line} | {row.snippet}" if row.snippet else line)
    if query is not None and query_matches:
        summary = f"{query_matches:,} of {total:,} match the query"
        if len(rows) > query_matches:
            summary += (
                f"; the other {len(rows) - query_matches:,} shown share no word with it"
                " (listed by edge type and connectedness)"
            )
        summary += "."
        lines.append(summary)
    elif query is not None:
        lines.append(
            f"no neighbour matches {_quoted(query)}; listed by edge type and connectedness."
        )
    if len(rows) < total:
        footer = f"showing {len(rows):,} of {total:,}"
        if breakdown:
            footer += f" (by edge type: {counts_text(breakdown)})"
        lines.append(footer + "; refine with query or filters.")
    return "\n".join([*lines, *notes])


def no_neighbors_text(
    anchor: NodeView,
    *,
    filters: str = "",
    degree: int = 0,
    edge_counts: Sequence[tuple[str, int]] = (),
    type_counts: Sequence[tuple[str, int]] = (),
    notes: Sequence[str] = (),
) -> str:
    """The observation of an empty neighbourhood: says why and what to try next.

    Args:
        anchor: The node asked about.
        filters: The filters that removed every neighbour ("" when the node has none at all).
        degree: The anchor's unfiltered count of distinct neighbour nodes.
        edge_counts: (relation, neighbours linked by it) of the unfiltered neighbourhood.
        type_counts: (node type, neighbours of it) of the unfiltered neighbourhood.
        notes: Extra lines.
    """
    if degree == 0:
        lines = [f"{node_label(anchor)} has no neighbours. Use search to find other nodes."]
    else:
        lines = [
            f"no neighbours of {node_label(anchor)} match {filters}.",
            f"its {degree:,} {'neighbour has' if degree == 1 else 'neighbours have'} edge types: "
            f"{counts_text(edge_counts)}; "
            f"node types: {counts_text(type_counts)}. Drop or change the filters.",
        ]
    return "\n".join([*lines, *notes])


def node_text(node: NodeView, groups: Sequence[EdgeGroup]) -> str:
    """The observation of `node`: the node, its whole text, its neighbours by edge type.

    Args:
        node: The node, with its full text.
        groups: Its neighbourhood counted by (relation, direction, neighbour type), in order.
    """
    lines = [node_label(node), node.text.strip() or "(no text)"]
    total = sum(group.count for group in groups)
    if not total:
        lines.append("no neighbours. Use search to find other nodes.")
        return "\n".join(lines)
    lines.append(f"{total:,} {'neighbour' if total == 1 else 'neighbours'} by edge type:")
    for group in groups:
        arrow = edge_arrow(group.relation, outgoing=group.outgoing)
        lines.append(f"{arrow} {group.node_type}: {group.count:,}")
    lines.append("list them with neighbors, filtered by edge_types and node_types.")
    return "\n".join(lines)


def select_text(
    accepted: Sequence[NodeView],
    *,
    duplicates: Sequence[str],
    size: int,
    reasons: dict[str, str] | None = None,
) -> str:
    """The observation of `select`: what was added, what was already there, the list size."""
    lines = []
    if accepted:
        lines.append(f"selected {len(accepted)}:")
        for node in accepted:
            reason = (reasons or {}).get(node.node_id)
            lines.append(f"{node_label(node)} | {reason}" if reason else node_label(node))
    else:
        lines.append("no new ids selected.")
    if duplicates:
        lines.append("already in the answer list (ignored): " + ", ".join(duplicates) + ".")
    lines.append(f"answer list: {size} {'id' if size == 1 else 'ids'}.")
    return "\n".join(lines)


def finish_text(size: int) -> str:
    """The observation of `finish`."""
    return f"finished with {size} {'answer' if size == 1 else 'answers'}."


def _quoted(query: str) -> str:
    return '"' + _shortened(query, _QUERY_CHARS) + '"'
