"""`ark graph extract` on hotpotqa-dev20: build time, yield, throughput, warm rebuild, retrieval.

Run: nice -n 10 .venv/bin/python -m benchmarks.quality.documents [--out DIR]
Writes DIR/summary.json and prints Markdown tables; samples 100 triples (seed 0) to
benchmarks/datasets/hotpotqa_dev20_triples_judged_<rules version>.jsonl when it does not exist
(judgements are added by hand; the precision is computed from them when present).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import string
import time
from pathlib import Path
from typing import Any

from agent.config import AgentConfig
from agent.factory import make_agent
from graphs.build.options import BuildOptions
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.spacy_extractor import RULES_VERSION, SpacyExtractor
from graphs.snapshot import Snapshot
from tools.toolset import Toolset

DATA = Path(__file__).resolve().parents[2] / "docs/examples/hotpotqa-dev20"
JUDGED = (
    Path(__file__).resolve().parents[1]
    / "datasets"
    / f"hotpotqa_dev20_triples_judged_{RULES_VERSION}.jsonl"
)
SAMPLE = 100
TOP = 20


def normalise(text: str) -> str:
    """HotpotQA's answer normalisation (lower, no punctuation/articles, single spaces)."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def build(out: Path, cache: Path, extractor: SpacyExtractor) -> tuple[float, float, Any]:
    started, cpu = time.perf_counter(), time.process_time()
    with ExtractionCache(cache) as store:
        summary = build_document_snapshot(
            [DATA / "passages.jsonl"],
            out,
            extractor=extractor,
            cache=store,
            config=DocumentBuildConfig(options=BuildOptions(overwrite=True)),
        )
    return time.perf_counter() - started, time.process_time() - cpu, summary


def sample_triples(snapshot: Snapshot, count: int) -> list[dict[str, str]]:
    facts = [n for n in range(snapshot.num_nodes) if snapshot.type_name(n) == "fact"]
    picked = sorted(random.Random(0).sample(facts, min(count, len(facts))))
    rows = []
    for node in picked:
        text = snapshot.text(node)
        head, _, evidence = text.partition("\n")
        subject, rest = head.split(" -[", 1)
        label, obj = rest.split("]-> ", 1)
        rows.append(
            {
                "fact": snapshot.external_id(node),
                "subject": subject,
                "relation": label,
                "object": obj,
                "sentence": evidence.split("): ", 1)[1],
            }
        )
    return rows


def precision(path: Path) -> dict[str, Any] | None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    judged = [row for row in rows if "correct" in row]
    if not judged:
        return None
    right = sum(1 for row in judged if row["correct"])
    return {"judged": len(judged), "correct": right, "precision": round(right / len(judged), 3)}


def answer_passages(snapshot: Snapshot, answer: str) -> set[str]:
    want = normalise(answer)
    return {
        snapshot.external_id(n)
        for n in range(snapshot.num_nodes)
        if snapshot.type_name(n) == "passage" and want in normalise(snapshot.text(n))
    }


def retrieval(snapshot: Snapshot) -> dict[str, Any]:
    questions = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines()]
    tools = Toolset(snapshot)
    agent = make_agent(snapshot, AgentConfig(model="rules"))
    hits = {"search_all": 0, "search_passages": 0, "agent_rules": 0, "answerable": 0}
    for row in questions:
        gold = answer_passages(snapshot, row["answer"])
        hits["answerable"] += bool(gold)
        found = tools.call("search", {"query": row["question"], "k": TOP}).node_ids
        hits["search_all"] += bool(gold & set(found[:TOP]))
        only = tools.call(
            "search", {"query": row["question"], "k": TOP, "node_types": ["passage"]}
        ).node_ids
        hits["search_passages"] += bool(gold & set(only[:TOP]))
        result = asyncio.run(agent.ask(row["question"], question_id=row["id"]))
        hits["agent_rules"] += bool(gold & set(_passages_of(snapshot, result.fused[:TOP])))
    hits["questions"] = len(questions)
    return hits


def _passages_of(snapshot: Snapshot, node_ids: list[str]) -> list[str]:
    """Answers as passages: a passage itself, or the passages a fact/entity answer is read from."""
    out = []
    for node_id in node_ids:
        node = snapshot.internal_id(node_id)
        kind = snapshot.type_name(node)
        if kind == "passage":
            out.append(node_id)
            continue
        relation = "stated_in" if kind == "fact" else "mentioned_in"
        if relation in snapshot.relation_names:
            hood = snapshot.neighbors(node, relations=[snapshot.relation_code(relation)])
            out += [snapshot.external_id(int(n)) for n in hood.nodes]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("/tmp/ark-bench-documents"))
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    cache = args.out / "cache.sqlite"
    started = time.perf_counter()
    extractor = SpacyExtractor()
    load_s = time.perf_counter() - started
    cold_s, cold_cpu_s, cold = build(args.out / "snap", cache, extractor)
    warm_s, _, warm = build(args.out / "snap", cache, extractor)
    snapshot = Snapshot.open(args.out / "snap")
    relation_edges = sum(cold.relation_types.values())
    result: dict[str, Any] = {
        "spacy_load_s": round(load_s, 2),
        "cold_build_s": round(cold_s, 2),
        "cold_phases_s": cold.seconds,
        # CPU seconds of the whole cold build: the wall time on an idle core
        "cold_build_cpu_s": round(cold_cpu_s, 2),
        "passages_per_cpu_s": round(cold.passages / cold_cpu_s, 2),
        "extract_passages_per_s": round(cold.passages / cold.seconds["extract"], 2),
        "warm_build_s": round(warm_s, 2),
        "warm_cache_hits": warm.cache_hits,
        "warm_extracted": warm.extracted,
        "documents": cold.documents,
        "passages": cold.passages,
        "entities": cold.entities,
        "mentions_per_passage": round(cold.mentions / cold.passages, 2),
        "entities_per_passage": round(cold.entities / cold.passages, 2),
        "triples_per_passage": round(cold.triples / cold.passages, 2),
        "relation_edges_per_passage": round(relation_edges / cold.passages, 2),
        "typed_relation_share": round(
            1 - cold.relation_types.get("related_to", 0) / max(relation_edges, 1), 3
        ),
        "merges": cold.merges,
        "entities_by_type": cold.entities_by_type,
    }
    if not JUDGED.exists():
        rows = sample_triples(snapshot, SAMPLE)
        JUDGED.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    result["triple_precision"] = precision(JUDGED)
    result["top20_answer_passage"] = retrieval(snapshot)
    (args.out / "summary.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
