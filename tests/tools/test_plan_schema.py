"""The plan's JSON schema for a snapshot: GraphPlan's shape, the snapshot's names as enums."""

from __future__ import annotations

import jsonschema
import pytest

from tools.plans.plan_schema import MAX_ENUM, plan_json_schema
from tools.schemas import GraphPlan

TYPES = ["author", "paper"]
RELATIONS = ["writes", "cites"]


def _plan(label: str = "author", rel: str = "writes") -> dict[str, object]:
    plan = GraphPlan.model_validate(
        {
            "anchors": [{"var": "A1", "text": "Ada Lovelace", "label": label}],
            "hops": [{"from": "A1", "rel": rel, "to_var": "T", "to_label": "paper"}],
            "target": {"labels": ["paper"], "relevance_text": "graphs"},
        }
    )
    return plan.model_dump(by_alias=True)


def test_every_plan_graphplan_writes_fits_the_schema() -> None:
    jsonschema.validate(_plan(), plan_json_schema(TYPES, RELATIONS))
    text_plan = GraphPlan.model_validate(
        {"anchors": [{"var": "T", "text": "anything", "match_mode": "doc"}]}
    ).model_dump(by_alias=True)
    jsonschema.validate(text_plan, plan_json_schema(TYPES, RELATIONS))


@pytest.mark.parametrize(("label", "rel"), [("venue", "writes"), ("author", "write")])
def test_a_label_or_relation_the_snapshot_lacks_does_not_fit(label: str, rel: str) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_plan(label, rel), plan_json_schema(TYPES, RELATIONS))


def test_an_extra_slot_does_not_fit_and_strings_are_bounded() -> None:
    schema = plan_json_schema(TYPES, RELATIONS)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**_plan(), "notes": "x"}, schema)
    anchor = schema["properties"]["anchors"]["items"]["properties"]
    assert anchor["text"]["maxLength"] and schema["properties"]["hops"]["maxItems"]


def test_too_many_relations_to_list_are_asked_as_bounded_strings() -> None:
    many = [f"r{i}" for i in range(MAX_ENUM + 1)]
    rel = plan_json_schema(TYPES, many)["properties"]["hops"]["items"]["properties"]["rel"]
    assert "enum" not in rel and rel["maxLength"]
