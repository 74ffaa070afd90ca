"""The generic link-and-expand reference: a reference row for the per-family benchmarks.

The method of the issue "Relational retrieval that holds on graphs nobody tuned it on", with
no wording rules: link every node name that occurs verbatim in the question (longest match
first, every homonym kept, homonyms ordered by the question's BM25), take the whole
neighbourhood of each linked node (every relation, both directions), rank what is reached by
how many linked nodes reach it, then by the BM25 of the question's words outside the linked
spans, and fill to k with plain BM25 of the whole question. Every listed node is of the
snapshot's candidate types. It writes a run directory like `ark baseline bm25` (evals.runs.runner),
so `ark eval report` and `evals.summary.summarize_run` read it.

    .venv/bin/python -m benchmarks.quality.generic_reference SNAPSHOT --qa QA --split test \
        --out RUN_DIR
"""

from __future__ import annotations

import argparse
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agent.trajectory import QuestionResult
from evals.metrics import OVERALL, PROTOCOL_TITLES, PROTOCOLS
from evals.runs.outcomes import OutcomeHandler
from evals.runs.request import RunRequest
from evals.runs.runner import RunPlan, StartHandler, execute
from evals.summary import RunSummary, summarize_run
from graphs.snapshot import Snapshot
from rank.baselines.bm25 import DEFAULT_K

if TYPE_CHECKING:
    from agent.events import EventHandler

logger = logging.getLogger(__name__)

METHOD = "generic-reference"
MIN_WORD_CHARS = 3
"""A name made only of stopwords and words shorter than this is never linked."""
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, split on every character that is not alphanumeric."""
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class Link:
    """One linked span of the question: words [start, stop) and the nodes bearing that name.

    Attributes:
        start: First word of the span.
        stop: One past its last word.
        nodes: Internal ids of every node with this name, best BM25 for the question first.
    """

    start: int
    stop: int
    nodes: tuple[int, ...]


@dataclass(frozen=True)
class Linking:
    """The question's words and its linked spans, in question order."""

    words: list[str]
    links: list[Link]

    @property
    def nodes(self) -> list[int]:
        """Distinct linked nodes, span by span, homonyms in their BM25 order."""
        return list(dict.fromkeys(node for link in self.links for node in link.nodes))

    @property
    def remaining(self) -> str:
        """The question without the words of its linked spans."""
        inside = {i for link in self.links for i in range(link.start, link.stop)}
        return " ".join(word for i, word in enumerate(self.words) if i not in inside)


class NameLinker:
    """Finds node names verbatim in a question; the name lookup is built once per snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.index = snapshot.index
        names = snapshot.labels(np.arange(snapshot.num_nodes, dtype=np.int64))[1]
        informative: dict[str, bool] = {}
        self.by_name: dict[tuple[str, ...], list[int]] = {}
        for node, name in enumerate(names):
            key = tuple(words(name))
            known = self.by_name.get(key)
            if known is not None:
                known.append(node)
                continue
            for word in key:
                if word not in informative:
                    informative[word] = len(word) >= MIN_WORD_CHARS and bool(
                        self.index.tokenize(word)
                    )
            if any(informative[word] for word in key):
                self.by_name[key] = [node]
        self.longest = max(map(len, self.by_name), default=0)

    def link(self, question: str) -> Linking:
        """Link the longest names first; a match inside an already linked span is skipped."""
        tokens = words(question)
        links: list[Link] = []
        for length in range(min(self.longest, len(tokens)), 0, -1):
            for start in range(len(tokens) - length + 1):
                stop = start + length
                nodes = self.by_name.get(tuple(tokens[start:stop]))
                if nodes is None or any(
                    link.start <= start and stop <= link.stop for link in links
                ):
                    continue
                links.append(Link(start, stop, self._by_score(question, nodes)))
        return Linking(tokens, sorted(links, key=lambda link: link.start))

    def _by_score(self, question: str, nodes: list[int]) -> tuple[int, ...]:
        ids = np.asarray(nodes, dtype=np.int64)
        scores = self.index.score_nodes(question, ids)
        return tuple(ids[np.lexsort((ids, -scores))].tolist())


@dataclass(frozen=True)
class Ranking:
    """One question's answer: the linking, the expanded nodes and the final list (internal)."""

    linking: Linking
    expanded: list[int]
    nodes: list[int]


