"""Zero-shot reranker throughput on CPU: candidates/s by batch size and document length.

Builds the real candidate pools of `ark rerank` (the top `--depth` of a stage-2 ranking,
serialised as GRASP does) for the first `--questions` questions of a split, then times the
`LocalScorer` (no cache) on the same chats at each batch size and document setting. Reports
the mean chat length in tokens, candidates/s of wall time and of process CPU time, and the
largest score difference between batch sizes (padding must not change a score).

    .venv/bin/python -m benchmarks.speed.rerank --source RUN_DIR --qa QA_DIR \
        --model /path/SmolLM2-135M-Instruct.Q4_1.gguf --batch-sizes 1,4,8,16
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from evals.qa.sets import load_qa
from graphs.snapshot import Snapshot
from rank.rankings import read_rankings
from rank.rerank.doc import DocConfig, RerankPrompt
from rank.rerank.models import LocalScorer, chat_text
from rank.rerank.run import RerankRequest, build_pools


def chats_for(args: argparse.Namespace, doc: DocConfig) -> list[list[dict[str, str]]]:
    source = read_rankings(args.source)
    snapshot = Snapshot.open(args.snapshot or source.snapshot)
    request = RerankRequest(source=args.source, qa=args.qa, out=Path("unused"), depth=args.depth,
                            cache=Path("unused"), doc=doc)  # fmt: skip
    items = load_qa(args.qa, args.split)[: args.questions]
    prompt = RerankPrompt.for_snapshot(snapshot)
    pools = build_pools(items, source, snapshot, request)
    return [prompt.messages(p.item.query, d) for p in pools for d in p.documents]


def measure(
    scorer: LocalScorer, chats: list[list[dict[str, str]]]
) -> tuple[float, float, list[float]]:
    wall, cpu = time.perf_counter(), time.process_time()
    scores = scorer.score(chats)
    return time.perf_counter() - wall, time.process_time() - cpu, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", required=True, help="Stage-2 run dir (or JSONL).")
    parser.add_argument("--qa", type=Path, required=True)
    parser.add_argument("--snapshot", type=Path, default=None)
    parser.add_argument("--split", default="test")
    parser.add_argument("--model", required=True)
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--batch-sizes", default="1,4,8,16")
    parser.add_argument("--docs", default="30:3,60:10",
                        help="Document settings WORDS:NEIGHBOURS, comma-separated.")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="Also write the table here.")
    args = parser.parse_args()
    scorer = LocalScorer(args.model, batch_size=1)
    scorer.load()
    load_avg = os.getloadavg()
    lines = [
        f"Command: `{' '.join(sys.argv)}`",
        "",
        f"load average at start {load_avg[0]:.1f}; torch threads "
        f"{__import__('torch').get_num_threads()}",
        "",
        "| doc (words/field, names/relation) | tokens/chat (mean) | batch | candidates | "
        "wall s | CPU s | candidates/s (wall) | candidates/s (CPU) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    record = []
    for setting in args.docs.split(","):
        words, neighbours = (int(part) for part in setting.split(":"))
        chats = chats_for(args, DocConfig(max_field_tokens=words,
                                          max_neighbors_per_relation=neighbours))  # fmt: skip
        texts = [chat_text(scorer.tokenizer, chat) for chat in chats]
        tokens = [len(scorer.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
        mean_tokens = sum(tokens) / len(tokens)
        reference: list[float] | None = None
        for batch in (int(b) for b in args.batch_sizes.split(",")):
            scorer.batch_size = batch
            wall, cpu, scores = measure(scorer, chats)
            drift = max(abs(a - b) for a, b in zip(scores, reference or scores, strict=True))
            reference = reference or scores
            row = {"words": words, "neighbours": neighbours, "tokens": mean_tokens, "batch": batch,
                   "n": len(chats), "wall": wall, "cpu": cpu, "drift": drift}  # fmt: skip
            record.append(row)
            lines.append(
                f"| {words}, {neighbours} | {mean_tokens:.0f} | {batch} | {len(chats)} | "
                f"{wall:.1f} | {cpu:.1f} | {len(chats) / wall:.2f} | {len(chats) / cpu:.2f} |"
            )
            print(json.dumps(row), flush=True)
    lines.append(f"\nlargest score difference between batch sizes: "
                 f"{max(r['drift'] for r in record):.2e}")  # fmt: skip
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
