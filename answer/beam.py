"""Semantic beam search over a query graph (SARG Sec. 3.5–3.6): Eq. 5 scores, dedup, top K."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from answer.query_graph import Direction, Hop, QueryGraph


@dataclass(frozen=True)
class Chain:
    """A reasoning chain [v1, ..., vL]: an entry node and the hops taken from it.

    Attributes:
        start: The entry node v1 (the anchor; not part of the score).
        hops: The hops v1 -> v2 -> ... in order.
        score: S_t of Eq. 5: the running average of sim(q, v) over v2..vL.
    """

    start: str
    hops: tuple[Hop, ...] = ()
    score: float = 0.0

    @property
    def nodes(self) -> tuple[str, ...]:
        """v1..vL."""
        return (self.start, *(hop.target for hop in self.hops))

    @property
    def end(self) -> str:
        """vL, the node the chain arrives at."""
        return self.hops[-1].target if self.hops else self.start

    def extend(self, hop: Hop, similarity: float) -> Chain:
        """The chain one hop longer, scored by Eq. 5 (t counts the nodes after the start)."""
        t = len(self.hops) + 1
        return Chain(self.start, (*self.hops, hop), (self.score * (t - 1) + similarity) / t)

    def sources(self) -> list[str]:
        """Ids of the evidence behind the chain's triples, in chain order, each once."""
        return list(dict.fromkeys(s for hop in self.hops for s in hop.triple.sources))


@dataclass(frozen=True)
class BeamResult:
    """What the search found.

    Attributes:
        chains: The top K chains after deduplication and sub-path pruning, best first.
        finished: Every chain the search finished (dead end or depth cap), before filtering.
        expanded: Nodes whose hops were enumerated (the search effort, Table 7 of the paper).
    """

    chains: list[Chain]
    finished: list[Chain]
    expanded: int


def _rank_key(chain: Chain) -> tuple[float, int, tuple[str, ...]]:
    return (-chain.score, -len(chain.hops), chain.nodes)


def beam_search(
    graph: QueryGraph,
    starts: Iterable[str],
    similarity: Mapping[str, float],
    *,
    direction: Direction,
    beam_width: int = 3,
    top_k: int = 3,
    max_depth: int = 4,
    per_entry: bool = True,
) -> BeamResult:
    """Find the top-K chains from the entry nodes (SARG Sec. 3.5, Eq. 5; Sec. 3.6).

    Every entry node starts a chain. At each depth each live chain is extended by every hop
    allowed by `direction` to a node not yet on it; a chain with no such hop has reached a
    dead end and is finished. Of all extensions, the `beam_width` best by Eq. 5 stay live.
    Chains still live after `max_depth` hops are finished too. Finished chains are then
    deduplicated, chains that are sub-paths of longer chains scoring at least as high are
    dropped, and the `top_k` best remain. A chain is at least one hop long.

    Args:
        graph: The query graph.
        starts: Entry nodes (Eq. 3), best first; unknown keys are ignored.
        similarity: sim(e_q, e_v) for every node of the graph.
        direction: Which hops to follow.
        beam_width: β.
        top_k: K.
        max_depth: Hops after the start node at most.
        per_entry: Each entry node keeps its own beam of β chains (True), or all entry nodes
            share one beam of β (False). The paper does not say which; one shared beam lets
            the entry whose neighbourhood resembles the question most crowd out the rest.
    """
    entries = [start for start in dict.fromkeys(starts) if start in graph.labels]
    groups = [[start] for start in entries] if per_entry else [entries]
    finished: list[Chain] = []
    expanded = 0
    for group in groups:
        found, effort = _search(graph, group, similarity, direction, beam_width, max_depth)
        finished += found
        expanded += effort
    return BeamResult(select_chains(finished, top_k), finished, expanded)


def _search(
    graph: QueryGraph,
    starts: list[str],
    similarity: Mapping[str, float],
    direction: Direction,
    beam_width: int,
    max_depth: int,
) -> tuple[list[Chain], int]:
    """One beam from `starts`: the finished chains and the number of nodes expanded."""
    live = [Chain(start) for start in starts]
    finished: list[Chain] = []
    expanded = 0
    for _ in range(max_depth):
        candidates: list[Chain] = []
        for chain in live:
            expanded += 1
            on_chain = set(chain.nodes)
            grown = [
                chain.extend(hop, similarity[hop.target])
                for hop in graph.hops(chain.end, direction)
                if hop.target not in on_chain
            ]
            if not grown and chain.hops:
                finished.append(chain)
            candidates += grown
        live = sorted(candidates, key=_rank_key)[:beam_width]
        if not live:
            break
    return finished + live, expanded


def select_chains(chains: Sequence[Chain], top_k: int) -> list[Chain]:
    """Drop exact duplicates and sub-paths of longer, at-least-as-good chains; keep the top K.

    Two chains are duplicates when they visit the same nodes in the same order (the better
    one stays). A chain is a sub-path of another when its node sequence occurs contiguously
    in the other's (e.g. A→B inside A→B→C).
    """
    best: dict[tuple[str, ...], Chain] = {}
    for chain in sorted(chains, key=_rank_key):
        best.setdefault(chain.nodes, chain)
    unique = list(best.values())
    kept = [
        chain
        for chain in unique
        if not any(
            len(other.hops) > len(chain.hops)
            and other.score >= chain.score
            and _contains(other.nodes, chain.nodes)
            for other in unique
        )
    ]
    return kept[:top_k]


def _contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    width = len(shorter)
    return any(longer[i : i + width] == shorter for i in range(len(longer) - width + 1))
