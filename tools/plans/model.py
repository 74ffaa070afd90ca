"""The plan model (GRASP stage 1): a question as anchors, typed hops and a target.

A `GraphPlan` is what a planner writes (`ark plan`, the offline planner, a chat model under
tools/plans/plan_schema.py's JSON schema) and the executor runs (tools/plans/execute.py). Its
structure is checked here; its type and relation names against a snapshot by
tools/plans/validate.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

RiskLevel = Literal["no_trade", "weak", "normal", "aggressive"]
RISK_LEVELS: tuple[RiskLevel, ...] = ("no_trade", "weak", "normal", "aggressive")
"""The planner's self-reported trust in its own plan, least to most (GRASP §3.1)."""
TARGET_VAR = "T"


class PlanSlot(BaseModel):
    """Base of the plan's parts: unknown fields are rejected, parts are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class PlanAnchor(PlanSlot):
    """An entity the question names or describes, linked to graph nodes by text."""

    var: str = Field(min_length=1, description="Variable name of this anchor, e.g. A1.")
    text: str = Field(min_length=1, description="The anchor's words as the question gives them.")
    label: str | None = Field(
        default=None, description="Node type the anchor must have (null: any type)."
    )
    match_mode: Literal["name", "doc"] = Field(
        default="name",
        description="name: a short entity name (matched against node names); doc: a "
        "descriptive phrase (matched against whole node documents).",
    )


class PlanHop(PlanSlot):
    """One typed, undirected edge between two variables of the plan."""

    from_var: str = Field(alias="from", description="Variable the hop starts from.")
    rel: str | None = Field(
        default=None, description="Relation to follow (null: any relation; an ARK extension)."
    )
    to_var: str = Field(description="Variable the hop reaches (a new variable or T).")
    to_label: str | None = Field(
        default=None, description="Node type of the reached variable (null: any type)."
    )
    direction: Literal["out", "in"] | None = Field(
        default=None,
        description=(
            "Which way the edge points, when the question says: out = from -> to_var, "
            "in = to_var -> from (null: either; nodes along it rank first, none is dropped)."
        ),
    )


class PlanTarget(PlanSlot):
    """The answer variable: its possible types and the text the hops cannot express."""

    var: str = Field(default=TARGET_VAR, description="The answer variable, T.")
    labels: list[str] = Field(
        default_factory=list, description="Node types an answer may have ([]: any type)."
    )
    relevance_text: str = Field(
        default="",
        description="Residual text constraints on the answers (empty when the hops suffice).",
    )


class GraphPlan(PlanSlot):
    """A question as a graph query (GRASP stage 1): anchors, typed hops, target, risk level.

    Structure is checked here: unique anchor variables, every hop joining a known variable to
    another, the hops forming a tree (no cycle) that reaches the target, the target bound by
    an anchor or a hop. Type and relation names are checked against a snapshot by
    `tools.plans.validate.check_plan`.
    """

    anchors: list[PlanAnchor] = Field(description="Entities the question mentions.")
    hops: list[PlanHop] = Field(
        default_factory=list, description="Graph walks from the anchors toward the target."
    )
    target: PlanTarget = Field(default_factory=PlanTarget, description="The answer variable.")
    risk_level: RiskLevel = Field(
        default="normal", description="How far to trust this plan's ranking in fusion."
    )

    @model_validator(mode="after")
    def _connected_tree(self) -> GraphPlan:
        problems = plan_structure_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def variables(self) -> list[str]:
        """Every variable: anchors first, then the hops' new variables, in order."""
        names = [anchor.var for anchor in self.anchors]
        for hop in self.hops:
            names += [v for v in (hop.from_var, hop.to_var) if v not in names]
        return names


def plan_structure_problems(plan: GraphPlan) -> list[str]:
    """What is wrong with a plan's shape (empty when it is a tree reaching the target)."""
    problems = []
    anchor_vars = [anchor.var for anchor in plan.anchors]
    if not anchor_vars:
        problems.append("a plan needs at least one anchor")
    repeated = sorted({v for v in anchor_vars if anchor_vars.count(v) > 1})
    if repeated:
        problems.append(f"anchor variables must be unique, repeated: {', '.join(repeated)}")
    known = set(anchor_vars) | {plan.target.var}
    parent = {var: var for var in known}

    def root(var: str) -> str:
        while parent[var] != var:
            var = parent[var]
        return var

    for index, hop in enumerate(plan.hops):
        if hop.from_var not in known:
            problems.append(
                f"hop {index} starts from {hop.from_var!r}, which no anchor or earlier hop "
                f"defines (known: {', '.join(sorted(known))})"
            )
            continue
        if hop.to_var == hop.from_var:
            problems.append(f"hop {index} goes from {hop.from_var!r} to itself")
            continue
        known.add(hop.to_var)
        parent.setdefault(hop.to_var, hop.to_var)
        a, b = root(hop.from_var), root(hop.to_var)
        if a == b:
            problems.append(f"hop {index} ({hop.from_var} - {hop.to_var}) closes a cycle")
        parent[a] = b
    if not problems:
        target = root(plan.target.var)
        loose = [a for a in anchor_vars if root(a) != target]
        if loose:
            problems.append(
                f"anchors {', '.join(loose)} are not joined to the target {plan.target.var} "
                "by hops; add a hop from each anchor toward the target"
            )
    return problems
