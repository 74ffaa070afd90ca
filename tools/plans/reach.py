"""The one ranking rule for nodes reached through the graph, and the paths that reached them.

The rule agent (agent/models/rules/) and the plan executor (tools/plans/execute.py) both
fill a `Reach` with what each anchor's walk reached and rank it here, so a reached set is
ordered the same way by both. In order:

1. agreement: how many anchors reach the node (several anchors: their intersection first);
2. on the question's path: reached along the relation the question names (2 when also in the
   direction its wording gives, 1 in the other, 0 through another relation);
3. the question's remaining words: the node's best BM25 score for the question without the
   words naming the anchor that reached it;
4. the anchors' relevance: the sum of the agreeing anchors' name scores;
5. first reached.

The reached nodes come before the search ranking when the question's words describe a
path (a relation it names was walked, or anchors agree); otherwise only when a reached node's
strength, its remaining-words score plus the name scores of the anchors that reach it (the
path stands for the words naming the anchors), is at least the best search score of a hit
that is not an anchor: else the question is answered better by text than by any path
(`graph_first`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    """One edge of a path as walked from the anchor: its relation and direction."""

    relation: str
    forward: bool
    """True: the edge points away from the anchor's side (`a -[r]-> b`)."""


@dataclass
class Reached:
    """What is known of one reached node."""

    name: str
    type: str
    order: int
    anchors: dict[str, float] = field(default_factory=dict)
    """Anchor variable -> its name score."""
    on_path: int = 0
    relevance: float = 0.0
    path: str = ""
    """The path that reached it first, written out (the reason shown to the user)."""

    def key(self) -> tuple[float, ...]:
        """The ranking key (smaller first), see the module doc."""
        return (
            -len(self.anchors),
            -self.on_path,
            -self.relevance,
            -sum(self.anchors.values()),
            self.order,
        )

    @property
    def strength(self) -> float:
        """Remaining-words score plus the agreeing anchors' name scores."""
        return self.relevance + sum(self.anchors.values())


@dataclass
class Reach:
    """The nodes the anchors' walks reached, by external id."""

    nodes: dict[str, Reached] = field(default_factory=dict)

    def add(
        self,
        node_id: str,
        *,
        name: str,
        type: str,
        anchor: str,
        name_score: float,
        relevance: float,
        on_path: int,
        path: str,
    ) -> None:
        """Record that the walk from `anchor` reached `node_id` (keeps the best of each)."""
        node = self.nodes.get(node_id)
        if node is None:
            node = self.nodes[node_id] = Reached(name, type, len(self.nodes), path=path)
        node.anchors[anchor] = max(node.anchors.get(anchor, 0.0), name_score)
        if on_path > node.on_path:
            node.on_path, node.path = on_path, path
        node.relevance = max(node.relevance, relevance)

    def ranking(self) -> list[str]:
        """Reached ids, best first (the module doc's rule)."""
        return sorted(self.nodes, key=lambda node_id: self.nodes[node_id].key())

    def strength(self) -> float:
        """The best strength of any reached node (0 when none)."""
        return max((node.strength for node in self.nodes.values()), default=0.0)

    def reasons(self) -> dict[str, str]:
        """Each reached node's path, as its reason."""
        return {node_id: node.path for node_id, node in self.nodes.items() if node.path}


def graph_first(reach: Reach, text_best: float | None) -> bool:
    """Whether the reached nodes rank before the search hits (see the module doc).

    They do when the question's own words describe a path: a reached node lies on a
    relation the question names, or several anchors agree on it. Otherwise when its
    strength is at least the best search score of a hit that is not an anchor.

    Args:
        reach: What the walks reached.
        text_best: The best search score of a hit that is not an anchor (None: no such hit).
    """
    if not reach.nodes:
        return False
    if any(node.on_path or len(node.anchors) > 1 for node in reach.nodes.values()):
        return True
    return text_best is None or reach.strength() >= text_best


def arrow(relation: str, *, forward: bool) -> str:
    """`-[r]->` for an edge walked forward, `<-[r]-` for one walked against its direction."""
    return f"-[{relation}]->" if forward else f"<-[{relation}]-"


def path_text(names: list[str], steps: list[Step]) -> str:
    """`spacy -[requires]-> requests`: the nodes along a path and the edges between them."""
    parts = [names[0]]
    for step, name in zip(steps, names[1:], strict=True):
        parts += [arrow(step.relation, forward=step.forward), name]
    return " ".join(parts)
