"""The Cypher a plan compiles to (GRASP §3.1), for users who hold their graph in Neo4j.

Anchors become UNWIND over their bindings (`$A1` is a list of {id, score} maps), hops become
undirected MATCH patterns, and the target is returned with the sum of the anchor scores along
the path, the maximum over paths. Node ids are matched on an `id` property, types are labels,
relations are relationship types. ARK itself runs plans on its own snapshot
(tools/plans/execute.py); this text is for reading and for Neo4j users.
"""

from __future__ import annotations

from tools.plans.model import GraphPlan


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def to_cypher(plan: GraphPlan) -> str:
    """The plan as one Cypher query (parameters: one binding list per anchor variable)."""
    lines = []
    for anchor in plan.anchors:
        label = f":{_quoted(anchor.label)}" if anchor.label else ""
        lines.append(f"UNWIND ${anchor.var} AS {anchor.var}_b")
        lines.append(f"MATCH ({anchor.var}{label} {{id: {anchor.var}_b.id}})")
    for hop in plan.hops:
        rel = f":{_quoted(hop.rel)}" if hop.rel else ""
        label = (
            f":{_quoted(hop.to_label)}" if hop.to_label and hop.to_var != plan.target.var else ""
        )
        lines.append(f"MATCH ({hop.from_var})-[{rel}]-({hop.to_var}{label})")
    target = plan.target.var
    if plan.target.labels:
        labels = " OR ".join(f"{target}:{_quoted(label)}" for label in plan.target.labels)
        lines.append(f"WHERE {labels}")
    total = " + ".join(f"{a.var}_b.score" for a in plan.anchors) or "0"
    lines.append(f"WITH {target}, max({total}) AS anchor_score")
    lines.append(f"RETURN {target}.id AS id, anchor_score ORDER BY anchor_score DESC")
    return "\n".join(lines)
