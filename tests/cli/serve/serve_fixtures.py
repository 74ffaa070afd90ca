"""Shared pieces of the `ark serve` tests: the demo graph, a document snapshot, test parts."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.config import AgentConfig
from agent.factory import make_agent
from answer.config import SargConfig
from answer.factory import make_answerer
from cli.serve.context import ServeContext
from cli.serve.state import GraphRegistry, ServeDeps, ServeOptions
from graphs.build.options import BuildOptions
from graphs.importers.documents.cache import ExtractionCache, default_cache_path
from graphs.importers.documents.model import Extraction, ExtractionFailure, Mention, Triple
from graphs.importers.documents.update import update_document_snapshot
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate

DOCS = {
    "ada.txt": "Ada Lovelace wrote notes on the Analytical Engine with Charles Babbage.",
    "grace.txt": "Grace Hopper built the Mark computer at Harvard.",
}


class WordExtractor:
    """Capitalised words are people; consecutive names in a passage know each other."""

    name, model, prompt_version, batch_size = "words", "words", "1", 8

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        out: list[Extraction | ExtractionFailure] = []
        for text in texts:
            names = [w for w in re.findall(r"[A-Z][a-z]+", text)]
            triples = tuple(
                Triple(a, "person", "knows", b, "person", 0, text)
                for a, b in itertools.pairwise(names)
            )
            out.append(Extraction(tuple(Mention(n, "person") for n in names), triples))
        return out


class QuestionWords:
    """Key phrases: the question's capitalised words, then its longer words."""

    def extract(self, question: str, top_n: int) -> list[str]:
        words = re.findall(r"\w+", question)
        ranked = [w for w in words if w[:1].isupper()] + [w for w in words if len(w) > 4]
        return list(dict.fromkeys(ranked))[:top_n]


class SlowModel:
    """A model whose every turn takes a minute: a run is still going when it is cancelled."""

    name = "slow"

    async def generate(self, messages: Any, tools: Any, **_: Any) -> Any:
        await asyncio.sleep(60)
        raise AssertionError("a slow run should have been cancelled")


def demo_graph(root: Path) -> Path:
    """The `ark demo` graph (products, seed 0)."""
    path = root / "graph-products-seed0"
    generate("products", 0, path, options=BuildOptions(overwrite=True))
    return path


def document_snapshot(root: Path) -> Path:
    """A two-document snapshot built by WordExtractor."""
    folder = root / "notes-src"
    folder.mkdir(parents=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    with ExtractionCache(default_cache_path()) as cache:
        update_document_snapshot([folder.resolve()], root / "notes", extractor=WordExtractor(),
                                 cache=cache)  # fmt: skip
    return root / "notes"


def agent_factory(snapshot: Snapshot, config: AgentConfig) -> Any:
    """make_agent, with the model `slow` standing for a model that never answers in time."""
    if config.model == "slow":
        return make_agent(snapshot, config, model=SlowModel())
    return make_agent(snapshot, config)


def make_context(demo: Path, notes: Path, work: Path, encoder: Any) -> ServeContext:
    """A server context over the demo graph and the document snapshot, with test parts."""

    def answerer(snapshot: Snapshot, config: SargConfig, model: str | None) -> Any:
        return make_answerer(snapshot, config, encoder=encoder, keyphrases=QuestionWords())

    deps = ServeDeps(answerer=answerer, extractor=WordExtractor, agent=agent_factory)
    options = ServeOptions(
        runs_dir=work / "runs", uploads_dir=work / "uploads", doc_roots=(work / "roots",),
        max_body_bytes=64 * 1024, max_upload_bytes=256 * 1024,
    )  # fmt: skip
    graphs = GraphRegistry.open([("demo", demo), ("notes", notes)])
    return ServeContext(graphs, options, deps)
