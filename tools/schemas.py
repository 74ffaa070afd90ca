"""Tool arguments declared once (pydantic models) and the OpenAI `tools=` schemas made from them."""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo

from tools.config import ToolConfig

MAX_QUERY_CHARS = 1_000


_LIST_ITEMS = {"node_types": "type names", "edge_types": "relation names", "node_ids": "node ids"}


def _name_list(value: object, info: ValidationInfo) -> object:
    # A lone string is an error, not a one-element list: the message shows the list form.
    if isinstance(value, str):
        items = _LIST_ITEMS.get(info.field_name or "", "names")
        raise ValueError(f"{info.field_name} must be a list of {items}, e.g. {json.dumps([value])}")
    return value


def _text(value: object, info: ValidationInfo) -> object:
    # coerce_numbers_to_str is for ids; a query of 5 is a wrong type, not the text "5".
    if value is not None and not isinstance(value, str):
        if isinstance(value, int | float):
            example = json.dumps(str(value))
        elif isinstance(value, list) and value and all(isinstance(word, str) for word in value):
            example = json.dumps(" ".join(value))
        else:
            example = '"some keywords"'
        raise ValueError(f"{info.field_name} must be a string of keywords, e.g. {example}")
    return value


def _not_bool(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("k must be a whole number such as 10, not true/false")
    return value


NameList = Annotated[list[str], BeforeValidator(_name_list)]
Text = Annotated[str, BeforeValidator(_text)]
Count = Annotated[int, Field(ge=1), BeforeValidator(_not_bool)]


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown fields are rejected, numbers accepted as ids."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, frozen=True)


class SearchArgs(ToolArgs):
    """Keyword search over every node of the graph (BM25 over names and texts).

    Use it to find starting points: the entities named in the question, or nodes whose text
    matches what the question describes. Returns the top k nodes, best first, one per line:
    `[id] name (type) score S | snippet`.
    """

    query: Text = Field(
        max_length=MAX_QUERY_CHARS,
        description="Keywords to match against node names and texts, e.g. a name or the key "
        "terms of the question. Plain words; no query syntax.",
    )
    k: Count | None = Field(
        default=None,
        description="How many results to return (default {search_k}, max {max_k}).",
    )
    node_types: NameList | None = Field(
        default=None, description="Only return nodes of these types (a list of type names)."
    )


class DenseSearchArgs(ToolArgs):
    """Meaning search over every node of the graph (cosine of sentence embeddings).

    Use it when keyword search misses: paraphrases, descriptions, synonyms, a whole sentence
    of the question. It matches meaning rather than exact words. Returns the top k nodes,
    best first, one per line: `[id] name (type) score S | snippet` (S is a cosine, at most 1).
    """

    query: Text = Field(
        max_length=MAX_QUERY_CHARS,
        description="What you look for, in natural language, e.g. a phrase or sentence of the "
        "question.",
    )
    k: Count | None = Field(
        default=None,
        description="How many results to return (default {search_k}, max {max_k}).",
    )
    node_types: NameList | None = Field(
        default=None, description="Only return nodes of these types (a list of type names)."
    )


class NeighborsArgs(ToolArgs):
    """List the nodes linked to one node by an edge, in both directions, one line per node.

    Use it to follow relations from an anchor found by search, e.g. the papers an author wrote
    or the products of a brand. Each line names every edge between the anchor and that node:
    `-[relation]-> [id] name (type)` for an edge from the anchor, `<-[relation]- ...` for an
    edge into it, `<-[relation]-> ...` for edges both ways, several joined by commas. The last
    line says how many neighbours there are in total and how many matched the query.
    """

    node_id: str = Field(description="The id of the anchor node, exactly as shown in brackets.")
    query: Text | None = Field(
        default=None,
        max_length=MAX_QUERY_CHARS,
        description="Rank the neighbours by relevance to these keywords (the same BM25 as "
        "search): those matching come first, the others fill the rest of the list. Without it, "
        "neighbours are listed by edge type, then by how connected they are.",
    )
    node_types: NameList | None = Field(
        default=None, description="Only list neighbours of these node types."
    )
    edge_types: NameList | None = Field(
        default=None, description="Only follow edges of these types (relations)."
    )
    k: Count | None = Field(
        default=None,
        description="How many neighbours to show (default {neighbors_k}, max {max_k}).",
    )


class NodeArgs(ToolArgs):
    """Show one node in full: its name, type, whole text, and neighbours counted by edge type.

    Use it to read a node's complete description, or to see which relations lead from it before
    listing them with neighbors. Returns `[id] name (type)`, the text, then one line per
    (relation, direction, neighbour type): `-[relation]-> type: count` for edges from the node,
    `<-[relation]- type: count` for edges into it.
    """

    node_id: str = Field(description="The id of the node, exactly as shown in brackets.")


class SelectArgs(ToolArgs):
    """Add nodes a tool has shown you to your answer list. Earlier selections rank higher.

    Call it as soon as you find good answers, and again as you find more; select the best
    first. Only ids that a tool listed earlier can be selected. Ids already in the list are
    ignored. Returns what was added and the size of the list.
    """

    node_ids: NameList = Field(
        min_length=1,
        description="Ids of the answer nodes, best first, exactly as a tool showed them in "
        "brackets.",
    )
    reasons: dict[str, str] | None = Field(
        default=None,
        description='Optional short reason per selected id, e.g. {"P12": "written by Ada"}.',
    )


class FinishArgs(ToolArgs):
    """End the search once your answer list is complete. Call it exactly once, last."""

    comment: str | None = Field(default=None, description="Optional short closing remark.")


TOOL_ARGS: Mapping[str, type[ToolArgs]] = MappingProxyType(
    {
        "search": SearchArgs,
        "dense_search": DenseSearchArgs,
        "neighbors": NeighborsArgs,
        "node": NodeArgs,
        "select": SelectArgs,
        "finish": FinishArgs,
    }
)
"""Every tool and its arguments model, in the order the schemas list them."""

AGENT_STATE_TOOLS = frozenset({"select", "finish"})
"""Tools that change an agent's episode (its answer list); every other tool only reads the graph."""


def enabled_tools(config: ToolConfig) -> list[str]:
    """Tools offered under `config`: neighbors unless ablated; node and dense_search opt-in."""
    switches = {
        "neighbors": config.enable_neighbors,
        "node": config.enable_node,
        "dense_search": config.enable_dense_search,
    }
    return [name for name in TOOL_ARGS if switches.get(name, True)]


def disabled_fields(name: str, config: ToolConfig) -> dict[str, str]:
    """Parameters an ablation or the paper's toolset switches off for tool `name`, mapped to why.

    The paper's toolset (``config.toolset == "paper"``) has no ``node_types`` on search and no
    ``k`` on neighbors (its budget is fixed at ``config.neighbors_k``); the reason is shown when
    a model passes one anyway.
    """
    disabled = {}
    if config.toolset == "paper":
        if name == "search":
            disabled["node_types"] = "the paper's search has no type filter"
        if name == "neighbors":
            disabled["k"] = f"the paper's neighbors shows a fixed {config.neighbors_k} neighbours"
    if name in ("search", "dense_search", "neighbors") and not config.type_filters:
        disabled["node_types"] = "type filters are disabled"
        if name == "neighbors":
            disabled["edge_types"] = "type filters are disabled"
    if name == "neighbors" and not config.neighbor_query_ranking:
        disabled["query"] = "query ranking of neighbours is disabled"
    return disabled


def tool_schemas(
    config: ToolConfig,
    *,
    node_types: Sequence[str] = (),
    relations: Sequence[str] = (),
    candidate_types: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """OpenAI `tools=` schemas (also the `apply_chat_template(tools=...)` and SFT `tools` value).

    Args:
        config: Defaults and ablation switches.
        node_types: The snapshot's node type names, injected as enums (or listed in the
            description when there are more than `config.schema_enum_limit`).
        relations: The snapshot's relation names, injected the same way.
        candidate_types: Node types that can be answers (named in select's description).

    Returns:
        One `{"type": "function", "function": {...}}` dict per enabled tool.
    """
    names = {"node_types": list(node_types), "edge_types": list(relations)}
    schemas = []
    for name in enabled_tools(config):
        model = TOOL_ARGS[name]
        parameters = _parameters(model, disabled_fields(name, config), config)
        if config.brief_schemas:
            for spec in parameters["properties"].values():
                del spec["description"]
        for field, valid in names.items():
            if field in parameters["properties"] and valid:
                _inject_names(parameters["properties"][field], valid, config.schema_enum_limit)
        description = _paragraphs(model.__doc__ or "")
        if config.brief_schemas:
            description = description.split("\n\n")[0]
        if name == "select" and candidate_types:
            description += " Answers are nodes of type: " + ", ".join(candidate_types) + "."
        function = {"name": name, "description": description, "parameters": parameters}
        schemas.append({"type": "function", "function": function})
    return schemas


def _parameters(
    model: type[ToolArgs], disabled: Mapping[str, str], config: ToolConfig
) -> dict[str, Any]:
    raw = model.model_json_schema()
    placeholders = {
        "{search_k}": config.search_k,
        "{neighbors_k}": config.neighbors_k,
        "{max_k}": config.max_k,
    }
    properties = {}
    for field, schema in raw["properties"].items():
        if field in disabled:
            continue
        clean = _without_null(schema)
        for placeholder, value in placeholders.items():
            clean["description"] = clean["description"].replace(placeholder, str(value))
        if field == "k":
            clean["maximum"] = config.max_k
        properties[field] = clean
    required = [field for field in raw.get("required", []) if field in properties]
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _without_null(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Drop pydantic's titles, null defaults and `anyOf [..., null]` (optional = not required)."""
    clean = {key: value for key, value in schema.items() if key not in ("title", "default")}
    variants = clean.pop("anyOf", None)
    if variants is not None:
        non_null = [variant for variant in variants if variant.get("type") != "null"]
        if len(non_null) == 1:
            clean.update(non_null[0])
        else:
            clean["anyOf"] = non_null
    return clean


def _inject_names(schema: dict[str, Any], valid: list[str], limit: int) -> None:
    if len(valid) <= limit:
        schema["items"] = {"type": "string", "enum": valid}
        return
    shown = ", ".join(valid[:limit])
    listed = f"Valid names include: {shown} ({len(valid):,} in all)."
    schema["description"] = (
        f"{schema['description']} {listed}" if "description" in schema else listed
    )


def _paragraphs(docstring: str) -> str:
    """A docstring as model-facing text: wrapped lines joined, paragraphs kept."""
    blocks = inspect.cleandoc(docstring).split("\n\n")
    return "\n\n".join(" ".join(block.split()) for block in blocks)


def signature(schema: Mapping[str, Any]) -> str:
    """A tool's call shape for error messages: `search(query: string, k?: integer, ...)`."""
    function = schema["function"]
    parameters = function["parameters"]
    parts = []
    for field, spec in parameters["properties"].items():
        optional = "" if field in parameters["required"] else "?"
        kind = spec.get("type", "value")
        if kind == "array":
            kind = f"list of {spec.get('items', {}).get('type', 'value')}"
        parts.append(f"{field}{optional}: {kind}")
    return f"{function['name']}({', '.join(parts)})"
