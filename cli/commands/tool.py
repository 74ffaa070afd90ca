"""`ark search`, `ark neighbors`, `ark node`: one tool call, printed exactly as a model sees it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli.output.safe_text import printable
from tools.config import ToolConfig

if TYPE_CHECKING:
    from tools.observation import Observation

SnapshotArg = Annotated[Path, typer.Argument(help="Snapshot directory.")]
JsonOpt = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print the observation as JSON (text, node_ids, scores, error) instead of its text.",
    ),
]
_DEFAULTS = ToolConfig()
_AGENT_STATE_FIELDS = ("selected", "finished")
SearchKOpt = Annotated[
    int | None,
    typer.Option(
        "-k", help=f"How many results (default {_DEFAULTS.search_k}, at most {_DEFAULTS.max_k})."
    ),
]
NeighborsKOpt = Annotated[
    int | None,
    typer.Option(
        "-k",
        help=f"How many neighbours (default {_DEFAULTS.neighbors_k}, at most {_DEFAULTS.max_k}).",
    ),
]


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `ark` application."""
    app.command("search")(search)
    app.command("neighbors")(neighbors)
    app.command("node")(node)


def search(
    snapshot: SnapshotArg,
    query: Annotated[str, typer.Argument(help="Keywords, as the agent would send them.")],
    k: SearchKOpt = None,
    types: Annotated[
        list[str] | None,
        typer.Option(
            "--node-type",
            "--type",
            help="Only nodes of this type (repeatable); the name `neighbors` uses too "
            "(--type: the old spelling, kept for one release).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Global BM25 search over a snapshot, printed as the agent's observation."""
    arguments: dict[str, Any] = {"query": query, "k": k, "node_types": types or None}
    _run(snapshot, "search", arguments, as_json=as_json)


def neighbors(
    snapshot: SnapshotArg,
    node_id: Annotated[str, typer.Argument(help="External id of the anchor node.")],
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="Rank neighbours by BM25 of this text.")
    ] = None,
    node_types: Annotated[
        list[str] | None,
        typer.Option("--node-type", help="Only neighbours of this node type (repeatable)."),
    ] = None,
    edge_types: Annotated[
        list[str] | None,
        typer.Option("--edge-type", help="Only edges of this relation (repeatable)."),
    ] = None,
    k: NeighborsKOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """One-hop neighbourhood of a node, printed as the agent's observation."""
    arguments: dict[str, Any] = {
        "node_id": node_id,
        "query": query,
        "node_types": node_types or None,
        "edge_types": edge_types or None,
        "k": k,
    }
    _run(snapshot, "neighbors", arguments, as_json=as_json)


def node(
    snapshot: SnapshotArg,
    node_id: Annotated[str, typer.Argument(help="External id of the node.")],
    as_json: JsonOpt = False,
) -> None:
    """A node's whole text and its neighbours counted by edge type (`ark mcp`'s node tool)."""
    _run(snapshot, "node", {"node_id": node_id}, as_json=as_json)


def _run(snapshot_path: Path, tool: str, arguments: dict[str, Any], *, as_json: bool) -> None:
    from graphs.snapshot import Snapshot
    from tools.toolset import Toolset

    try:
        snapshot = Snapshot.open(snapshot_path)
    except OSError as error:  # a file the manifest did not list (e.g. an older snapshot format)
        message = f"error: cannot open snapshot {snapshot_path}: {error}; rebuild it"
        typer.echo(printable(message), err=True)
        raise typer.Exit(code=2) from None
    given = {name: value for name, value in arguments.items() if value is not None}
    observation = Toolset(snapshot, ToolConfig(enable_node=True)).call(tool, given)
    _print(observation, as_json=as_json)
    if observation.error is not None:
        raise typer.Exit(code=2)


def _print(observation: Observation, *, as_json: bool) -> None:
    if as_json:
        # selected/finished are the agent's episode state: meaningless for one standalone call
        shown = {
            name: value
            for name, value in observation.to_dict().items()
            if name not in _AGENT_STATE_FIELDS
        }
        print(json.dumps(shown, indent=2, ensure_ascii=False))
    elif observation.error is not None:
        typer.echo(printable(observation.text), err=True)
    else:
        print(printable(observation.text))
