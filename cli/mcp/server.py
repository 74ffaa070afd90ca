"""The MCP server behind `ark mcp`: ARK's read-only tools and graph schemas for any MCP client.

Tools are the snapshot Toolset's own: names, descriptions and input schemas are
`Toolset.schemas()` verbatim, and a call returns the observation text the agent would see (a bad
call is an MCP tool error whose text is the agent's recoverable message). The agent-state tools
(`select`, `finish`) are left out, so nothing a client calls can change anything. With several
snapshots, each tool name is prefixed with its snapshot's label (`academic__search`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import mcp.types as types
from mcp.server import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from cli.mcp.http_app import HttpSecurity, http_app
from tools.errors import UnknownToolError
from tools.observation import Observation
from tools.schemas import AGENT_STATE_TOOLS
from tools.toolset import Toolset

logger = logging.getLogger(__name__)

NAMESPACE_SEPARATOR = "__"
SCHEMA_MIME_TYPE = "application/json"
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource URI
_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


@dataclass(frozen=True)
class ServedSnapshot:
    """One snapshot offered by the server: its label (the tool-name prefix) and its tools."""

    label: str
    toolset: Toolset


@dataclass(frozen=True)
class _Route:
    served: ServedSnapshot
    tool: str


class ArkMcpCatalog:
    """What the server offers (tools and schema resources) and how a call reaches a Toolset.

    Args:
        served: The snapshots, in the order given on the command line; labels must be unique.
            With one snapshot the tools keep their plain names; with several each name is
            `LABEL__TOOL` and each description ends with the snapshot it reads.
    """

    def __init__(self, served: Sequence[ServedSnapshot]) -> None:
        labels = [item.label for item in served]
        if not labels or len(set(labels)) != len(labels):
            raise ValueError(f"snapshot labels must be unique and non-empty, got {labels}")
        self.served = list(served)
        self._routes: dict[str, _Route] = {}
        self._tools: list[types.Tool] = []
        for item in self.served:
            for schema in item.toolset.schemas():
                self._add_tool(item, schema["function"], namespaced=len(self.served) > 1)

    def _add_tool(
        self, item: ServedSnapshot, function: Mapping[str, Any], *, namespaced: bool
    ) -> None:
        tool = function["name"]
        if tool in AGENT_STATE_TOOLS:
            return
        name = f"{item.label}{NAMESPACE_SEPARATOR}{tool}" if namespaced else tool
        description = function["description"]
        if namespaced:
            manifest = item.toolset.snapshot.manifest
            description += (
                f"\n\nGraph: {item.label} ({manifest.name}, {manifest.num_nodes:,} nodes); "
                f"its schema is the resource {schema_uri(item.label)}."
            )
        self._routes[name] = _Route(item, tool)
        self._tools.append(
            types.Tool(
                name=name,
                description=description,
                input_schema=function["parameters"],
                annotations=_READ_ONLY,
            )
        )

    @property
    def tools(self) -> list[types.Tool]:
        """The MCP tool list (copies)."""
        return [tool.model_copy(deep=True) for tool in self._tools]

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Observation:
        """Run one call; an unknown tool, like any bad call, comes back as an error observation."""
        route = self._routes.get(name)
        if route is None:
            return Observation.from_error(UnknownToolError(name, list(self._routes)))
        return route.served.toolset.call(route.tool, arguments)

    def resources(self) -> list[types.Resource]:
        """One schema resource per snapshot."""
        return [
            types.Resource(
                uri=schema_uri(item.label),
                name=f"{item.label}-schema",
                title=f"Graph schema of {item.label}",
                description="Node types with counts, relation signatures (relation, source "
                "type, target type, count) and the node types that can be answers.",
                mime_type=SCHEMA_MIME_TYPE,
            )
            for item in self.served
        ]

    def read_schema(self, uri: str) -> str:
        """The JSON text of the schema resource at `uri`.

        Raises:
            MCPError: No snapshot has that URI (the message lists the valid ones).
        """
        for item in self.served:
            if schema_uri(item.label) == uri:
                return json.dumps(self._schema(item), indent=2, ensure_ascii=False)
        valid = ", ".join(schema_uri(item.label) for item in self.served)
        raise MCPError(RESOURCE_NOT_FOUND, f"unknown resource {uri!r}; valid: {valid}")

    def _schema(self, item: ServedSnapshot) -> dict[str, Any]:
        tools = [name for name, route in self._routes.items() if route.served is item]
        summary = item.toolset.snapshot.manifest.schema_summary()
        return {"snapshot": item.label, **summary, "tools": tools}

    def instructions(self) -> str:
        """The server's instructions: what the graphs are and how to explore them."""
        graphs = "; ".join(
            f"{item.label} ({item.toolset.snapshot.manifest.num_nodes:,} nodes, schema at "
            f"{schema_uri(item.label)})"
            for item in self.served
        )
        return (
            f"Read-only tools over ARK knowledge-graph snapshots: {graphs}. Read a schema "
            "resource for node types and relations, then use search to find starting nodes, "
            "neighbors to follow edges, and node to read one node in full. Node ids are shown "
            "in brackets: pass them without the brackets."
        )


def schema_uri(label: str) -> str:
    """The URI of a snapshot's schema resource."""
    return f"ark://{label}/schema"


def build_server(catalog: ArkMcpCatalog) -> Server[Any]:
    """A low-level MCP server whose handlers read `catalog` (and nothing else)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=catalog.tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            observation = catalog.call(params.name, params.arguments)
        except Exception as error:  # one failed call must not end the server for every client
            logger.exception("tool call %s failed", params.name)
            text = (
                f"internal error in {params.name}: {type(error).__name__}: {error}. This call "
                "failed; the server keeps serving (if it repeats, run `ark graph verify` on "
                "the snapshot)."
            )
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        if observation.error is not None:
            logger.info("bad call to %s: %s", params.name, observation.error.message)
        return types.CallToolResult(
            content=[types.TextContent(text=observation.text)],
            is_error=observation.error is not None,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=catalog.resources())

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        text = catalog.read_schema(str(params.uri))
        contents = types.TextResourceContents(uri=params.uri, mime_type=SCHEMA_MIME_TYPE, text=text)
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "ark",
        version=_version(),
        instructions=catalog.instructions(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def _version() -> str:
    try:
        return metadata.version("ark-kg")
    except metadata.PackageNotFoundError:
        return "0"


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin/stdout until it disconnects."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server[Any], *, host: str, port: int, security: HttpSecurity) -> None:
    """Serve Streamable HTTP at http://HOST:PORT/mcp until interrupted, under `security`."""
    import uvicorn

    config = uvicorn.Config(http_app(server, security), host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
