"""SARG on a synthetic KG (`ark graph synth`): is the gold chain among the K chains?

The generator records, per question, the anchor node and the relation steps that lead to the
gold answers (qa/provenance.jsonl). A SARG chain holds the gold chain when it contains the
anchor, then nodes reached by exactly those steps (relation and direction), ending at a gold
answer, walked either way. Also: EM / F1 of the offline answer (the best chain's end node
against the gold answers' names) and of a model when given, and construction time.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python -m benchmarks.quality.sarg_synth \
        --work /tmp/sarg-synth [--questions 60] [--model hf:PATH.gguf]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.registry import load_model
from answer.config import SargConfig
from answer.encoding import load_encoder
from answer.factory import make_answerer
from answer.result import ChainRecord
from evals.answers.metrics import score_answer
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate

FAMILIES = ("one_hop", "two_hop", "multi_answer")
PAPER = SargConfig()
CONFIGS = {
    "SARG (paper: β=3 K=3)": PAPER,
    "β=1": replace(PAPER, beam_width=1),
    "β=10": replace(PAPER, beam_width=10),
    "K=1": replace(PAPER, top_k=1),
    "K=10": replace(PAPER, top_k=10),
    "one shared beam": replace(PAPER, shared_beam=True),
    "forward only": replace(PAPER, direction="forward"),
    "backward only": replace(PAPER, direction="backward"),
    "agents retrieval (rules)": replace(PAPER, retriever="agents"),
    "Standard RAG": replace(PAPER, method="rag"),
    "Direct": replace(PAPER, method="direct"),
}


def holds_gold_chain(
    chain: ChainRecord, anchor: str, steps: list[list[str]], gold: set[str]
) -> bool:
    """True when `chain` walks anchor -steps-> a gold node, in either direction."""
    hops = list(zip(chain.nodes, chain.nodes[1:], chain.relations, strict=False))
    width = len(steps)
    for start in range(len(hops) - width + 1):
        window = hops[start : start + width]
        if window[0][0] == anchor and window[-1][1] in gold and _matches(window, steps, False):
            return True
        if window[-1][1] == anchor and window[0][0] in gold and _matches(window, steps, True):
            return True
    return False


def _matches(window: list[tuple[str, str, str]], steps: list[list[str]], reverse: bool) -> bool:
    ordered = list(reversed(window)) if reverse else window
    for (_, _, relation), (name, direction, _) in zip(ordered, steps, strict=True):
        forward = not relation.startswith("<-")
        if relation.removeprefix("<-") != name:
            return False
        walked_out = forward != reverse
        if walked_out != (direction == "out"):
            return False
    return True


def questions(snapshot_dir: Path, count: int) -> list[dict[str, Any]]:
    """Up to count/3 test questions of each family with a chain, with their provenance."""
    provenance = {
        row["id"]: row for row in map(json.loads, (snapshot_dir / "qa" / "provenance.jsonl").open())
    }
    rows = [json.loads(line) for line in (snapshot_dir / "qa" / "test.jsonl").open()]
    picked = []
    for family in FAMILIES:
        mine = [r for r in rows if r.get("family") == family][: count // len(FAMILIES)]
        picked += [{**r, **provenance[r["id"]]} for r in mine]
    return picked


async def evaluate(answerer: Any, snapshot: Snapshot, items: list[dict]) -> dict[str, float]:
    hits, ems, f1s, construct = [], [], [], []
    for item in items:
        result = await answerer.answer(item["query"])
        gold = set(item["answer_ids"])
        names = [snapshot.name(snapshot.internal_id(g)) for g in item["answer_ids"]]
        hits.append(
            any(holds_gold_chain(c, item["anchor"], item["steps"], gold) for c in result.chains)
        )
        score = score_answer(result.answer, names)
        ems.append(score.em)
        f1s.append(score.f1)
        construct.append(result.timings["construct_s"])
    return {
        "gold_chain": float(np.mean(hits)),
        "em": float(np.mean(ems)),
        "f1": float(np.mean(f1s)),
        "construct_median_s": statistics.median(construct),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--domain", default="academic")
    parser.add_argument("--nodes", type=int, default=600)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--model", default=None)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--configs", default=None, help="Comma-separated config names.")
    args = parser.parse_args()
    snapshot_dir = args.work / f"synth-{args.domain}-{args.nodes}"
    if not (snapshot_dir / "manifest.json").is_file():
        generate(args.domain, 0, snapshot_dir, args.nodes, options=BuildOptions())
    snapshot = Snapshot.open(snapshot_dir)
    items = questions(snapshot_dir, args.questions)
    encoder = load_encoder()
    generator = AgentConfig(model=args.model or "", temperature=0.0, max_tokens=args.max_tokens)
    model = load_model(generator) if args.model else None
    names = args.configs.split(",") if args.configs else list(CONFIGS)
    print(f"{len(items)} questions ({', '.join(FAMILIES)}) on {snapshot}; model {args.model}")
    print("| config | gold chain in K chains | EM | F1 | construction s/q (median) |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        config = CONFIGS[name]
        agent = (
            make_agent(snapshot, AgentConfig(model="rules"))
            if config.retriever == "agents"
            else None
        )
        answerer = make_answerer(snapshot, config, model=model, encoder=encoder, agent=agent)
        s = asyncio.run(evaluate(answerer, snapshot, items))
        print(
            f"| {name} | {s['gold_chain']:.3f} | {s['em']:.3f} | {s['f1']:.3f} | "
            f"{s['construct_median_s']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
