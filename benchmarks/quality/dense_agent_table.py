"""Per-family table of agent runs side by side (e.g. the rule policy with and without dense_search).

    python -m benchmarks.quality.dense_agent_table DOMAIN=LABEL:RUN_DIR,LABEL:RUN_DIR ... \
        [--protocol ark|stark]

Each argument is one domain: its runs (written by `ark eval` or `ark baseline`) in column
order (labels without commas). Cells are Hit@1 / Hit@5 / Recall@20 / MRR (the headline
means: a failed question counts as a miss), one row per family and one for all questions;
the last line per domain says whether the protocols differ. `ark eval report RUN...` gives
the full report of the same runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.metrics import OVERALL
from evals.summary import RunSummary, summarize_run

METRICS = ("hit@1", "hit@5", "recall@20", "mrr")


def domain_table(domain: str, runs: list[tuple[str, RunSummary]], protocol: str) -> list[str]:
    header = ["domain", "family", "n", *(label for label, _ in runs)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    families = [OVERALL, *sorted(f for f in runs[0][1].groups if f != OVERALL)]
    for family in families:
        first = runs[0][1].groups[family]
        cells = [domain, f"**{family}**" if family == OVERALL else family, str(first.questions)]
        for _, summary in runs:
            means = summary.groups[family].means()[protocol]
            cells.append(" / ".join(f"{means[name]:.3f}" for name in METRICS))
        lines.append("| " + " | ".join(cells) + " |")
    same = all(
        s.groups[f].means()["ark"] == s.groups[f].means()["stark"]
        for _, s in runs
        for f in s.groups
    )
    lines.append(f"\n{'ARK and STaRK protocols give identical numbers.' if same else ''}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domains", nargs="+", help="DOMAIN=LABEL:RUN_DIR,LABEL:RUN_DIR")
    parser.add_argument("--protocol", default="ark", choices=("ark", "stark"))
    args = parser.parse_args()
    for spec in args.domains:
        domain, _, runs = spec.partition("=")
        pairs = [run.split(":", 1) for run in runs.split(",")]
        summaries = [(label, summarize_run(Path(path))) for label, path in pairs]
        print(f"\nCells: Hit@1 / Hit@5 / R@20 / MRR ({args.protocol.upper()} protocol)\n")
        print("\n".join(domain_table(domain, summaries, args.protocol)))


if __name__ == "__main__":
    main()
