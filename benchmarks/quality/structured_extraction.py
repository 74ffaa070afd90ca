"""Invalid output before / after enforcing the schema: LLM extraction of HotpotQA passages.

Asks a served model for the triples of N passages of hotpotqa-dev20 (a seeded sample) three
ways: `tools` (a tool call, ARK's `ark graph extract` default), `prompt` (the JSON asked for in
the prompt, read with lenient repair) and `schema` (agent/models/structured.py: the schema sent
as `response_format`, enforced by the server's grammar). Per way: passages with no usable JSON,
replies read only after repair, passages with no triple, triples per passage, seconds per
passage (p50 / max).

    LLAMA_VENV/bin/python benchmarks/llama_serve.py --model M.gguf --model_alias m \
        --n_ctx 4096 --port 8765 --n_threads 2 &
    nice -n 10 .venv/bin/python -m benchmarks.quality.structured_extraction \
        --base-url http://127.0.0.1:8765/v1 --model m [--passages 20] [--schema reasoning]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from agent.config import AgentConfig
from agent.extract.llm import LLMExtractConfig, LLMExtractor
from agent.extract.schemas import schema_named
from agent.models.registry import load_model
from agent.models.structured import StructuredMode
from graphs.importers.documents.model import Extraction

DATA = Path(__file__).resolve().parents[2] / "docs/examples/hotpotqa-dev20/passages.jsonl"
WAYS = {
    "tools": LLMExtractConfig(concurrency=1),
    "prompt": LLMExtractConfig(concurrency=1, structured=StructuredMode.prompt),
    "schema": LLMExtractConfig(concurrency=1, structured=StructuredMode.auto),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--passages", type=int, default=20)
    parser.add_argument("--schema", default="reasoning")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--ways", default=",".join(WAYS))
    args = parser.parse_args()
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    texts = [row["text"] for row in random.Random(0).sample(rows, args.passages)]
    print(
        "| way | no usable JSON | repaired | no triple | triples / passage "
        "| s / passage p50 (max) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for way in args.ways.split(","):
        config = AgentConfig(
            model=args.model, base_url=args.base_url, max_tokens=args.max_tokens,
            temperature=0.0, request_timeout_s=300, call_deadline_s=600, max_retries=0,
        )  # fmt: skip
        model = load_model(config)
        extractor = LLMExtractor(model, WAYS[way], schema=schema_named(args.schema))
        seconds, results = [], []
        for text in texts:
            began = time.perf_counter()
            results += extractor.extract([text])
            seconds.append(time.perf_counter() - began)
        done = [r for r in results if isinstance(r, Extraction)]
        empty = sum(1 for r in done if not r.triples)
        triples = sum(len(r.triples) for r in done) / len(texts)
        reasons = extractor.stats.reasons
        print(
            f"| {way} | {len(texts) - len(done)} of {len(texts)} | {extractor.stats.repaired} | "
            f"{empty} | {triples:.1f} | {statistics.median(seconds):.1f} ({max(seconds):.1f}) |",
            flush=True,
        )
        if reasons:
            print(f"  reasons: {reasons}; asked as: {extractor.structured.by_mode}", flush=True)


if __name__ == "__main__":
    main()
