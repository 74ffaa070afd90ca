"""`ark graph extract --extractor llm` through a served model on the first N hotpotqa passages.

Start a server first (see README "Bring documents"), e.g. llama-cpp-python with SmolLM2-135M:
    python -m llama_cpp.server --model SmolLM2-135M-Instruct.Q4_1.gguf --model_alias smollm2 \
        --chat_format chatml-function-calling --n_ctx 4096 --host 127.0.0.1 --port 8765
Run: nice -n 10 .venv/bin/python -m benchmarks.quality.documents_llm \
        --base-url http://127.0.0.1:8765/v1 --model smollm2 --passages 20
Prints requests, failures by reason, repaired replies, triples and seconds per passage.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any

from agent.extract.llm import LLMExtractConfig, LLMExtractor
from agent.models.openai import OpenAIChatModel
from graphs.build.options import BuildOptions
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache

DATA = Path(__file__).resolve().parents[2] / "docs/examples/hotpotqa-dev20/passages.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--passages", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--no-tools", action="store_true")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/ark-bench-documents-llm"))
    args = parser.parse_args()
    shutil.rmtree(args.out / "snap", ignore_errors=True)  # the cache stays: a rerun resumes
    args.out.mkdir(parents=True, exist_ok=True)
    subset = args.out / "passages.jsonl"
    lines = DATA.read_text().splitlines()[: args.passages]
    subset.write_text("\n".join(lines) + "\n")
    model = OpenAIChatModel(
        args.model, base_url=args.base_url, max_tokens=args.max_tokens, timeout_s=args.timeout
    )
    extractor = LLMExtractor(
        model, LLMExtractConfig(concurrency=args.concurrency, use_tools=not args.no_tools)
    )
    started = time.perf_counter()
    with ExtractionCache(args.out / "cache.sqlite") as cache:
        summary = build_document_snapshot(
            [subset],
            args.out / "snap",
            extractor=extractor,
            cache=cache,
            config=DocumentBuildConfig(options=BuildOptions(overwrite=True)),
        )
    wall = time.perf_counter() - started
    result: dict[str, Any] = {
        "model": args.model,
        "tools": not args.no_tools,
        "passages": summary.passages,
        "cache_hits": summary.cache_hits,
        "requests": extractor.stats.requests,
        "extracted": summary.extracted,
        "failed": summary.failed,
        "failures": summary.failures,
        "repaired": summary.repaired,
        "mentions": summary.mentions,
        "triples": summary.triples,
        "entities": summary.entities,
        "prompt_tokens": extractor.stats.prompt_tokens,
        "completion_tokens": extractor.stats.completion_tokens,
        "extract_s": summary.seconds["extract"],
        "s_per_passage": round(summary.seconds["extract"] / max(summary.passages, 1), 2),
        "wall_s": round(wall, 1),
    }
    (args.out / "summary.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
