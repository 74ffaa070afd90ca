"""Reading a plan from JSON and checking its type and relation names against a snapshot."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from tools.errors import describe_valid
from tools.lenient_json import loads_lenient
from tools.plans.errors import PlanError
from tools.plans.model import GraphPlan


def parse_plan(text: str) -> GraphPlan:
    """The plan in a model's reply: the first JSON object of `text`, validated.

    Raises:
        PlanError: no JSON object, or one that is not a well-formed plan (every problem named).
    """
    start = text.find("{")
    if start < 0:
        raise PlanError(
            "the reply holds no JSON object; answer with one plan object "
            '{"anchors": [...], "hops": [...], "target": {...}, "risk_level": ...}'
        )
    try:
        raw = loads_lenient(text[start : text.rfind("}") + 1 or len(text)]).value
    except (ValueError, RecursionError) as error:
        raise PlanError(f"the plan is not valid JSON ({error}); write one JSON object") from error
    return plan_from_json(raw)


def plan_from_json(raw: object) -> GraphPlan:
    """Validate a decoded JSON value as a plan.

    Raises:
        PlanError: naming each slot that is missing, unknown or of the wrong type.
    """
    try:
        return GraphPlan.model_validate(raw)
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'plan'}: {e['msg']}" for e in error.errors()
        ]
        raise PlanError("invalid plan: " + "; ".join(problems)) from error


def check_plan(plan: GraphPlan, node_types: Sequence[str], relations: Sequence[str]) -> GraphPlan:
    """The plan, if every type and relation it names exists in the snapshot.

    Raises:
        PlanError: naming each unknown label or relation, with the valid names.
    """
    problems = []
    labels = [(f"anchor {a.var} label", a.label) for a in plan.anchors]
    labels += [(f"hop {i} to_label", h.to_label) for i, h in enumerate(plan.hops)]
    labels += [("target labels", label) for label in plan.target.labels]
    for where, label in labels:
        if label is not None and label not in node_types:
            problems.append(
                f"{where} {label!r} is not a node type ({describe_valid(label, node_types)})"
            )
    for index, hop in enumerate(plan.hops):
        if hop.rel is not None and hop.rel not in relations:
            valid = describe_valid(hop.rel, relations)
            problems.append(f"hop {index} rel {hop.rel!r} is not a relation ({valid})")
    if problems:
        raise PlanError("plan does not fit the graph: " + "; ".join(problems))
    return plan
