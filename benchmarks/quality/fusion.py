"""GRASP-style ablation on the synthetic domains: agents -> + BM25 fusion -> + rerankers.

For each domain (bundled-size graph from `ark graph synth`) the rule-policy agents and BM25
are run on the train, val and test splits; then, with the real `ark` commands:

1. `ark fuse --grid --mode static|dynamic` fuses agents + BM25 (tuned on val, applied to
   test), and `--mode best` is frozen and re-applied to val and train (`--spec`);
2. `ark rerank` scores the stage-2 pool of the first `--rerank-questions` val and test
   questions with a zero-shot base (SmolLM2-135M-Instruct Q4_1 GGUF) and fuses back by RRF
   tuned on val; a rerun of the same command measures the on-disk cache;
3. `ark distill reranker` LoRA-trains the same base under the listwise loss on the train
   split's pools, and `ark rerank` scores with the adapter.

Writes a markdown report (tables per protocol and family, the (w, k) Hit@1 heatmaps,
reranker throughput and cache hit rate).

    .venv/bin/python -m benchmarks.quality.fusion --work /tmp/fusion-bench \
        --gguf /path/SmolLM2-135M-Instruct.Q4_1.gguf --out bench-out/fusion.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks.harness import ark
from benchmarks.run_tables import heatmap, subset_summary, table
from evals.metrics import PROTOCOL_TITLES, PROTOCOLS
from evals.runs.store import read_results

DOMAINS = ("products", "academic", "biomed")
ARK = [sys.executable, "-c", "from cli.app import main; main()"]


def base_runs(domain: str, work: Path, train_questions: int, log: Path) -> tuple[Path, Path]:
    graph = work / domain
    if not (graph / "qa" / "test.jsonl").is_file():
        ark("graph", "synth", "--domain", domain, "--out", graph, "--json", log=log)
    runs = work / "runs"
    for split in ("val", "test", "train"):
        limit = ["--limit", train_questions] if split == "train" else []
        ark("eval", graph, "--qa", graph / "qa", "--split", split,
            "--out", runs / f"{domain}-rules-{split}", "--json", *limit, log=log)  # fmt: skip
        ark("baseline", "bm25", graph, "--qa", graph / "qa", "--split", split,
            "--out", runs / f"{domain}-bm25-{split}", "--json", *limit, log=log)  # fmt: skip
    return graph, runs


def fusion_stage(
    domain: str, graph: Path, runs: Path, train_questions: int, log: Path
) -> dict[str, Path]:
    out = {}
    sources = [
        f"{runs}/{domain}-{name}-val,{runs}/{domain}-{name}-test" for name in ("rules", "bm25")
    ]
    for mode in ("static", "dynamic", "best"):
        out[mode] = runs / f"{domain}-fused-{mode}"
        ark("fuse", *sources, "--qa", graph / "qa", "--out", out[mode], "--grid", "--mode", mode,
            log=log)  # fmt: skip
    spec = out["best"] / "fusion.json"
    for split in ("val", "train"):
        out[f"best-{split}"] = runs / f"{domain}-fused-best-{split}"
        split_sources = [f"{runs}/{domain}-{name}-{split}" for name in ("rules", "bm25")]
        limit = ["--limit", train_questions] if split == "train" else []
        ark("fuse", *split_sources, "--qa", graph / "qa", "--out", out[f"best-{split}"],
            "--spec", spec, "--split", split, *limit, log=log)  # fmt: skip
    return out


def rerank_stage(
    domain: str, graph: Path, runs: Path, fused: dict[str, Path], args: argparse.Namespace,
    log: Path,
) -> dict[str, object]:  # fmt: skip
    stage2 = f"{fused['best-val']},{fused['best']}"
    common = ["--qa", graph / "qa", "--depth", args.depth, "--limit", args.rerank_questions,
              "--cache", args.work / "rerank-cache.sqlite", "--batch-size", 8,
              "--max-field-tokens", args.field_words,
              "--neighbors-per-relation", args.neighbors]  # fmt: skip
    zero = runs / f"{domain}-rerank-zero"
    times = {"zero": ark("rerank", stage2, "--model", args.gguf, "--out", zero, *common, log=log)}
    again = runs / f"{domain}-rerank-zero-again"
    times["zero-again"] = ark("rerank", stage2, "--model", args.gguf, "--out", again, *common,
                              log=log)  # fmt: skip
    adapter = args.work / "adapters" / domain
    info = {"zero": json.loads((zero / "rerank.json").read_text()),
            "again": json.loads((again / "rerank.json").read_text())}  # fmt: skip
    if args.skip_trained:
        return {"zero": zero, "trained": None, "info": info, "times": times, "adapter": None}
    times["train"] = ark(
        "distill", "reranker", fused["best-train"], "--qa", graph / "qa", "--base-model", args.gguf,
        "--out", adapter, "--limit", args.train_questions, "--depth", args.depth,
        "--group-size", args.group_size, "--grad-accum", 1, "--max-steps", args.train_steps,
        "--max-field-tokens", args.field_words, "--max-length", 512,
        "--neighbors-per-relation", args.neighbors,
        "--learning-rate", args.learning_rate, log=log,
    )  # fmt: skip
    trained = runs / f"{domain}-rerank-trained"
    times["trained"] = ark("rerank", stage2, "--model", adapter, "--out", trained, *common, log=log)
    info["trained"] = json.loads((trained / "rerank.json").read_text())
    return {"zero": zero, "trained": trained, "info": info, "times": times, "adapter": adapter}


def domain_report(domain: str, args: argparse.Namespace, log: Path) -> list[str]:
    graph, runs = base_runs(domain, args.work, args.train_questions, log)
    fused = fusion_stage(domain, graph, runs, args.train_questions, log)
    lines = [f"\n## {domain}\n"]
    full = [
        subset_summary(runs / f"{domain}-rules-test", None, "agents (rules, n=3)"),
        subset_summary(runs / f"{domain}-bm25-test", None, "BM25 alone"),
        subset_summary(fused["static"], None, "+ BM25, static RRF"),
        subset_summary(fused["dynamic"], None, "+ BM25, dynamic RRF"),
    ]
    for mode in ("static", "dynamic", "best"):
        chosen = json.loads((fused[mode] / "fusion.json").read_text())
        validation = chosen["validation"]
        lines.append(f"- `--mode {mode}` froze `{json.dumps(chosen['spec'])}` "
                     f"(val: static Hit@1 {validation['static']['hit@1']:.3f}"
                     + (f", dynamic {validation['dynamic']['hit@1']:.3f}" if validation["dynamic"]
                        else "") + ")")  # fmt: skip
    for protocol in PROTOCOLS:
        lines += [f"\n### Full test split, {PROTOCOL_TITLES[protocol]} protocol\n",
                  table(full, protocol)]  # fmt: skip
    lines += ["\n### Static RRF (agents w, BM25 1 - w): validation Hit@1 (STaRK protocol)\n",
              heatmap(fused["static"] / "fusion.json")]  # fmt: skip
    if args.gguf and domain in (args.rerank_domains or domain).split(","):
        stage3 = rerank_stage(domain, graph, runs, fused, args, log)
        keep = {r.question_id for r in read_results(stage3["zero"])}  # type: ignore[arg-type]
        rows = [
            subset_summary(runs / f"{domain}-rules-test", keep, "agents (rules, n=3)"),
            subset_summary(fused["best"], keep, "+ BM25 fusion (stage 2, best on val)"),
            subset_summary(stage3["zero"], keep, "+ zero-shot reranker (SmolLM2-135M)"),  # type: ignore[arg-type]
        ]
        if stage3["trained"] is not None:
            rows.append(
                subset_summary(stage3["trained"], keep, "+ trained reranker (LoRA, listwise)")  # type: ignore[arg-type]
            )
        info = stage3["info"]
        for protocol in PROTOCOLS:
            lines += [f"\n### First {len(keep)} test questions (reranked, depth {args.depth}), "
                      f"{PROTOCOL_TITLES[protocol]} protocol\n", table(rows, protocol)]  # fmt: skip
        for name in ("zero", "trained"):
            if name not in info:  # type: ignore[operator]
                continue
            record = info[name]  # type: ignore[index]
            lines.append(
                f"- {name}: final RRF (reranker w, k) = ({record['spec']['weights'][0]}, "
                f"{record['spec']['k']:g}); val Hit@1 stage-2 "
                f"{record['validation']['source hit@1']:.3f}, reranker alone "
                f"{record['validation']['reranker hit@1']:.3f}, fused "
                f"{record['validation']['fused hit@1']:.3f}; {record['throughput']['scored']} "
                f"candidates at {record['throughput']['candidates_per_s']:.2f}/s"
            )
        again = info["again"]  # type: ignore[index]
        hit_rate, rescored = again["cache"]["hit_rate"], again["throughput"]["scored"]
        lines.append(
            f"- rerun of the zero-shot command: cache hit rate {hit_rate:.1%}, {rescored} "
            f"candidates scored; wall times (s): {json.dumps(stage3['times'])}"
        )
        if stage3["adapter"] is None:
            return lines
        training = json.loads((Path(stage3["adapter"]) / "ark_reranker.json").read_text())  # type: ignore[arg-type]
        losses = [loss for _, loss in training["losses"]]
        if losses:
            lines.append(f"- training: {training['questions']} questions, {len(losses)} steps, "
                         f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")  # fmt: skip
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/fusion-bench"))
    parser.add_argument("--out", type=Path, default=Path("bench-out/fusion.md"))
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--gguf", default=None, help="Reranker base (.gguf); omit: no stage 3.")
    parser.add_argument("--rerank-questions", type=int, default=20)
    parser.add_argument("--train-questions", type=int, default=60)
    parser.add_argument("--train-steps", type=int, default=30)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--field-words", type=int, default=60)
    parser.add_argument("--neighbors", type=int, default=10, help="Names per relation.")
    parser.add_argument("--skip-trained", action="store_true", help="Zero-shot reranker only.")
    parser.add_argument("--rerank-domains", default=None, help="Domains with stage 3 (all).")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    log = args.work / "commands.log"
    began = time.perf_counter()
    lines = ["# Fusion and reranking benchmark", "", f"Command: `{' '.join(sys.argv)}`"]
    for domain in args.domains.split(","):
        lines += domain_report(domain, args, log)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n")
        print(f"{domain} done after {time.perf_counter() - began:.0f}s", flush=True)
    lines.append(f"\nTotal wall time {time.perf_counter() - began:.0f}s; commands in {log}.")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
