"""Incremental document updates: add one document to a ~1,000-passage graph vs a full rebuild.

Builds a synthetic corpus (deterministic: people, places and organisations in plain
sentences), then times, each in this process with wall and CPU seconds:

- cold: the full build with an empty extraction cache (every passage extracted);
- rebuild: the full build of the corpus plus one document, the cache warm (a plain
  `ark graph extract` rerun: only the new document's passages are extracted);
- update: `--update` adding the same document to the built snapshot (extraction of the new
  passages, then the graph rebuilt from cached extractions and swapped in);
- delete: `--update` after removing that document; the snapshot is then checked for orphans
  (an entity no passage mentions, a fact or passage of the removed document).

    .venv/bin/python -m benchmarks.speed.document_update --documents 250 --extractor spacy
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from graphs.importers.documents.build import build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.update import update_document_snapshot

FIRST = ["Ada", "Alan", "Grace", "Claude", "Edsger", "Barbara", "Donald", "Frances", "John",
         "Margaret", "Tim", "Radia", "Ken", "Dennis", "Niklaus", "Leslie", "Shafi",
         "Judea"]  # fmt: skip
LAST = ["Lovelace", "Turing", "Hopper", "Shannon", "Dijkstra", "Liskov", "Knuth", "Allen",
        "McCarthy", "Hamilton", "Lee", "Perlman", "Thompson", "Ritchie", "Wirth", "Lamport",
        "Goldwasser", "Pearl"]  # fmt: skip
PLACES = ["London", "Paris", "Zurich", "Boston", "Berkeley", "Cambridge", "Princeton", "Austin"]
ORGS = ["Bell Labs", "IBM", "MIT", "Stanford University", "Xerox PARC", "ETH Zurich", "Google"]
VERBS = ["met", "worked with", "wrote to", "studied under", "published with", "visited"]


def sentence(rng: random.Random) -> str:
    a = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    b = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    return (f"In {rng.randint(1940, 2020)}, {a} {rng.choice(VERBS)} {b} at "
            f"{rng.choice(ORGS)} in {rng.choice(PLACES)}.")  # fmt: skip


def write_corpus(folder: Path, documents: int, sentences: int, seed: int) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(documents):
        text = " ".join(sentence(rng) for _ in range(sentences))
        (folder / f"doc-{number:04d}.txt").write_text(f"Notes {number}\n\n{text}\n")


def timed(work: Callable[[], Any]) -> tuple[dict[str, float], Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return {"wall_s": round(time.perf_counter() - wall, 2),
            "cpu_s": round(time.process_time() - cpu, 2)}, result  # fmt: skip


def orphans(snapshot: Path, removed: str) -> dict[str, int]:
    nodes = pq.read_table(snapshot / "nodes.parquet", columns=["id", "type"]).to_pydict()
    edges = pq.read_table(snapshot / "edges.parquet").to_pydict()
    mentioned = {s for s, r in zip(edges["src"], edges["relation"], strict=True)
                 if r == "mentioned_in"}  # fmt: skip
    entities = [i for i in nodes["id"] if i.startswith("entity:")]
    return {
        "entities_unmentioned": sum(1 for i in entities if i not in mentioned),
        "nodes_of_removed_document": sum(1 for i in nodes["id"] if removed in i),
    }


def extractor_named(name: str) -> Any:
    if name == "spacy":
        from graphs.importers.documents.spacy_extractor import SpacyExtractor

        return SpacyExtractor()
    raise SystemExit(f"unknown --extractor {name}")


def update(corpus: Path, out: Path, cache_file: Path, extractor: Any) -> dict[str, Any]:
    with ExtractionCache(cache_file) as cache:
        times, summary = timed(
            lambda: update_document_snapshot([corpus], out, extractor=extractor, cache=cache)
        )
    return times | {"extracted": summary.extracted, **summary.update["counts"]}


def run(work: Path, args: argparse.Namespace) -> dict[str, Any]:
    corpus, extra = work / "corpus", work / "extra"
    write_corpus(corpus, args.documents, args.sentences, args.seed)
    write_corpus(extra, 1, args.sentences, args.seed + 1)
    with (extra / "doc-0000.txt").open("a") as handle:  # names only this document has
        handle.write("In 1999, Zelda Quintessa met Orlando Vexley at Acme Labs in Lisbon.\n")
    new_doc = corpus / "new-document.txt"
    extractor = extractor_named(args.extractor)
    results: dict[str, Any] = {"documents": args.documents, "extractor": args.extractor}
    with ExtractionCache(work / "cache.sqlite") as cache:
        results["cold"], first = timed(
            lambda: build_document_snapshot(
                [corpus], work / "snap", extractor=extractor, cache=cache
            )
        )
    results["passages"] = first.passages
    # the rebuild and the update each start from the cache the first build left
    shutil.copyfile(work / "cache.sqlite", work / "cache-update.sqlite")
    shutil.copyfile(extra / "doc-0000.txt", new_doc)
    with ExtractionCache(work / "cache.sqlite") as cache:
        results["rebuild"], rebuilt = timed(
            lambda: build_document_snapshot(
                [corpus], work / "full", extractor=extractor, cache=cache
            )
        )
    results["rebuild"]["extracted"] = rebuilt.extracted
    shutil.copytree(work / "snap", work / "updated")
    results["update"] = update(corpus, work / "updated", work / "cache-update.sqlite", extractor)
    new_doc.unlink()
    results["delete"] = update(corpus, work / "updated", work / "cache-update.sqlite", extractor)
    results["orphans_after_delete"] = orphans(work / "updated", "new-document.txt")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--documents", type=int, default=250)
    parser.add_argument("--sentences", type=int, default=45, help="Sentences per document.")
    parser.add_argument("--extractor", default="spacy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ark-update-bench-"))
    try:
        print(json.dumps(run(work, args), indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
