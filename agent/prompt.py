"""Rendering the agent's system prompt from prompts/ with the snapshot's schema injected."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prompts.loader import prompt_template

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

SYSTEM_PROMPT_FILE = "agent_system.md.j2"
BRIEF_SYSTEM_PROMPT_FILE = "agent_system_brief.md.j2"


def render_system_prompt(
    snapshot: Snapshot,
    tools: list[dict[str, Any]],
    *,
    max_steps: int,
    template_name: str = SYSTEM_PROMPT_FILE,
) -> str:
    """Render the system prompt for one snapshot and toolset.

    The "how to work" advice follows the toolset: it names `neighbors`, its filters and its
    query only when the schemas offer them (an ablated run is not told to use what is off).

    Args:
        snapshot: The graph; its node types, relation signatures and candidate types are shown.
        tools: The OpenAI tool schemas offered to the model (their descriptions are listed).
        max_steps: The step budget the model is told about.
        template_name: A template in prompts/ (rendered with StrictUndefined).

    Returns:
        The system message text.
    """
    manifest = snapshot.manifest
    functions = {tool["function"]["name"]: tool["function"] for tool in tools}
    neighbor_parameters = _parameters(functions.get("neighbors"))
    template = prompt_template(template_name)
    return template.render(
        graph_name=manifest.name,
        num_nodes=f"{manifest.num_nodes:,}",
        num_edges=f"{manifest.num_edges:,}",
        node_types=list(manifest.node_types.items()),
        signatures=manifest.signatures,
        candidate_types=manifest.candidate_types,
        tools=list(functions.values()),
        neighbors="neighbors" in functions,
        neighbor_query="query" in neighbor_parameters,
        type_filters="node_types" in neighbor_parameters | _parameters(functions.get("search")),
        max_steps=max_steps,
    ).strip()


def _parameters(function: dict[str, Any] | None) -> set[str]:
    """Names of the parameters a tool schema offers (empty when the tool is not offered)."""
    return set(((function or {}).get("parameters") or {}).get("properties") or {})
