"""How far the whole question's first hit leads where it and the rule agent disagree on gold.

For every question of each graph (the snapshots and question sets of
benchmarks/quality/plan_families.py, with the rule agent's answers of one of its runs) that
names no relation leaving a named node, and whose first search hit is of the answer types and
not itself named: the first hit's score over the next hit's, and over the next hit the
question does not name (a named node scores high on the whole question because its name is
written there, not because it matches the description). Printed where exactly one of the
first hit and the agent's first answer is gold: the leads `CLEAR_LEAD`
(tools/plans/rivals.py) must separate.

    .venv/bin/python -m benchmarks.studies.clear_lead --work /tmp/pf8 --run rules --graphs \\
        products,academic,biomed,geography,icd10cm,debian-dev,wordnet,hpo,debian-text,wordnet-text
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot


def leads(work: Path, graph: str, run: str) -> list[dict[str, Any]]:
    """One row per question where the first hit and the agent's answer disagree on gold."""
    snapshot = Snapshot.open(work / graph)  # a text set's snapshot links its graph's files
    planner = OfflinePlanner(snapshot)
    runs = sorted((work / "runs" / graph).glob(f"{run}-*"))
    if not runs:
        raise SystemExit(f"no run {run!r} of {graph} in {work / 'runs'}: run plan_families first")
    rows = []
    for line in (runs[0] / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        question, gold = record["query"], set(record["gold"])
        answers = record["result"]["fused"]
        hits = planner.hits(question)
        plan = planner.writer.plan(question, hits, planner.names(question))
        if planner.writer.rivals.walks_named(plan) or not hits or not hits[0].score:
            continue
        first, types = hits[0], set(plan.plan.target.labels)
        named = plan.named_ids | plan.start_ids
        if (types and first.type not in types) or first.node_id in named:
            continue
        unnamed = [hit for hit in hits[1:] if hit.node_id not in named]
        right, agent = first.node_id in gold, bool(answers) and answers[0] in gold
        if right == agent:
            continue
        rows.append(
            {
                "graph": graph,
                "family": record["family"],
                "first_right": right,
                "lead": _ratio(first.score, hits[1].score if len(hits) > 1 else None),
                "lead_unnamed": _ratio(first.score, unnamed[0].score if unnamed else None),
                "first": first.name,
                "question": question,
            }
        )
    return rows


def _ratio(score: float, other: float | None) -> float | None:
    return None if not other else round(score / other, 2)


def main() -> None:
    """Print the disagreements of every graph, the first hit's side first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--graphs", required=True, help="Comma-separated plan_families graphs.")
    parser.add_argument("--run", default="rules", help="The rule agent run to compare with.")
    args = parser.parse_args()
    rows = [row for g in args.graphs.split(",") for row in leads(args.work, g, args.run)]
    print("| first hit gold | lead over next | over next unnamed | graph | family | first hit |")
    print("|---|---|---|---|---|---|")
    for row in sorted(rows, key=lambda r: (not r["first_right"], -(r["lead_unnamed"] or 99))):
        print(
            f"| {'yes' if row['first_right'] else 'no'} | {row['lead']} | {row['lead_unnamed']} "
            f"| {row['graph']} | {row['family']} | {row['first']} |"
        )


if __name__ == "__main__":
    main()
