"""The tool schemas: one source, every parameter described, snapshot names injected, ablations."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.schemas import TOOL_ARGS, signature, tool_schemas
from tools.toolset import Toolset


def _by_name(schemas: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {schema["function"]["name"]: schema["function"] for schema in schemas}


def test_every_tool_and_parameter_is_described(tiny_snapshot: Snapshot) -> None:
    schemas = Toolset(tiny_snapshot).schemas()
    assert [schema["type"] for schema in schemas] == ["function"] * 4
    functions = _by_name(schemas)
    assert list(functions) == ["search", "neighbors", "select", "finish"]
    for name, function in functions.items():
        assert len(function["description"]) > 40, name
        parameters = function["parameters"]
        assert parameters["type"] == "object"
        assert parameters["additionalProperties"] is False
        assert set(parameters["properties"]) == set(TOOL_ARGS[name].model_fields)
        for field, spec in parameters["properties"].items():
            assert spec.get("description", "").strip(), f"{name}.{field} has no description"
            assert "title" not in spec and "anyOf" not in spec and "default" not in spec
    json.dumps(schemas)  # plain JSON, as the OpenAI client and chat templates need


def test_required_fields_and_config_values(tiny_snapshot: Snapshot) -> None:
    config = ToolConfig(search_k=7, neighbors_k=11, max_k=30)
    functions = _by_name(Toolset(tiny_snapshot, config).schemas())
    assert functions["search"]["parameters"]["required"] == ["query"]
    assert functions["neighbors"]["parameters"]["required"] == ["node_id"]
    assert functions["select"]["parameters"]["required"] == ["node_ids"]
    assert functions["finish"]["parameters"]["required"] == []
    search_k = functions["search"]["parameters"]["properties"]["k"]
    assert search_k["description"] == "How many results to return (default 7, max 30)."
    assert (search_k["minimum"], search_k["maximum"]) == (1, 30)
    neighbors_k = functions["neighbors"]["parameters"]["properties"]["k"]["description"]
    assert "default 11, max 30" in neighbors_k
    assert "Answers are nodes of type: paper." in functions["select"]["description"]


def test_snapshot_names_injected_as_enums(tiny_snapshot: Snapshot) -> None:
    functions = _by_name(Toolset(tiny_snapshot).schemas())
    types = ["author", "institution", "paper", "venue"]
    relations = ["cites", "collaborates_with", "member_of", "published_in", "writes"]
    assert sorted(tiny_snapshot.node_type_names) == types
    for tool in ("search", "neighbors"):
        items = functions[tool]["parameters"]["properties"]["node_types"]["items"]
        assert sorted(items["enum"]) == types
    edge_items = functions["neighbors"]["parameters"]["properties"]["edge_types"]["items"]
    assert sorted(edge_items["enum"]) == relations


def test_many_names_go_into_the_description() -> None:
    relations = [f"relation_{i:03d}" for i in range(100)]
    schemas = tool_schemas(ToolConfig(schema_enum_limit=10), node_types=["a"], relations=relations)
    spec = _by_name(schemas)["neighbors"]["parameters"]["properties"]["edge_types"]
    assert "enum" not in spec["items"]
    assert "relation_000, relation_001" in spec["description"]
    assert "(100 in all)" in spec["description"]
    assert "relation_010" not in spec["description"]


@pytest.mark.parametrize(
    ("config", "tools", "missing"),
    [
        (ToolConfig(enable_neighbors=False), ["search", "select", "finish"], {}),
        (ToolConfig(neighbor_query_ranking=False), None, {"neighbors": {"query"}}),
        (
            ToolConfig(type_filters=False),
            None,
            {"search": {"node_types"}, "neighbors": {"node_types", "edge_types"}},
        ),
    ],
)
def test_ablations_shape_the_schemas(
    tiny_snapshot: Snapshot,
    config: ToolConfig,
    tools: list[str] | None,
    missing: dict[str, set[str]],
) -> None:
    full = _by_name(Toolset(tiny_snapshot).schemas())
    ablated = _by_name(Toolset(tiny_snapshot, config).schemas())
    assert list(ablated) == (tools or list(full))
    for name, function in ablated.items():
        removed = set(full[name]["parameters"]["properties"]) - set(
            function["parameters"]["properties"]
        )
        assert removed == missing.get(name, set()), name


def test_signature_lists_parameters(tiny_snapshot: Snapshot) -> None:
    functions = Toolset(tiny_snapshot).schemas()
    assert signature(functions[1]) == (
        "neighbors(node_id: string, query?: string, node_types?: list of string, "
        "edge_types?: list of string, k?: integer)"
    )


def test_schemas_are_copies(tiny_snapshot: Snapshot) -> None:
    toolset = Toolset(tiny_snapshot)
    toolset.schemas()[0]["function"]["name"] = "changed"
    assert toolset.schemas()[0]["function"]["name"] == "search"


def test_config_rejects_inconsistent_defaults() -> None:
    with pytest.raises(ValueError, match="must not exceed max_k"):
        ToolConfig(neighbors_k=80, max_k=50)
    with pytest.raises(ValueError, match="search_k must be >= 1"):
        ToolConfig(search_k=0)


def test_brief_schemas_keep_what_a_call_needs_and_drop_the_advice(
    tiny_snapshot: Snapshot,
) -> None:
    full = _by_name(Toolset(tiny_snapshot).schemas())
    brief = _by_name(Toolset(tiny_snapshot, ToolConfig(brief_schemas=True)).schemas())
    assert list(brief) == list(full)
    answer_types = ", ".join(tiny_snapshot.manifest.candidate_types)
    assert answer_types
    for name, function in brief.items():
        expected = full[name]["description"].split("\n\n")[0]
        if name == "select":  # the answer types stay: they are a fact, not advice
            expected += f" Answers are nodes of type: {answer_types}."
        assert function["description"] == expected
        properties = function["parameters"]["properties"]
        assert set(properties) == set(full[name]["parameters"]["properties"])
        assert function["parameters"]["required"] == full[name]["parameters"]["required"]
        for field, spec in properties.items():
            assert "description" not in spec, f"{name}.{field}"
            expected = dict(full[name]["parameters"]["properties"][field])
            expected.pop("description")
            assert spec == expected  # types, enums and bounds unchanged
    assert len(json.dumps(list(brief.values()))) < len(json.dumps(list(full.values()))) / 2


def test_brief_schemas_still_list_names_beyond_the_enum_limit() -> None:
    relations = [f"relation_{i:03d}" for i in range(100)]
    config = ToolConfig(schema_enum_limit=10, brief_schemas=True)
    spec = _by_name(tool_schemas(config, node_types=["a"], relations=relations))["neighbors"]
    edge_types = spec["parameters"]["properties"]["edge_types"]
    assert edge_types["description"].startswith("Valid names include: relation_000, relation_001")
