"""SARG vs its baselines on hotpotqa-dev20: EM / F1, chains per question, construction time.

Builds the document snapshot of the 200 passages with the offline spaCy extractor (cached),
then answers the 20 questions with each configuration into WORK/runs/NAME (resumable run
directories with chains and citations), and writes WORK/report.md side by side.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python -m benchmarks.quality.sarg_hotpot \
        --work /tmp/sarg-bench [--model hf:PATH.gguf] [--only offline|model] [--max-tokens 32]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import replace
from pathlib import Path

from agent.config import AgentConfig
from agent.models.registry import load_model
from answer.config import SargConfig
from answer.encoding import load_encoder
from answer.factory import make_answerer
from benchmarks.quality.ner_reference import reference_answer
from evals.answers.metrics import normalize_answer, score_answer
from evals.answers.report import load_answer_runs, markdown_answers_report
from evals.answers.run import AnswerRecord, load_answer_qa, run_answers
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.spacy_extractor import SpacyExtractor, load_pipeline
from graphs.snapshot import Snapshot

DATA = Path(__file__).resolve().parents[2] / "docs/examples/hotpotqa-dev20"
PAPER = SargConfig()
OFFLINE = {
    "off-sarg": PAPER,
    "off-rag": replace(PAPER, method="rag"),
    "off-flat-chains": replace(PAPER, method="flat-chains"),
    "off-sarg-beam1": replace(PAPER, beam_width=1),
    "off-sarg-beam10": replace(PAPER, beam_width=10),
    "off-sarg-k1": replace(PAPER, top_k=1),
    "off-sarg-k10": replace(PAPER, top_k=10),
    "off-sarg-shared-beam": replace(PAPER, shared_beam=True),
    "off-sarg-learned-direction": replace(PAPER, direction="learned"),
    "off-sarg-gold": replace(PAPER, retrieval="gold"),
    "off-rag-gold": replace(PAPER, method="rag", retrieval="gold"),
}
WITH_MODEL = {
    "llm-sarg": PAPER,
    "llm-rag": replace(PAPER, method="rag"),
    "llm-direct": replace(PAPER, method="direct"),
    "llm-cot-rag": replace(PAPER, method="cot-rag"),
    "llm-flat-chains": replace(PAPER, method="flat-chains"),
}


def build(work: Path) -> Path:
    """The document snapshot of the 200 passages (extractions cached in WORK)."""
    snapshot = work / "hotpot-docs"
    if (snapshot / "manifest.json").is_file():
        return snapshot
    with ExtractionCache(work / "extractions.sqlite") as cache:
        summary = build_document_snapshot(
            [DATA / "passages.jsonl"],
            snapshot,
            extractor=SpacyExtractor(),
            cache=cache,
            config=DocumentBuildConfig(),
        )
    print(f"built {snapshot}: {summary.triples} triples, {summary.entities} entities")
    return snapshot


def run(work: Path, snapshot_dir: Path, configs: dict[str, SargConfig], spec: str | None) -> None:
    snapshot = Snapshot.open(snapshot_dir)
    encoder = load_encoder()
    model = None
    if spec:
        tokens = next(iter(configs.values())).max_tokens
        model = load_model(AgentConfig(model=spec, max_tokens=tokens, temperature=0.0))
    items = load_answer_qa(DATA / "questions.jsonl")
    for name, config in configs.items():
        answerer = make_answerer(snapshot, config, model=model, encoder=encoder)
        run_config = {
            "baseline": {**config.to_record(), "model": spec or "offline"},
            "snapshot": str(snapshot_dir),
            "qa": str(DATA / "questions.jsonl"),
        }
        began = time.perf_counter()
        records = asyncio.run(
            run_answers(answerer.answer, items, work / "runs" / name, run_config, resume=True)
        )
        construct = [r.result.timings["construct_s"] for r in records]
        in_chains = sum(_gold_in_chains(r) for r in records) / len(records)
        chains = [len(r.result.chains) for r in records]
        print(
            f"{name}: n={len(records)} EM={sum(r.em for r in records) / len(records):.3f} "
            f"F1={sum(r.f1 for r in records) / len(records):.3f} "
            f"construct median {statistics.median(construct):.2f}s max {max(construct):.2f}s "
            f"chains/q {sum(chains) / len(chains):.1f} gold-in-chain-nodes {in_chains:.2f} "
            f"({time.perf_counter() - began:.0f}s)",
            flush=True,
        )


def reference(snapshot_dir: Path, qa: Path) -> None:
    """The issue's BM25 + NER reference row (benchmarks/quality/ner_reference.py)."""
    snapshot = Snapshot.open(snapshot_dir)
    nlp = load_pipeline()
    items = load_answer_qa(qa)
    scores = [score_answer(reference_answer(snapshot, nlp, i.question), i.answers) for i in items]
    n = len(scores)
    print(
        f"bm25-ner-reference: n={n} EM={sum(s.em for s in scores) / n:.3f} "
        f"F1={sum(s.f1 for s in scores) / n:.3f}",
        flush=True,
    )


def _gold_in_chains(record: AnswerRecord) -> bool:
    """The normalised gold answer is (inside) the name of a node on one of the chains."""
    gold = normalize_answer(record.gold[0])
    labels = [normalize_answer(label) for c in record.result.chains for label in c.labels]
    return bool(gold) and any(gold in label for label in labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--model", default=None, help="Generator spec, e.g. hf:FILE.gguf")
    parser.add_argument("--only", choices=("offline", "model"), default=None)
    parser.add_argument("--max-tokens", type=int, default=32, help="Generator cap (model runs).")
    parser.add_argument("--methods", default=None, help="Comma-separated model-run names.")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    snapshot = build(args.work)
    if args.only != "model":
        reference(snapshot, DATA / "questions.jsonl")
        run(args.work, snapshot, OFFLINE, None)
    if args.model and args.only != "offline":
        names = args.methods.split(",") if args.methods else list(WITH_MODEL)
        capped = {n: replace(WITH_MODEL[n], max_tokens=args.max_tokens) for n in names}
        run(args.work, snapshot, capped, args.model)
    runs = sorted(p for p in (args.work / "runs").iterdir() if (p / "config.json").is_file())
    report = markdown_answers_report(load_answer_runs(runs))
    (args.work / "report.md").write_text(report, encoding="utf-8")
    print(f"wrote {args.work / 'report.md'}")


if __name__ == "__main__":
    main()
