"""GRASP-style ablation on the three synthetic domains, with the dense branch and both rerankers.

Per domain (an embedded snapshot from `ark graph embed`, so `ark baseline dense` runs on it):

1. light: rule-policy agents (n = 3), BM25 (top 100) and dense retrieval (MiniLM, plain,
   top 100) on val, test and the first `--train-questions` of train; `ark fuse --grid` of
   agents + BM25 (`--mode static`, `dynamic`) and of agents + BM25 + dense (`--mode best`),
   tuned on val, frozen for test, re-applied to val and train (`--spec`);
2. heavy: `ark rerank` of the three-way stage-2 pool, top `--depth`, on a seeded random
   `--sample` of val and of test (the same questions for every reranker), zero-shot with the
   base, then rerun to measure the cache; `ark distill reranker` LoRA-trains the base on the
   train split's pools, and `ark rerank` scores with the adapter.

Every command is skipped when its output exists, so the script resumes; `--stop-after light`
runs only part 1. Writes one ablation table over domains and per-domain tables by family.

    .venv/bin/python -m benchmarks.quality.fusion_ablation --work /tmp/ablation \
        --graphs /path/embedded-snapshots --encoder /path/all-minilm-l6-v2/model \
        --base /path/SmolLM2-135M-Instruct --out bench-out/fusion_ablation.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks.harness import ark
from benchmarks.run_tables import heatmap, subset_summary, table
from evals.metrics import PROTOCOL_TITLES, PROTOCOLS, CandidateFilter, score_question
from evals.runs.store import read_config, read_failures, read_results
from evals.summary import RunSummary, summarize_records
from graphs.snapshot import Snapshot

DOMAINS = ("products", "academic", "biomed")
SPLITS = ("val", "test", "train")


def light(domain: str, args: argparse.Namespace, log: Path) -> None:
    graph, runs = args.graphs / domain, args.work / "runs"
    qa = graph / "qa"
    for split in SPLITS:
        limit = ["--limit", args.train_questions] if split == "train" else []
        out = runs / f"{domain}-%s-{split}"
        ark("eval", graph, "--qa", qa, "--split", split, "--out", str(out) % "rules", "--json",
            *limit, log=log)  # fmt: skip
        ark("baseline", "bm25", graph, "--qa", qa, "--split", split, "--out", str(out) % "bm25",
            "--json", *limit, log=log)  # fmt: skip
        ark("baseline", "dense", graph, "--qa", qa, "--split", split, "--out",
            str(out) % "dense", "--encoder", args.encoder, "--strategy", "plain", "--budget", 100,
            "--json", *limit, log=log)  # fmt: skip
    pair = [f"{runs}/{domain}-{name}-val,{runs}/{domain}-{name}-test" for name in ("rules", "bm25")]
    for mode in ("static", "dynamic"):
        ark("fuse", *pair, "--qa", qa, "--out", runs / f"{domain}-fused-{mode}", "--grid",
            "--mode", mode, log=log)  # fmt: skip
    three = [*pair, f"{runs}/{domain}-dense-val,{runs}/{domain}-dense-test"]
    best = runs / f"{domain}-fused3"
    ark("fuse", *three, "--qa", qa, "--out", best, "--grid", "--mode", "best", log=log)
    for split in ("val", "train"):
        limit = ["--limit", args.train_questions] if split == "train" else []
        sources = [f"{runs}/{domain}-{name}-{split}" for name in ("rules", "bm25", "dense")]
        ark("fuse", *sources, "--qa", qa, "--out", runs / f"{domain}-fused3-{split}", "--spec",
            best / "fusion.json", "--split", split, *limit, log=log)  # fmt: skip


def rerank_args(domain: str, args: argparse.Namespace) -> list[object]:
    runs, qa = args.work / "runs", args.graphs / domain / "qa"
    return [f"{runs}/{domain}-fused3-val,{runs}/{domain}-fused3", "--qa", qa,
            "--depth", args.depth, "--sample", args.sample, "--seed", args.seed,
            "--cache", args.work / "rerank-cache.sqlite", "--batch-size", args.batch_size,
            "--max-field-tokens", args.field_words,
            "--neighbors-per-relation", args.neighbors]  # fmt: skip


def zero_shot(domain: str, args: argparse.Namespace, log: Path, times: dict[str, float]) -> None:
    runs = args.work / "runs"
    for name in ("zero", "zero-again"):
        out = runs / f"{domain}-rerank-{name}"
        times[f"{domain} {name}"] = ark("rerank", *rerank_args(domain, args), "--model", args.base,
                                        "--out", out, log=log)  # fmt: skip


def trained(domain: str, args: argparse.Namespace, log: Path, times: dict[str, float]) -> None:
    runs, adapter = args.work / "runs", args.work / "adapters" / domain
    qa = args.graphs / domain / "qa"
    if not (adapter / "adapter_config.json").is_file():
        times[f"{domain} train"] = ark(
            "distill", "reranker", runs / f"{domain}-fused3-train", "--qa", qa,
            "--base-model", args.base, "--out", adapter, "--depth", args.train_pool_depth,
            "--group-size", args.group_size, "--grad-accum", 1, "--max-steps", args.train_steps,
            "--max-field-tokens", args.field_words, "--neighbors-per-relation", args.neighbors,
            "--max-length", 512, "--learning-rate", args.learning_rate, log=log,
        )  # fmt: skip
    out = runs / f"{domain}-rerank-trained"
    times[f"{domain} trained"] = ark("rerank", *rerank_args(domain, args), "--model", adapter,
                                     "--out", out, log=log)  # fmt: skip


def stage_rows(domain: str, args: argparse.Namespace) -> tuple[list[RunSummary], list[RunSummary]]:
    """(full test split rows, reranked-sample rows) of one domain, for what exists."""
    runs = args.work / "runs"
    full = [
        subset_summary(runs / f"{domain}-rules-test", None, "agents (rules, n=3)"),
        subset_summary(runs / f"{domain}-bm25-test", None, "BM25 alone"),
        subset_summary(runs / f"{domain}-dense-test", None, "dense alone (MiniLM, plain)"),
        subset_summary(runs / f"{domain}-fused-static", None, "+ BM25, static RRF"),
        subset_summary(runs / f"{domain}-fused-dynamic", None, "+ BM25, dynamic RRF"),
        subset_summary(runs / f"{domain}-fused3", None, "+ BM25 + dense (best on val)"),
    ]
    zero = runs / f"{domain}-rerank-zero"
    if not (zero / "results.jsonl").is_file():
        return full, []
    keep = {r.question_id for r in read_results(zero)}
    sample = [
        subset_summary(runs / f"{domain}-rules-test", keep, "agents (rules, n=3)"),
        subset_summary(runs / f"{domain}-fused3", keep, "+ BM25 + dense (stage 2)"),
        subset_summary(zero, keep, "+ zero-shot reranker"),
    ]
    sample.insert(2, reranker_alone(zero, "zero-shot reranker alone (its order of the top 5)"))
    trained = runs / f"{domain}-rerank-trained"
    if (trained / "results.jsonl").is_file():
        sample.append(reranker_alone(trained, "trained reranker alone (its order of the top 5)"))
        sample.append(subset_summary(trained, keep, "+ trained reranker (LoRA)"))
    return full, sample


def reranker_alone(run_dir: Path, label: str) -> RunSummary:
    """The reranker's own order of the reranked candidates, scored (no fusion, no tail)."""
    config = read_config(run_dir)
    is_candidate = CandidateFilter.from_snapshot(Snapshot.open(config["snapshot"]))
    records = [
        r.model_copy(update={"metrics": score_question(r.result.config["reranker"], r.gold,
                                                       is_candidate)})
        for r in read_results(run_dir)
    ]  # fmt: skip
    summary = summarize_records(run_dir, config, records, read_failures(run_dir))
    summary.label = label
    return summary