class GenericReference:
    """Answers like an agent (`ask`): link, expand, rank by agreement, fill with BM25."""

    def __init__(self, snapshot: Snapshot, k: int = DEFAULT_K) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.snapshot = snapshot
        self.k = k
        started = time.perf_counter()
        self.linker = NameLinker(snapshot)
        logger.info(
            "name lookup: %d names in %.2f s",
            len(self.linker.by_name),
            time.perf_counter() - started,
        )
        types = snapshot.manifest.candidate_types
        self.candidate_codes = [snapshot.type_code(name) for name in types] or None

    def rank(self, question: str) -> Ranking:
        """The ranked internal ids for `question` (at most k), with how they were found."""
        linking = self.linker.link(question)
        expanded = self.expand(linking)[: self.k]
        listed = set(expanded)
        hits, _ = self.snapshot.index.search(question, self.k, node_types=self.candidate_codes)
        fill = [node for node in hits.tolist() if node not in listed]
        return Ranking(linking, expanded, expanded + fill[: self.k - len(expanded)])

    def expand(self, linking: Linking) -> list[int]:
        """Candidates around the linked nodes: most linked nodes reaching them first."""
        linked = linking.nodes
        if not linked:
            return []
        reached = [
            np.unique(self.snapshot.neighbors(node, node_types=self.candidate_codes).nodes)
            for node in linked
        ]
        nodes, agreement = np.unique(np.concatenate(reached), return_counts=True)
        keep = ~np.isin(nodes, linked)
        nodes, agreement = nodes[keep], agreement[keep]
        scores = self.snapshot.index.score_nodes(linking.remaining, nodes)
        return nodes[np.lexsort((nodes, -scores, -agreement))].tolist()

    async def ask(
        self,
        question: str,
        *,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> QuestionResult:
        """The ranking as a QuestionResult; its config records the linked spans."""
        started = time.perf_counter()
        ranking = self.rank(question)
        external = self.snapshot.external_id
        linking = ranking.linking
        config: dict[str, Any] = {
            "method": METHOD,
            "k": self.k,
            "linked": [
                {
                    "span": " ".join(linking.words[link.start : link.stop]),
                    "nodes": [external(node) for node in link.nodes],
                }
                for link in linking.links
            ],
            "expanded": len(ranking.expanded),
        }
        return QuestionResult(
            question_id=question_id,
            question=question,
            model=METHOD,
            config=config,
            fused=[external(node) for node in ranking.nodes],
            wall_s=time.perf_counter() - started,
        )


def run_generic_reference(
    request: RunRequest,
    *,
    k: int = DEFAULT_K,
    on_start: StartHandler | None = None,
    on_outcome: OutcomeHandler | None = None,
) -> RunPlan:
    """Answer the questions of `request` into `request.out`, as `rank.baselines.bm25.run_baseline`.

    Raises:
        RunStoreError, GraphError, QAError: as `evals.runs.runner.execute`.
    """
    return execute(
        request,
        config=request.run_config({"baseline": {"method": METHOD, "k": k}}),
        make_asker=lambda snapshot: GenericReference(snapshot, k),
        on_start=on_start,
        on_outcome=on_outcome,
    )


def hit_at_1_table(summary: RunSummary) -> str:
    """Markdown: questions and Hit@1 per family, one column per protocol."""
    titles = [f"Hit@1 {PROTOCOL_TITLES[p]}" for p in PROTOCOLS]
    lines = ["| family | n | " + " | ".join(titles) + " |", "|---|---:|" + "---:|" * len(titles)]
    families = [*sorted(name for name in summary.groups if name != OVERALL), OVERALL]
    for name in families:
        group = summary.groups[name]
        means = group.means()
        cells = " | ".join(f"{means[p]['hit@1']:.3f}" for p in PROTOCOLS)
        lines.append(f"| {name} | {group.total} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--qa", type=Path, required=True, help="Question file or directory.")
    parser.add_argument("--split", default=None, help="train, val, test or all.")
    parser.add_argument("--out", type=Path, required=True, help="Run directory to write.")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="Nodes kept per question.")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N questions.")
    parser.add_argument("--resume", action="store_true", help="Continue a run in --out.")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    request = RunRequest(
        snapshot=args.snapshot,
        qa=args.qa,
        out=args.out,
        split=args.split,
        limit=args.limit,
        concurrency=1,
        resume=args.resume,
    )
    started = time.perf_counter()
    plan = run_generic_reference(request, k=args.k)
    elapsed = time.perf_counter() - started
    summary = summarize_run(args.out)
    print(hit_at_1_table(summary))
    latency = summary.latency()
    print(
        f"\n{len(plan.pending)} questions run in {elapsed:.2f} s (snapshot and name lookup "
        f"included); per question mean {latency['mean'] * 1000:.2f} ms, "
        f"p95 {latency['p95'] * 1000:.2f} ms; run in {args.out}"
    )


if __name__ == "__main__":
    main()
