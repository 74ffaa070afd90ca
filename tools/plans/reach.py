"""The one ranking rule for nodes reached through the graph, and the paths that reached them.

The rule agent (agent/models/rules/) and the plan executor (tools/plans/execute.py) both
fill a `Reach` with what each anchor's walk reached and rank it here, so a reached set is
ordered the same way by both. In order:

1. agreement: how many anchors reach the node (several anchors: their intersection first),
   loose anchors not counted, so a node only loose anchors reach comes after every node a
   name linked with confidence reaches; then, among nodes as many anchors agree on, the
   node a loose anchor names (its best) comes last: the question uses its name as words, not
   to ask for it ("music terms for a note that's described as the third of a scale":
   `mediant`, not the `scale` both `music` and `note` reach);
2. on the question's path: reached along the relation the question names (2 when also in the
   direction its wording gives, 1 in the other, 0 through another relation);
3. the question's remaining words: the node's best BM25 score for the question without the
   words naming the anchor that reached it (in the listings of anchors that are not loose,
   when one reached it: a loose anchor's listing is ranked by words its own texts hold);
4. a name written whole with its disambiguator: reached from an anchor the question writes
   as `dog (canine)`, certain of its node, rather than from names a word may stand for (a
   tie-break among nodes the remaining words score alike: a whole neighbour set of
   `ballet (stage dancing)` before the nodes an anchor "List" reaches); only the rule agent
   knows how the question wrote a name (the executor's plan names its anchors' nodes);
5. the anchors' relevance: the sum of the scores of the anchors that reached it (the
   question's BM25 score of each; in the executor, its binding score): "List every country
   that the Danube flows through" ranks what `Danube` reaches before what the word
   "country" reaches;
6. the named node's own kind: a node of the type of an anchor that reached it first (a
   question naming no relation nor type asks about things like what it names: "Projectile
   vomiting is a more specific kind of which symptom?" wants the phenotype `Vomiting`, not
   the genes linked to it; "What should not be combined with X?" a drug's fellow drugs);
7. first reached.

The reached nodes come before the search ranking when anchors agree on one (and none is
loose: its words mostly used away from it in the graph's text, tools/mentions.py), or when
no search hit that rivals the anchors (named like them, or for a loose anchor among the
whole question's leading hits; not reached) matches the question's remaining words clearly
better (by `TEXT_MARGIN`) than a reached node does: both scored by BM25 for the same words,
the question without the anchors' names and the schema's words. Otherwise the
question is answered better by text than by any path (`graph_first`). `Reached.strength`
(remaining words plus the agreeing anchors' scores) is a reached node's score on the
scale of a search score.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

TEXT_MARGIN = 1.1
"""How much better a rival search hit must match the question's remaining words than every
reached node for the text to win. Measured on the development graphs
(benchmarks/studies/text_guard.py, BENCHMARKS.md "Relational retrieval on graphs nobody tuned
it on"): where only one side was right, the rivals that were the answer scored 1.18x to 14x
the best reached node, and the reached nodes that were right were within 1.00-1.06x of the
rival (the same words in documents of about the same length)."""
MAX_INTERMEDIATES = 20
"""Nodes an intermediate hop of a walk keeps (the best by the remaining words): the rule
agent's neighbors k there (the paper toolset's fixed k), and the executor's cut alike."""
IN_DIRECTION = 2
"""A path's share of the question's path when every hop naming a relation goes along it in
its direction (`path_on`; 1: along it the other way, 0: along another relation)."""


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
    """Anchor variable -> its score (see `anchor_score` of `Reach.add`)."""
    on_path: int = 0
    relevances: dict[str, float] = field(default_factory=dict)
    """Anchor variable -> the node's best score for the remaining words in its listings."""
    paths: dict[str, str] = field(default_factory=dict)
    """Anchor variable -> the path from it that reached the node, written out (the best
    on the question's path, else the first)."""

    def key(
        self,
        loose: Collection[str] = (),
        anchor_types: Mapping[str, str] | None = None,
        *,
        loose_best: bool = False,
        sure: Collection[str] = (),
    ) -> tuple[float, ...]:
        """The ranking key (smaller first), see the module doc.

        `loose` anchors agree on nothing (their words are mostly used away from them): a
        node only they reach counts as reached by none ("What is a goblet a type of?": what
        `type (kind)` reaches comes after what `goblet` reaches). `anchor_types`: each
        anchor's own type (the node's kind is compared with those of the anchors reaching it).
        `loose_best`: the node is the one a loose anchor names best. `sure`: anchors written
        whole with their disambiguator.
        """
        agreeing = sum(anchor not in loose for anchor in self.anchors)
        trusted = [r for anchor, r in self.relevances.items() if anchor not in loose]
        relevance = max(trusted) if trusted else self.relevance
        own = anchor_types or {}
        same_kind = any(own.get(anchor) == self.type for anchor in self.anchors)
        return (
            -agreeing,
            loose_best,
            -self.on_path,
            -relevance,
            -any(a in sure for a in self.anchors),
            -sum(self.anchors.values()),
            -same_kind,
            self.order,
        )

    @property
    def relevance(self) -> float:
        """The node's best score for the question's remaining words, from any anchor."""
        return max(self.relevances.values(), default=0.0)

    @property
    def strength(self) -> float:
        """Remaining-words score plus the agreeing anchors' scores (see the module doc)."""
        return self.relevance + sum(self.anchors.values())


