"""Where the rule agent's text guard decides: the two scores it compares, and which side was right.

For every test question of each graph (snapshots and samples of
benchmarks/quality/plan_families.py) on which the rule agent had to choose between its reached
nodes and the search ranking (something reached, no agreement between anchors, a rival hit
in the search of the remaining words), print the best reached node's remaining-words score,
the best rival's, and whether the graph's top node and the search's top hit are gold. The
questions where only one of the two is right show how large a margin `TEXT_MARGIN`
(tools/plans/reach.py) needs.

    .venv/bin/python -m benchmarks.studies.text_guard --work /tmp/pf
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import agent.models.rules.plan as rule_plan
from agent.models.rules.plan import RulePlanner
from agent.models.rules.turns import Listing
from graphs.snapshot import Snapshot
from tools.listing_parse import parse_listing, parse_names
from tools.plans.reach import Reach
from tools.plans.vocabulary import TermStats
from tools.toolset import Toolset


def decisions(snapshot: Snapshot, qa: Path) -> list[dict[str, Any]]:
    """One row per question the guard decided on."""
    tools = Toolset(snapshot)
    types = list(snapshot.manifest.node_types)
    offered = {schema["function"]["name"]: schema["function"] for schema in tools.schemas()}
    planner = RulePlanner(snapshot.manifest, TermStats.of(snapshot))
    seen: list[tuple[Reach, float | None]] = []
    original = rule_plan.graph_first

    def spy(reach: Reach, text_best: float | None) -> bool:
        seen.append((reach, text_best))
        return original(reach, text_best)

    rule_plan.graph_first = spy
    rows = []
    try:
        for line in qa.read_text().splitlines():
            question = json.loads(line)
            seen.clear()
            episode = planner.episode(question["query"], offered, 20)
            turn = next(episode)
            first: list[str] = []
            try:
                while True:
                    results = []
                    for call in turn.calls:
                        text = tools.call(call.name, call.arguments).text
                        listed = Listing(parse_listing(text, types), parse_names(text, types))
                        first = first or [row.node_id for row in listed]
                        results.append(listed)
                    turn = episode.send(results)
            except StopIteration:
                pass
            if not seen:
                continue
            reach, rival = seen[-1]
            if not reach.nodes or reach.agreed() or rival is None:
                continue
            gold = set(question["answer_ids"])
            rows.append(
                {
                    "family": question["family"],
                    "reached": max(node.relevance for node in reach.nodes.values()),
                    "rival": rival,
                    "graph_right": reach.ranking()[0] in gold,
                    "text_right": bool(first) and first[0] in gold,
                }
            )
    finally:
        rule_plan.graph_first = original
    return rows


def main() -> None:
    """Print the rows where the graph's and the search's top answers disagree on gold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/pf"))
    parser.add_argument("--graphs", default="geography,icd10cm,products,academic,biomed")
    args = parser.parse_args()
    print("| graph | family | best reached | best rival | rival / reached | right |")
    print("|---|---|---|---|---|---|")
    for name in args.graphs.split(","):
        snapshot = Snapshot.open(args.work / name)
        for row in decisions(snapshot, args.work / "qa" / name / "test.jsonl"):
            if row["graph_right"] == row["text_right"]:
                continue
            ratio = row["rival"] / row["reached"] if row["reached"] else float("inf")
            right = "graph" if row["graph_right"] else "text"
            print(
                f"| {name} | {row['family']} | {row['reached']:.2f} | {row['rival']:.2f} "
                f"| {ratio:.2f} | {right} |"
            )


if __name__ == "__main__":
    main()
