"""Build a snapshot from a networkx graph, and export a snapshot (or a sub-graph) to networkx."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphError
from graphs.layout import NODES_FILE
from graphs.snapshot import Snapshot

MAX_EXPORT_EDGES = 5_000_000


def snapshot_from_networkx(
    graph: nx.Graph,
    out: Path,
    *,
    name: str = "networkx",
    type_attr: str = "type",
    name_attr: str = "name",
    text_attr: str = "text",
    relation_attr: str = "relation",
    default_type: str | None = None,
    default_relation: str | None = None,
    candidate_types: Sequence[str] = (),
    options: BuildOptions | None = None,
) -> Path:
    """Build a snapshot at `out` from a networkx graph.

    Node keys become external ids via `str()`. Node attributes other than type, name and text
    become extra columns (values as strings). A missing attribute is an empty value, so the
    usual validation applies (a node without a type is invalid unless `default_type` is set;
    a missing name falls back to the node id, and a node without text is invalid unless
    `options.allow_empty_text`, which uses its name as text). Directed graphs keep their edge
    directions. An undirected graph stores each edge once, directed as networkx iterates it
    (u -> v); neighbour lookups see it from both ends anyway, with direction +1 at u and -1 at
    v. Parallel edges of a multigraph with the same relation are duplicates: collapsed into one
    and counted, like self-loops (kept), unless `options.strict` makes both invalid.

    Raises:
        GraphImportError: invalid nodes or edges (see build_snapshot).
    """
    reserved = {type_attr, name_attr, text_attr}
    extra = sorted({key for _, data in graph.nodes(data=True) for key in data} - reserved)
    rows: dict[str, list[str | None]] = {"id": [], "type": [], "name": [], "text": []}
    rows.update(
        {f"attr_{key}" if key in ("id", "type", "name", "text") else key: [] for key in extra}
    )
    extra_columns = list(rows)[4:]
    for node, data in graph.nodes(data=True):
        rows["id"].append(str(node))
        rows["type"].append(_text(data.get(type_attr, default_type)))
        rows["name"].append(_text(data.get(name_attr, node)))
        rows["text"].append(_text(data.get(text_attr)))
        for key, column in zip(extra, extra_columns, strict=True):
            rows[column].append(None if key not in data else str(data[key]))
    edges: dict[str, list[str]] = {"src": [], "dst": [], "relation": []}
    for source, target, data in graph.edges(data=True):
        edges["src"].append(str(source))
        edges["dst"].append(str(target))
        edges["relation"].append(_text(data.get(relation_attr, default_relation)))
    return build_snapshot(
        pa.table({key: pa.array(values, pa.string()) for key, values in rows.items()}),
        pa.table({key: pa.array(values, pa.string()) for key, values in edges.items()}),
        out,
        name=name,
        candidate_types=candidate_types,
        sources=[f"networkx {type(graph).__name__}"],
        options=options,
        nodes_file="networkx nodes",
        edges_file="networkx edges",
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def to_networkx(
    snapshot: Snapshot,
    nodes: Sequence[str] | None = None,
    *,
    hops: int = 1,
    max_edges: int = MAX_EXPORT_EDGES,
) -> nx.MultiDiGraph:
    """Export the snapshot, or the sub-graph within `hops` of `nodes`, as a MultiDiGraph.

    Nodes are keyed by external id with attributes type, name and text, plus the snapshot's
    extra columns (those the node has a value for); edges carry their relation in the
    `relation` attribute. A sub-graph holds every edge among its nodes.

    Args:
        snapshot: An open snapshot.
        nodes: External ids of the seed nodes; None exports the whole graph.
        hops: How many hops around the seeds to include.
        max_edges: Refuse larger exports (networkx needs ~300-500 bytes per edge).

    Raises:
        UnknownNodeError: a seed id is not in the snapshot.
        GraphError: the export would exceed `max_edges`.
    """
    if nodes is None:
        if snapshot.num_edges > max_edges:
            raise GraphError(
                f"the snapshot has {snapshot.num_edges} edges, more than max_edges="
                f"{max_edges}; export a sub-graph around some nodes instead"
            )
        members = np.arange(snapshot.num_nodes, dtype=np.int64)
    else:
        members = _around(snapshot, [snapshot.internal_id(node) for node in nodes], hops)
    inside = np.zeros(snapshot.num_nodes, dtype=bool)
    inside[members] = True
    graph = nx.MultiDiGraph(name=snapshot.manifest.name)
    extras = _extra_attributes(snapshot, members)
    for position, node in enumerate(members.tolist()):
        key = snapshot.external_id(node)
        graph.add_node(
            key, type=snapshot.type_name(node), name=snapshot.name(node), text=snapshot.text(node)
        )
        graph.nodes[key].update(
            (column, values[position])
            for column, values in extras.items()
            if values[position] is not None
        )
    count = 0
    for node in members.tolist():
        around = snapshot.neighbors(node)
        outgoing = (around.directions == 1) & inside[around.nodes]
        source = snapshot.external_id(node)
        for target, relation in zip(
            around.nodes[outgoing].tolist(), around.relations[outgoing].tolist(), strict=True
        ):
            count += 1
            if count > max_edges:
                raise GraphError(
                    f"export exceeds {max_edges} edges; pass seed nodes (and fewer "
                    "hops) or raise max_edges"
                )
            graph.add_edge(
                source, snapshot.external_id(target), relation=snapshot.relation_names[relation]
            )
    return graph


def _extra_attributes(snapshot: Snapshot, members: np.ndarray) -> dict[str, list[Any]]:
    """The extra columns of nodes.parquet at the internal ids `members`, column by column.

    Only the row groups holding a member are read, and only the extra columns.
    """
    columns = list(snapshot.manifest.extra_columns)
    if not columns or not len(members):
        return {}
    parquet = pq.ParquetFile(snapshot.path / NODES_FILE)
    sizes = [parquet.metadata.row_group(i).num_rows for i in range(parquet.num_row_groups)]
    starts = np.concatenate(([0], np.cumsum(sizes)))
    groups = np.searchsorted(starts, members, side="right") - 1
    wanted = np.unique(groups)
    table = parquet.read_row_groups(wanted.tolist(), columns=columns)
    # Row r of group g lies at r - starts[g] + (rows of the wanted groups read before g).
    read_before = np.concatenate(([0], np.cumsum(np.diff(starts)[wanted])))[:-1]
    base = np.zeros(len(sizes), dtype=np.int64)
    base[wanted] = read_before
    rows = members - starts[groups] + base[groups]
    picked = table.take(pa.array(rows))
    return {column: picked.column(column).to_pylist() for column in columns}


def _around(snapshot: Snapshot, seeds: list[int], hops: int) -> np.ndarray:
    members = np.unique(np.asarray(seeds, dtype=np.int64))
    frontier = members
    for _ in range(hops):
        if not len(frontier):
            break
        reached = [snapshot.neighbors(int(node)).nodes for node in frontier.tolist()]
        found = np.unique(np.concatenate(reached)) if reached else members[:0]
        frontier = np.setdiff1d(found, members, assume_unique=True)
        members = np.union1d(members, frontier)
    return members
