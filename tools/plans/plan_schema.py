"""The JSON schema of a plan for one snapshot: its types and relations as enums.

What an LLM planner sends as `response_format` (agent/models/structured.py): a server that
enforces schemas (llama.cpp, vLLM, SGLang, Ollama, OpenAI strict) then cannot write a label or
a relation the snapshot does not have, nor leave a slot out. The shape is `GraphPlan`'s
(tools/schemas.py), closed and bounded: every property required (null where the plan allows
"any"), no other property, strings and lists capped so a small model cannot write past its
token budget (an unending string is what leaves unparseable JSON under an enforced schema).
The structure rules a schema cannot say (a tree of hops reaching T) are still checked by
`GraphPlan` and `check_plan` on the reply.

"Any type", "any relation" and "either direction" are the string `ANY` in the schema, not
null: a grammar over a union of a string enum and null is where engines differ (llama-cpp-
python's server wrote neither for a direction), a plain string enum every engine enforces.
`read_schema_plan` turns `ANY` back into the plan's null.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from typing import Any

from tools.json_schema import bounded_text as _text
from tools.json_schema import closed_object as _object
from tools.plans.model import RISK_LEVELS, TARGET_VAR

SCHEMA_NAME = "graph_plan"
ANY = "(any)"
"""The schema's word for the plan's null (any type, any relation, either direction)."""
MAX_ANCHORS = 4
MAX_HOPS = 6
MAX_VAR = 8
MAX_TEXT = 160
MAX_ENUM = 512
"""Labels or relations past this many are asked as plain strings (a grammar over thousands
of alternatives costs more to compile than the plan it constrains); `check_plan` still
rejects an unknown one."""


def plan_json_schema(node_types: Sequence[str], relations: Sequence[str]) -> dict[str, Any]:
    """The closed JSON schema of a plan whose labels and relations are the snapshot's.

    Args:
        node_types: The snapshot's node types.
        relations: The snapshot's relation names.
    """
    label = _choice(node_types, nullable=True, description=f"A node type ({ANY}: any type).")
    anchor = _object(
        {
            "var": _text("Variable name, e.g. A1.", MAX_VAR),
            "text": _text("The anchor's words as the question gives them.", MAX_TEXT, shortest=1),
            "label": label,
            "match_mode": {"type": "string", "enum": ["name", "doc"]},
        }
    )
    hop = _object(
        {
            "from": _text("Variable the hop starts from.", MAX_VAR),
            "rel": _choice(relations, nullable=True, description=f"Relation ({ANY}: any)."),
            "to_var": _text("Variable the hop reaches (a new variable or T).", MAX_VAR),
            "to_label": label,
            "direction": {"type": "string", "enum": ["out", "in", ANY]},
        }
    )
    target = _object(
        {
            "var": {"type": "string", "enum": ["T"]},
            "labels": {
                "type": "array",
                "items": _choice(node_types, nullable=False, description="A node type."),
                "maxItems": max(1, min(len(node_types), MAX_ENUM)),
            },
            "relevance_text": _text("Text constraints the hops cannot express.", MAX_TEXT),
        }
    )
    return _object(
        {
            "anchors": {"type": "array", "items": anchor, "minItems": 1, "maxItems": MAX_ANCHORS},
            "hops": {"type": "array", "items": hop, "maxItems": MAX_HOPS},
            "target": target,
            "risk_level": {"type": "string", "enum": list(RISK_LEVELS)},
        }
    )


def path_plan_json_schema(node_types: Sequence[str], relations: Sequence[str]) -> dict[str, Any]:
    """A plan as one path per anchor: every instance of this schema is a valid plan.

    GRASP's shape (anchors and hops between variables) lets a grammar-bound model write hops
    that never reach T, which no JSON schema can forbid. Here each anchor carries its own walk
    to the answer, one or two typed steps, so the hops `plan_from_paths` builds always form a
    tree joining every anchor to T; with no anchor the question is searched as text.
    """
    label = _choice(node_types, nullable=True, description=f"A node type ({ANY}: any type).")
    step = _object(
        {
            "rel": _choice(relations, nullable=True, description=f"Relation ({ANY}: any)."),
            "to_label": label,
            "direction": {"type": "string", "enum": ["out", "in", ANY]},
        }
    )
    anchor = _object(
        {
            "text": _text("The anchor's words as the question gives them.", MAX_TEXT, shortest=1),
            "label": label,
            "match_mode": {"type": "string", "enum": ["name", "doc"]},
            "path": {"type": "array", "items": step, "minItems": 1, "maxItems": 2},
        }
    )
    full = plan_json_schema(node_types, relations)["properties"]
    target = {k: v for k, v in full["target"]["properties"].items() if k != "var"}
    return _object(
        {
            "anchors": {"type": "array", "items": anchor, "maxItems": MAX_ANCHORS},
            "target": _object(target),  # always T
            "risk_level": full["risk_level"],
        }
    )


def is_path_plan(value: Any) -> bool:
    """Whether a decoded reply is in the path shape (anchors carrying `path`, no `hops`)."""
    if not isinstance(value, dict) or "hops" in value:
        return False
    anchors = value.get("anchors")
    return isinstance(anchors, list) and all(isinstance(a, dict) and "path" in a for a in anchors)


def plan_from_paths(value: dict[str, Any], question: str) -> dict[str, Any]:
    """GRASP's plan JSON from a path-shaped reply (`ANY` read as null).

    Anchor i is variable `Ai`; a one-step path is the hop `Ai -> T`, a two-step one
    `Ai -> Xi -> T`. No anchor: the text plan (the question as one doc anchor bound to T).
    """
    target = dict(value.get("target") or {})
    target["var"] = TARGET_VAR
    plan: dict[str, Any] = {
        "target": target,
        "risk_level": value.get("risk_level", "normal"),
    }
    anchors = [a for a in value.get("anchors") or [] if isinstance(a, dict)]
    if not anchors:
        plan["anchors"] = [
            {"var": TARGET_VAR, "text": question, "label": None, "match_mode": "doc"}
        ]
        plan["hops"] = []
        plan["risk_level"] = "no_trade"
        return plan
    plan["anchors"], plan["hops"] = [], []
    for number, anchor in enumerate(anchors, start=1):
        var = f"A{number}"
        plan["anchors"].append(
            {
                "var": var,
                "text": anchor.get("text", ""),
                "label": _null(anchor.get("label")),
                "match_mode": anchor.get("match_mode", "name"),
            }
        )
        steps = [s for s in anchor.get("path") or [] if isinstance(s, dict)][:2]
        names = [var, *([f"X{number}"] if len(steps) == 2 else []), TARGET_VAR]
        for step, (start, end) in zip(steps, itertools.pairwise(names), strict=False):
            plan["hops"].append(
                {
                    "from": start,
                    "rel": _null(step.get("rel")),
                    "to_var": end,
                    "to_label": _null(step.get("to_label")),
                    "direction": _null(step.get("direction")),
                }
            )
    return plan


def _null(value: Any) -> Any:
    return None if value == ANY else value


def _choice(values: Sequence[str], *, nullable: bool, description: str) -> dict[str, Any]:
    """One of `values` (or `ANY`), as an enum unless there are too many to list."""
    if not values or len(values) > MAX_ENUM:
        return {"type": "string", "description": description, "maxLength": MAX_TEXT}
    options = [*values, ANY] if nullable else list(values)
    return {"type": "string", "enum": options, "description": description}


def read_schema_plan(value: Any) -> Any:
    """A reply under the plan schema as the plan's JSON: each `ANY` slot becomes null."""
    if not isinstance(value, dict):
        return value
    plan = copy.deepcopy(value)
    slots = [(plan.get("anchors"), ("label",)), (plan.get("hops"), _HOP_SLOTS)]
    for items, keys in slots:
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                for key in keys:
                    if item.get(key) == ANY:
                        item[key] = None
    return plan


_HOP_SLOTS = ("rel", "to_label", "direction")