def ablation(rows: dict[str, tuple[list[RunSummary], list[RunSummary]]], protocol: str) -> str:
    """One table over domains: stage rows, Hit@1 and R@20 per domain."""
    domains = list(rows)
    header = ["stage", *(f"{d} {m}" for d in domains for m in ("n", "Hit@1", "R@20"))]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for part, title in ((0, "full test"), (1, "sample")):
        labels = list(dict.fromkeys(s.label for d in domains for s in rows[d][part]))
        for label in labels:
            cells = [f"{label} ({title})"]
            for domain in domains:
                found = [s for s in rows[domain][part] if s.label == label]
                if not found:
                    cells += ["—"] * 3
                    continue
                means = found[0].overall.means()[protocol]
                cells += [str(found[0].overall.questions), f"{means['hit@1']:.3f}",
                          f"{means['recall@20']:.3f}"]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def notes(domain: str, args: argparse.Namespace) -> list[str]:
    runs, lines = args.work / "runs", []
    for name in ("fused-static", "fused-dynamic", "fused3"):
        path = runs / f"{domain}-{name}" / "fusion.json"
        if path.is_file():
            chosen = json.loads(path.read_text())
            lines.append(f"- `{name}` froze `{json.dumps(chosen['spec'])}`; val Hit@1 static "
                         f"{chosen['validation']['static']['hit@1']:.3f}")  # fmt: skip
    for name in ("zero", "zero-again", "trained"):
        path = runs / f"{domain}-rerank-{name}" / "rerank.json"
        if not path.is_file():
            continue
        record = json.loads(path.read_text())
        val, speed, cache = record["validation"], record["throughput"], record["cache"]
        lines.append(
            f"- rerank `{name}`: final RRF (reranker w, k) = ({record['spec']['weights'][0]}, "
            f"{record['spec']['k']:g}); val Hit@1 stage 2 {val['source hit@1']:.3f}, reranker "
            f"alone {val['reranker hit@1']:.3f}, fused {val['fused hit@1']:.3f}; scored "
            f"{speed['scored']} candidates in {speed['seconds']:.0f} s "
            f"({speed['candidates_per_s']:.2f}/s); cache hit rate {cache['hit_rate']:.1%}"
        )
    adapter = args.work / "adapters" / domain / "ark_reranker.json"
    if adapter.is_file():
        training = json.loads(adapter.read_text())
        losses = [loss for _, loss in training["losses"]]
        if losses:
            lines.append(f"- training: {training['questions']} questions in the data, "
                         f"{len(losses)} steps, loss {losses[0]:.3f} -> {losses[-1]:.3f} "
                         f"(first/last step)")  # fmt: skip
    return lines


