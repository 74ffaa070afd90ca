"""Per-question extraction (SARG Sec. 3.2): the query graph read from the retrieved passages.

The paper builds G_D at question time: an LLM extracts ⟨cause, relation, effect⟩ triples
from each retrieved passage under its reasoning schema (Eq. 1), and references to the same
concept across passages are resolved into one node (Eq. 2). Here the extractor is
`agent.extract.llm.LLMExtractor` with the chosen schema, each passage's extraction is cached
by (passage text, schema, model, prompt version) in the extraction cache shared with
`ark graph extract`, and concepts are resolved by their normalised wording.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from answer.query_graph import Passage, QueryGraph, Triple
from graphs.importers.documents.cache import CacheKey, ExtractionCache
from graphs.importers.documents.model import Extraction

if TYPE_CHECKING:
    from agent.extract.llm import LLMExtractor
    from answer.pipeline import EvidenceSource
    from graphs.snapshot import Snapshot

_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


def concept_key(name: str) -> str:
    """The resolved node of a surface form: case, spacing and a leading article ignored."""
    text = " ".join(name.casefold().split())
    return _ARTICLE.sub("", text) or text


class PerQuerySource:
    """Evidence whose query graph an LLM extracts from the retrieved passages, per question."""

    def __init__(
        self, base: EvidenceSource, extractor: LLMExtractor, cache: ExtractionCache | None
    ) -> None:
        """Wire the stages.

        Args:
            base: Gives the retrieved passages (a document snapshot or a typed KG's texts).
            extractor: The LLM extractor, with the schema to extract under.
            cache: Where extractions are kept (None: extract every time).
        """
        self.base = base
        self.snapshot: Snapshot = base.snapshot
        self.extractor = extractor
        self.cache = cache
        self.key = CacheKey(extractor.name, extractor.model, extractor.prompt_version)

    def passages(self, retrieved: Sequence[int]) -> list[Passage]:
        """The base source's passages."""
        return self.base.passages(retrieved)

    async def query_graph(self, retrieved: Sequence[int], question: str) -> QueryGraph:
        """G_D from the triples extracted out of each retrieved passage (cached ones reused).

        Raises:
            ExtractorDownError: the endpoint could not be reached for several passages in a row.
        """
        passages = [p for p in self.passages(retrieved) if p.text.strip()]
        digests = [hashlib.sha256(p.text.encode("utf-8")).hexdigest() for p in passages]
        found = self.cache.get_many(digests, self.key) if self.cache is not None else {}
        cached = len(found)
        missing = list(dict.fromkeys(d for d in digests if d not in found))
        texts = {d: p.text for p, d in zip(passages, digests, strict=True)}
        failed = 0
        modes_before = dict(self.extractor.structured.by_mode)
        reasons_before = dict(self.extractor.stats.reasons)
        if missing:
            stats = self.extractor.stats
            repaired_before = stats.repaired
            results = await self.extractor.extract_async([texts[d] for d in missing])
            new = {d: r for d, r in zip(missing, results, strict=True) if isinstance(r, Extraction)}
            failed = len(missing) - len(new)
            if self.cache is not None and new:
                self.cache.put_many(new, self.key)
            found.update(new)
            repaired = stats.repaired - repaired_before
        else:
            repaired = 0
        triples: list[Triple] = []
        labels: dict[str, str] = {}
        for passage, digest in zip(passages, digests, strict=True):
            extraction = found.get(digest)
            for fact in extraction.triples if extraction is not None else ():
                head, tail = concept_key(fact.subject), concept_key(fact.object)
                labels.setdefault(head, fact.subject)
                labels.setdefault(tail, fact.object)
                triples.append(Triple(head, fact.relation, tail, (passage.id,)))
        built: dict[str, Any] = {
            "mode": "per-query",
            "schema": self.extractor.schema.name,
            "model": self.extractor.model,
            "passages": len(passages),
            "cached": cached,
            "extracted": len(missing) - failed,
            "failed": failed,
            "repaired": repaired,
            "failures": _grown(reasons_before, self.extractor.stats.reasons),
            "asked_as": _grown(modes_before, self.extractor.structured.by_mode),
        }
        sources = {p.id: p.text for p in passages}
        return QueryGraph(triples, labels=labels, sources=sources, built=built)


def _grown(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """The counts that grew since `before` (this question's share of running totals)."""
    return {key: n - before.get(key, 0) for key, n in after.items() if n > before.get(key, 0)}
