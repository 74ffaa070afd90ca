"""`ark serve` routes that read a graph: snapshots and schemas, search, node, neighbors.

Search, node and neighbors call the snapshot's Toolset, the agent's and MCP's tools: the
response carries the tool's observation text as the agent would see it, and the same result
as data (nodes with names and types; for neighbors, the typed edges drawn by the page).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from cli.serve.context import ServeContext
from cli.serve.state import ServedGraph, ServeError
from tools.observation import Observation

SNIPPET_CHARS = 240


class ToolRefusedError(ServeError):
    """A tool call the tool refused (unknown id, type or relation); the message names the valid."""


class NodeCard(BaseModel):
    """One node as the API shows it."""

    id: str
    name: str
    type: str
    snippet: str
    score: float | None = None
    degree: int = 0


class Edge(BaseModel):
    """One typed edge, source to target."""

    src: str
    dst: str
    relation: str


class ToolReply(BaseModel):
    """A tool's result: the observation text and the nodes it shows, in order."""

    text: str
    nodes: list[NodeCard]
    edges: list[Edge] = []


def node_card(served: ServedGraph, node_id: str, score: float | None = None) -> NodeCard:
    """The card of external id `node_id` (which must exist)."""
    snapshot = served.snapshot
    internal = snapshot.internal_id(node_id)
    text = " ".join(snapshot.text(internal).split())
    return NodeCard(
        id=node_id,
        name=snapshot.name(internal),
        type=snapshot.node_type_names[int(snapshot.node_type_codes[internal])],
        snippet=text[:SNIPPET_CHARS],
        score=score,
        degree=int(snapshot.degrees[internal]),
    )


def call_tool(served: ServedGraph, tool: str, arguments: dict[str, Any]) -> ToolReply:
    """Run `tool` on the served snapshot's Toolset and shape its observation.

    Raises:
        ToolRefusedError: the call was bad (the tool's own recoverable message).
    """
    observation: Observation = served.toolset.call(tool, arguments)
    if observation.error is not None:
        raise ToolRefusedError(observation.error.message)
    scores: list[float | None] = list(observation.scores) or [None] * len(observation.node_ids)
    nodes = [
        node_card(served, node_id, score)
        for node_id, score in zip(observation.node_ids, scores, strict=False)
    ]
    return ToolReply(text=observation.text, nodes=nodes)


def edges_around(served: ServedGraph, center: str, shown: list[str]) -> list[Edge]:
    """The typed edges between `center` and each of `shown`, in their direction."""
    snapshot = served.snapshot
    wanted = set(shown)
    around = snapshot.neighbors(snapshot.internal_id(center))
    edges: dict[tuple[str, str, str], Edge] = {}
    for node, relation, direction in zip(
        around.nodes.tolist(), around.relations.tolist(), around.directions.tolist(), strict=True
    ):
        other = snapshot.external_id(node)
        if other not in wanted:
            continue
        name = snapshot.relation_names[relation]
        src, dst = (center, other) if direction > 0 else (other, center)
        edges.setdefault((src, dst, name), Edge(src=src, dst=dst, relation=name))
    return list(edges.values())


def _given(**arguments: Any) -> dict[str, Any]:
    return {name: value for name, value in arguments.items() if value not in (None, [], "")}


def router(ctx: ServeContext) -> APIRouter:
    """The graph-reading routes over `ctx`'s snapshots."""
    api = APIRouter(prefix="/api", tags=["graph"])

    @api.get("/snapshots", summary="The served snapshots and their schemas")
    def snapshots() -> list[dict[str, Any]]:
        return [ctx.graphs.get(label).describe() for label in ctx.graphs.labels()]

    @api.get("/snapshots/{label}", summary="One snapshot's schema")
    def schema(label: str) -> dict[str, Any]:
        return ctx.graphs.get(label).describe()

    @api.get("/snapshots/{label}/search", summary="Keyword search (the agent's search tool)")
    def search(
        label: str,
        q: Annotated[str, Query(min_length=1, max_length=1000, description="Keywords.")],
        k: Annotated[int | None, Query(ge=1, le=100, description="Results wanted.")] = None,
        types: Annotated[list[str] | None, Query(description="Only these node types.")] = None,
    ) -> ToolReply:
        arguments = _given(query=q, k=k, node_types=types)
        return call_tool(ctx.graphs.get(label), "search", arguments)

    @api.get("/snapshots/{label}/node", summary="One node in full (the node tool)")
    def node(
        label: str, id: Annotated[str, Query(min_length=1, description="Node id.")]
    ) -> ToolReply:
        return call_tool(ctx.graphs.get(label), "node", {"node_id": id})

    @api.get("/snapshots/{label}/neighbors", summary="A node's neighbours (the neighbors tool)")
    def neighbors(
        label: str,
        id: Annotated[str, Query(min_length=1, description="The anchor node's id.")],
        query: Annotated[str | None, Query(max_length=1000, description="Rank by.")] = None,
        types: Annotated[list[str] | None, Query(description="Neighbour types.")] = None,
        relations: Annotated[list[str] | None, Query(description="Edge types.")] = None,
    ) -> ToolReply:
        served = ctx.graphs.get(label)
        arguments = _given(node_id=id, query=query, node_types=types, edge_types=relations)
        reply = call_tool(served, "neighbors", arguments)
        reply.nodes = [card for card in reply.nodes if card.id != id]
        reply.edges = edges_around(served, id, [card.id for card in reply.nodes])
        return reply

    return api
