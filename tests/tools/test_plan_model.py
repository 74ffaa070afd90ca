"""The plan model: every slot validated, structure problems and unknown names named."""

from __future__ import annotations

import pytest

from tools.plans.errors import PlanError
from tools.plans.model import GraphPlan
from tools.plans.validate import check_plan, parse_plan, plan_from_json

GOOD = {
    "anchors": [{"var": "A1", "text": "Acme", "label": "brand", "match_mode": "name"}],
    "hops": [{"from": "A1", "rel": "has_brand", "to_var": "T", "to_label": "product"}],
    "target": {"var": "T", "labels": ["product"], "relevance_text": "quiet"},
    "risk_level": "normal",
}
TYPES = ["brand", "product", "category"]
RELATIONS = ["has_brand", "in_category"]


def with_(**changes: object) -> dict:
    return {**GOOD, **changes}


def test_a_good_plan_round_trips_with_grasps_slot_names() -> None:
    plan = plan_from_json(GOOD)
    dumped = plan.model_dump(by_alias=True)
    assert [hop.pop("direction") for hop in dumped["hops"]] == [None] * len(GOOD["hops"])
    assert dumped == GOOD
    assert plan.variables() == ["A1", "T"]
    assert check_plan(plan, TYPES, RELATIONS) is plan


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({}, "anchors: Field required"),
        (with_(anchors=[]), "at least one anchor"),
        (with_(anchors=[{"var": "A1"}]), "anchors.0.text: Field required"),
        (with_(anchors=[{**GOOD["anchors"][0], "match_mode": "fuzzy"}]), "anchors.0.match_mode"),
        (with_(anchors=[{**GOOD["anchors"][0], "weight": 2}]), "anchors.0.weight: Extra inputs"),
        (with_(hops=[{"rel": "has_brand", "to_var": "T"}]), "hops.0.from: Field required"),
        (with_(target={"labels": "product"}), "target.labels"),
        (with_(risk_level="bold"), "risk_level: Input should be 'no_trade'"),
        (with_(hops=[{"from": "B", "to_var": "T"}]), "hop 0 starts from 'B'"),
        (with_(hops=[]), "anchors A1 are not joined to the target T"),
        (with_(hops=[{"from": "A1", "to_var": "A1"}]), "goes from 'A1' to itself"),
        (
            with_(
                hops=[
                    {"from": "A1", "to_var": "X"},
                    {"from": "X", "to_var": "T"},
                    {"from": "T", "to_var": "A1"},
                ]
            ),
            "closes a cycle",
        ),
        (
            with_(anchors=[GOOD["anchors"][0], {**GOOD["anchors"][0]}]),
            "anchor variables must be unique, repeated: A1",
        ),
        ([GOOD], "Input should be a valid dictionary"),
    ],
)
def test_malformed_plans_are_plan_errors_naming_the_slot(raw: object, message: str) -> None:
    with pytest.raises(PlanError, match="invalid plan") as error:
        plan_from_json(raw)
    assert message in str(error.value)


def test_unknown_labels_and_relations_are_named_with_the_valid_ones() -> None:
    plan = GraphPlan.model_validate(
        with_(
            anchors=[{**GOOD["anchors"][0], "label": "Brand"}],
            hops=[{"from": "A1", "rel": "made_by", "to_var": "T", "to_label": "prodcut"}],
            target={"labels": ["gadget"]},
        )
    )
    with pytest.raises(PlanError) as error:
        check_plan(plan, TYPES, RELATIONS)
    text = str(error.value)
    assert "anchor A1 label 'Brand' is not a node type (did you mean 'brand'?" in text
    assert "hop 0 to_label 'prodcut'" in text and "'product'" in text
    assert "target labels 'gadget'" in text
    assert "hop 0 rel 'made_by' is not a relation" in text and "has_brand" in text


def test_a_null_relation_or_label_means_any() -> None:
    plan = plan_from_json(with_(hops=[{"from": "A1", "to_var": "T"}]))
    assert plan.hops[0].rel is None and plan.hops[0].to_label is None
    assert check_plan(plan, TYPES, RELATIONS) is plan


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I cannot plan this.", "holds no JSON object"),
        ('{"anchors": [}', "not valid JSON"),
        ('Sure! {"anchors": []}', "at least one anchor"),
    ],
)
def test_replies_that_hold_no_plan(reply: str, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        parse_plan(reply)


def test_a_reply_with_prose_around_an_almost_json_plan_parses() -> None:
    reply = (
        'Here is the plan:\n{"anchors": [{"var": "T", "text": "red kettle", "match_mode": "doc"}]'
    )
    plan = parse_plan(reply)  # the missing closing brace is repaired
    assert plan.anchors[0].match_mode == "doc" and plan.hops == []