def report(args: argparse.Namespace, times: dict[str, float]) -> str:
    domains = [d for d in args.domains.split(",") if (args.work / "runs" / f"{d}-fused3").is_dir()]
    rows = {d: stage_rows(d, args) for d in domains}
    lines = ["# Fusion ablation: agents -> + BM25 -> + dense -> + rerankers", "",
             f"Command: `{' '.join(sys.argv)}`"]  # fmt: skip
    for protocol in PROTOCOLS:
        lines += [
            f"\n## Ablation, {PROTOCOL_TITLES[protocol]} protocol\n",
            ablation(rows, protocol),
        ]
    for domain in domains:
        full, sample = rows[domain]
        lines += [f"\n## {domain}\n", *notes(domain, args)]
        for protocol in PROTOCOLS:
            lines += [f"\n### Full test split, {PROTOCOL_TITLES[protocol]} protocol\n",
                      table(full, protocol)]  # fmt: skip
            if sample:
                lines += [f"\n### Reranked sample ({sample[0].overall.questions} test questions, "
                          f"seed {args.seed}, depth {args.depth}), {PROTOCOL_TITLES[protocol]} "
                          "protocol\n", table(sample, protocol)]  # fmt: skip
        static = args.work / "runs" / f"{domain}-fused-static" / "fusion.json"
        lines += ["\n### Static RRF (agents w, BM25 1 - w): validation Hit@1 (STaRK protocol)\n",
                  heatmap(static)]  # fmt: skip
    lines.append(f"\nWall times of the heavy commands (s): {json.dumps(times)}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--graphs", type=Path, required=True, help="Embedded snapshots by domain.")
    parser.add_argument("--encoder", type=Path, required=True)
    parser.add_argument("--base", default=None, help="Reranker base model (dir or .gguf).")
    parser.add_argument("--out", type=Path, default=Path("bench-out/fusion_ablation.md"))
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--stop-after", choices=("light", "zero", "all"), default="all")
    parser.add_argument("--sample", type=int, default=20, help="Questions of val and of test.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--depth", type=int, default=5, help="Candidates reranked.")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--train-questions", type=int, default=40)
    parser.add_argument("--train-pool-depth", type=int, default=20)
    parser.add_argument("--train-steps", type=int, default=10)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--field-words", type=int, default=30)
    parser.add_argument("--neighbors", type=int, default=3, help="Names per relation.")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    log, times = args.work / "commands.log", {}
    domains = args.domains.split(",")
    began = time.perf_counter()
    steps = [("light", light)]
    if args.stop_after != "light" and args.base:
        steps.append(("zero", lambda d, a, lg: zero_shot(d, a, lg, times)))
        if args.stop_after == "all":
            steps.append(("trained", lambda d, a, lg: trained(d, a, lg, times)))
    for name, step in steps:
        for domain in domains:
            step(domain, args, log)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(report(args, times))
            print(f"{name} {domain} done after {time.perf_counter() - began:.0f}s", flush=True)
    print(report(args, times))


if __name__ == "__main__":
    main()
