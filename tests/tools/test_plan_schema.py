"""The plan's JSON schema for a snapshot: GraphPlan's shape, the snapshot's names as enums."""

from __future__ import annotations

import jsonschema
import pytest

from tools.plans.model import GraphPlan
from tools.plans.plan_schema import (
    ANY,
    MAX_ENUM,
    is_path_plan,
    path_plan_json_schema,
    plan_from_paths,
    plan_json_schema,
    read_schema_plan,
)
from tools.plans.validate import check_plan

TYPES = ["author", "paper"]
RELATIONS = ["writes", "cites"]


def as_schema(plan: dict) -> dict:
    """A plan's JSON as the schema writes it: null slots as ANY."""
    for anchor in plan["anchors"]:
        anchor["label"] = ANY if anchor["label"] is None else anchor["label"]
    for hop in plan["hops"]:
        for key in ("rel", "to_label", "direction"):
            hop[key] = ANY if hop[key] is None else hop[key]
    return plan


def _plan(label: str = "author", rel: str = "writes") -> dict:
    plan = GraphPlan.model_validate(
        {
            "anchors": [{"var": "A1", "text": "Ada Lovelace", "label": label}],
            "hops": [{"from": "A1", "rel": rel, "to_var": "T", "to_label": "paper"}],
            "target": {"labels": ["paper"], "relevance_text": "graphs"},
        }
    )
    return as_schema(plan.model_dump(by_alias=True))


def test_every_plan_graphplan_writes_fits_the_schema() -> None:
    jsonschema.validate(_plan(), plan_json_schema(TYPES, RELATIONS))
    text_plan = GraphPlan.model_validate(
        {"anchors": [{"var": "T", "text": "anything", "match_mode": "doc"}]}
    ).model_dump(by_alias=True)
    jsonschema.validate(as_schema(text_plan), plan_json_schema(TYPES, RELATIONS))


def test_any_reads_back_as_the_plans_null() -> None:
    written = _plan()
    written["hops"][0]["direction"] = ANY
    written["anchors"][0]["label"] = ANY
    plan = GraphPlan.model_validate(read_schema_plan(written))
    assert plan.hops[0].direction is None and plan.anchors[0].label is None
    assert written["hops"][0]["direction"] == ANY  # the reply itself is left as it was


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


def test_a_path_shaped_reply_becomes_grasps_anchors_and_hops() -> None:
    reply = {
        "anchors": [
            {"text": "Ada", "label": "author", "match_mode": "name",
             "path": [{"rel": "writes", "to_label": "paper", "direction": "out"}]},
            {"text": "graphs", "label": ANY, "match_mode": "doc",
             "path": [{"rel": "cites", "to_label": ANY, "direction": ANY},
                      {"rel": ANY, "to_label": "paper", "direction": "in"}]},
        ],
        "target": {"labels": ["paper"], "relevance_text": ""},
        "risk_level": "normal",
    }  # fmt: skip
    assert is_path_plan(reply) and not is_path_plan(_plan())
    plan = GraphPlan.model_validate(plan_from_paths(reply, "q"))
    hops = [(h.from_var, h.rel, h.to_var, h.to_label, h.direction) for h in plan.hops]
    assert hops == [
        ("A1", "writes", "T", "paper", "out"),
        ("A2", "cites", "X2", None, None),
        ("X2", None, "T", "paper", "in"),
    ]
    assert plan.anchors[1].label is None and plan.anchors[1].match_mode == "doc"
    text = GraphPlan.model_validate(plan_from_paths({**reply, "anchors": []}, "the question"))
    assert text.anchors[0].var == "T" and text.anchors[0].text == "the question"
    assert text.risk_level == "no_trade" and not text.hops


def test_every_path_shaped_instance_is_a_valid_plan() -> None:
    """Whatever a grammar-bound model picks from the enums, the plan is a valid tree."""
    schema = path_plan_json_schema(TYPES, RELATIONS)
    step_choices = [
        {"rel": rel, "to_label": label, "direction": direction}
        for rel in [*RELATIONS, ANY] for label in [*TYPES, ANY] for direction in ("out", ANY)
    ]  # fmt: skip
    for anchors in range(0, 4):
        for length in (1, 2):
            path = step_choices[anchors * 3 : anchors * 3 + length]
            reply = {
                "anchors": [
                    {"text": f"a{i}", "label": TYPES[i % 2], "match_mode": "name", "path": path}
                    for i in range(anchors)
                ],
                "target": {"labels": ["paper"], "relevance_text": ""},
                "risk_level": "weak",
            }
            jsonschema.validate(reply, schema)
            plan = GraphPlan.model_validate(plan_from_paths(reply, "q"))
            check_plan(plan, TYPES, RELATIONS)
    empty = {"anchors": [{"text": "", "label": ANY, "match_mode": "name",
                          "path": step_choices[:1]}],
             "target": {"labels": [], "relevance_text": ""}, "risk_level": "weak"}  # fmt: skip
    with pytest.raises(jsonschema.ValidationError):  # GraphPlan refuses an empty anchor
        jsonschema.validate(empty, schema)
