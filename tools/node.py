"""The node tool: one node in full (name, type, text) and its neighbours counted by edge type."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tools.format import EdgeGroup, NodeView, node_text
from tools.neighbor_set import open_neighborhood
from tools.observation import Observation
from tools.schemas import NodeArgs
from tools.vocab import resolve_node

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


def run_node(snapshot: Snapshot, args: NodeArgs) -> Observation:
    """Run a validated node call.

    Raises:
        UnknownNodeIdError: The snapshot has no node `args.node_id`.
    """
    node = resolve_node(snapshot, args.node_id)
    view = NodeView(
        node_id=snapshot.external_id(node),
        name=snapshot.name(node),
        type=snapshot.type_name(node),
        text=snapshot.text(node),
    )
    return Observation(text=node_text(view, edge_groups(snapshot, node)), node_ids=[view.node_id])


def node_views(snapshot: Snapshot, nodes: np.ndarray) -> list[NodeView]:
    """What a listing shows of each of `nodes` (id, name, type; no text), read in one batch."""
    return [
        NodeView(node_id, name, type_name)
        for node_id, name, type_name in zip(*snapshot.labels(nodes), strict=True)
    ]


def edge_groups(snapshot: Snapshot, node: int) -> list[EdgeGroup]:
    """The neighbourhood of internal node `node` counted by (relation, direction, node type).

    Ordered like the neighbors tool's default listing: relation name, outgoing before incoming,
    then neighbour type name. Counted in numpy, so a hub of any degree costs one pass.
    """
    hood = open_neighborhood(snapshot.neighbors(node), node)
    if not len(hood.nodes):
        return []
    num_types = max(len(snapshot.node_type_names), 1)
    types = snapshot.node_type_codes[hood.nodes].astype(np.int64)
    incoming = (np.asarray(hood.directions) < 0).astype(np.int64)
    keys = (np.asarray(hood.relations, dtype=np.int64) * 2 + incoming) * num_types + types
    unique, counts = np.unique(keys, return_counts=True)
    groups = []
    for key, count in zip(unique.tolist(), counts.tolist(), strict=True):
        relation, rest = divmod(key, 2 * num_types)
        direction, node_type = divmod(rest, num_types)
        groups.append(
            EdgeGroup(
                relation=snapshot.relation_names[relation],
                outgoing=direction == 0,
                node_type=snapshot.node_type_names[node_type],
                count=count,
            )
        )
    groups.sort(key=lambda group: (group.relation, not group.outgoing, group.node_type))
    return groups