@dataclass
class Reach:
    """The nodes the anchors' walks reached, by external id."""

    nodes: dict[str, Reached] = field(default_factory=dict)
    loose: frozenset[str] = frozenset()
    """Anchor variables whose agreement is not counted (loose names, tools/mentions.py)."""
    anchor_types: dict[str, str] = field(default_factory=dict)
    """Anchor variable -> the type of the node it names (rule 6 of the module doc)."""
    sure: frozenset[str] = frozenset()
    """Anchor variables the question writes whole with their disambiguator (rule 4 of the
    module doc; the rule agent's routes say so, the executor's plan does not)."""
    loose_bests: set[str] = field(default_factory=set)
    """The node each loose anchor names best (rule 1 of the module doc; `walk` fills it)."""

    def add(
        self,
        node_id: str,
        *,
        name: str,
        type: str,
        anchor: str,
        anchor_score: float,
        relevance: float,
        on_path: int,
        path: str,
    ) -> None:
        """Record that the walk from `anchor` reached `node_id` (keeps the best of each)."""
        node = self.nodes.get(node_id)
        if node is None:
            node = self.nodes[node_id] = Reached(name, type, len(self.nodes))
        node.anchors[anchor] = max(node.anchors.get(anchor, 0.0), anchor_score)
        if path and (anchor not in node.paths or on_path > node.on_path):
            node.paths[anchor] = path
        node.on_path = max(node.on_path, on_path)
        node.relevances[anchor] = max(node.relevances.get(anchor, 0.0), relevance)

    def confirm(self, node_id: str, anchor: str, anchor_score: float, path: str) -> None:
        """Record that `node_id`, reached already, is linked to `anchor` too (checked)."""
        node = self.nodes[node_id]
        node.anchors[anchor] = max(node.anchors.get(anchor, 0.0), anchor_score)
        node.paths.setdefault(anchor, path)

    def ranking(self) -> list[str]:
        """Reached ids, best first (the module doc's rule)."""
        return sorted(
            self.nodes,
            key=lambda node_id: self.nodes[node_id].key(
                self.loose,
                self.anchor_types,
                loose_best=node_id in self.loose_bests,
                sure=self.sure,
            ),
        )

    def directed(self) -> bool:
        """Whether some node was reached along the named relations, in their direction."""
        return any(node.on_path >= IN_DIRECTION for node in self.nodes.values())

    def agreed(self, among: Collection[str] | None = None) -> bool:
        """Whether several anchors (not loose; of `among` when given) reach some node."""
        return any(
            sum(a not in self.loose and (among is None or a in among) for a in node.anchors) > 1
            for node in self.nodes.values()
        )

    def reasons(self) -> dict[str, str]:
        """Each reached node's paths, one per anchor that reached it, as its reason."""
        return {
            node_id: "; ".join(node.paths[anchor] for anchor in sorted(node.paths))
            for node_id, node in self.nodes.items()
            if node.paths
        }


def graph_first(reach: Reach, text_best: float | None, *, trust_agreement: bool = True) -> bool:
    """Whether the reached nodes rank before the search hits (see the module doc).

    Args:
        reach: What the walks reached.
        text_best: The best score, for the question's remaining words, of a search hit that
            rivals the anchors and was not reached (None: none does; the rule agent's
            `Rivals.rival_score` over its search of those words).
        trust_agreement: Whether anchors agreeing on a node put the graph first whatever the
            text says (False when an anchor is loose: words the graph's text mostly uses
            away from the named node agree with other anchors by chance as often as not).
    """
    if not reach.nodes:
        return False
    if (trust_agreement and reach.agreed()) or text_best is None:
        return True
    return TEXT_MARGIN * max(node.relevance for node in reach.nodes.values()) >= text_best


def named_first(named: float, rival: float) -> bool:
    """Whether the nodes a question names (or reached from them) answer it before a rival.

    `named`: the best whole-question search score among the named and reached nodes;
    `rival`: that of the whole question's first hit, another node whose text uses the
    names' words, or any, when the named nodes hold none of the question's words
    (`Rivals.describing_rival`). The rival wins only when clearly better,
    by the same `TEXT_MARGIN` as the remaining words' guard.
    """
    return TEXT_MARGIN * named >= rival


def path_on(before: int | None, hop: int | None) -> int | None:
    """How much of a path lies on the question's path, one more hop walked.

    `hop`: the hop's own share (2: along the relation the question names, in its direction;
    1: along it; 0: another relation), None for a hop that names no relation. A path is as
    much on the question's path as its least hop that names one (None: none does), so a
    walk that left the named direction on its first hop ranks after one that kept it.
    """
    if hop is None:
        return before
    return hop if before is None else min(before, hop)


def arrow(relation: str, *, forward: bool) -> str:
    """`-[r]->` for an edge walked forward, `<-[r]-` for one walked against its direction."""
    return f"-[{relation}]->" if forward else f"<-[{relation}]-"


def path_text(names: list[str], steps: list[Step]) -> str:
    """`spacy -[requires]-> requests`: the nodes along a path and the edges between them."""
    parts = [names[0]]
    for step, name in zip(steps, names[1:], strict=True):
        parts += [arrow(step.relation, forward=step.forward), name]
    return " ".join(parts)
