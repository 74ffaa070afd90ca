"""Question families drawn from a domain's recipes, with gold answers computed from its edges."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphs.synth.adjacency import Adjacency
from graphs.synth.phrasing import join_details, render
from graphs.synth.recipes import Domain, Multi, OneHop, Step, TextOnly, TwoHop

FAMILIES = ("text_only", "one_hop", "two_hop", "multi_answer")
MAX_MIDDLE = 60
"""Two-hop anchors with more first-step neighbours than this are skipped (hubs)."""


@dataclass(frozen=True)
class Question:
    """A generated question: its text, exact gold node indices and how they were derived.

    `provenance` names the anchor, filter node, trait and steps by external id and relation
    names, so anyone can recompute the gold answers from the snapshot's edges.
    """

    family: str
    query: str
    answers: tuple[int, ...]
    provenance: dict[str, Any]


def _steps(*steps: Step | None) -> list[list[str]]:
    return [[s.relation, s.direction, s.target_type] for s in steps if s is not None]


class QuestionMaker:
    """Draws questions of every family from one domain, deterministically for a generator."""

    def __init__(self, domain: Domain, rng: np.random.Generator) -> None:
        self.domain = domain
        self.graph = domain.graph
        self.rng = rng
        self.adjacency = Adjacency(domain.graph)
        counts = Counter(name.lower() for name in domain.graph.names)
        self.nameable = np.fromiter(
            (counts[name.lower()] == 1 for name in domain.graph.names), dtype=bool
        )

    def make(self, family: str, count: int) -> list[Question]:
        """Up to `count` distinct questions of one family, spread over its recipes in turn."""
        sources: dict[str, Iterable[Iterator[Question]]] = {
            "text_only": (self._text_only(r) for r in self.domain.text_only),
            "one_hop": (self._one_hop(r) for r in self.domain.one_hop),
            "two_hop": (self._two_hop(r) for r in self.domain.two_hop),
            "multi_answer": (self._multi(r) for r in self.domain.multi),
        }
        return _round_robin(list(sources[family]), count)

    def _anchors(self, node_type: str) -> np.ndarray:
        pool = self.graph.of_type(node_type)
        return self.rng.permutation(pool[self.nameable[pool]])

    def _pick(self, options: tuple[str, ...]) -> str:
        return options[int(self.rng.integers(0, len(options)))]

    def _question(
        self,
        family: str,
        templates: tuple[str, ...],
        gold: np.ndarray,
        slots: dict[str, str],
        provenance: dict[str, Any],
    ) -> Question:
        query = render(self._pick(templates), slots)
        answers = tuple(int(n) for n in np.sort(gold))
        return Question(family, query, answers, {"family": family, **provenance})

    def _one_hop(self, recipe: OneHop) -> Iterator[Question]:
        for anchor in self._anchors(recipe.anchor_type):
            near = self.adjacency.step([anchor], recipe.step)
            if near.size < 2:
                continue
            for keyword in self.rng.permutation(np.asarray(recipe.traits, dtype=object)):
                trait = self.domain.traits[keyword]
                gold = near[trait.mask[near]]
                if 1 <= gold.size <= recipe.max_answers and gold.size < near.size:
                    slots = {
                        "anchor": self.graph.names[anchor],
                        "adj": self._pick(trait.adj),
                        "rel": self._pick(trait.rel),
                        "pred": self._pick(trait.pred),
                    }
                    provenance = {
                        "anchor": self.graph.ids[anchor],
                        "steps": _steps(recipe.step),
                        "trait": keyword,
                    }
                    yield self._question("one_hop", recipe.templates, gold, slots, provenance)
                    break

    def _filtered(
        self, targets: np.ndarray, constraint: Step, gold_type: str
    ) -> tuple[np.ndarray, int] | None:
        """Narrow `targets` to those linked to one nameable node reached from a random target."""
        seed_node = int(self.rng.choice(targets))
        filters = self.adjacency.step([seed_node], constraint)
        filters = filters[self.nameable[filters]]
        if filters.size == 0:
            return None
        chosen = int(self.rng.choice(filters))
        linked = self.adjacency.step([chosen], constraint.reverse(gold_type))
        return np.intersect1d(targets, linked), chosen

    def _two_hop(self, recipe: TwoHop) -> Iterator[Question]:
        for anchor in self._anchors(recipe.anchor_type):
            middle = self.adjacency.step([anchor], recipe.first)
            if middle.size == 0 or middle.size > MAX_MIDDLE:
                continue
            targets = self.adjacency.step(middle, recipe.second)
            targets = targets[targets != anchor]
            if targets.size == 0:
                continue
            gold, slots = targets, {"anchor": self.graph.names[anchor]}
            provenance: dict[str, Any] = {
                "anchor": self.graph.ids[anchor],
                "steps": _steps(recipe.first, recipe.second),
            }
            if recipe.constraint is not None:
                narrowed = self._filtered(targets, recipe.constraint, recipe.second.target_type)
                if narrowed is None or narrowed[0].size == targets.size:
                    continue
                gold, chosen = narrowed
                slots |= _filter_slots(self.graph.names[chosen])
                provenance |= {
                    "filter": self.graph.ids[chosen],
                    "constraint": _steps(recipe.constraint)[0],
                }
            if 1 <= gold.size <= recipe.max_answers:
                yield self._question("two_hop", recipe.templates, gold, slots, provenance)

    def _multi(self, recipe: Multi) -> Iterator[Question]:
        for anchor in self._anchors(recipe.anchor_type):
            gold = self.adjacency.step([anchor], recipe.step)
            if gold.size < recipe.min_answers:
                continue
            slots = {"anchor": self.graph.names[anchor]}
            provenance: dict[str, Any] = {
                "anchor": self.graph.ids[anchor],
                "steps": _steps(recipe.step),
            }
            if recipe.constraint is not None:
                narrowed = self._filtered(gold, recipe.constraint, recipe.step.target_type)
                if narrowed is None or narrowed[0].size == gold.size:
                    continue
                gold, chosen = narrowed
                slots |= _filter_slots(self.graph.names[chosen])
                provenance |= {
                    "filter": self.graph.ids[chosen],
                    "constraint": _steps(recipe.constraint)[0],
                }
            if recipe.min_answers <= gold.size <= recipe.max_answers:
                yield self._question("multi_answer", recipe.templates, gold, slots, provenance)

    def _text_only(self, recipe: TextOnly) -> Iterator[Question]:
        pool = self.graph.of_type(recipe.node_type)
        pool = pool[recipe.head.codes[pool] >= 0]
        for node in self.rng.permutation(pool):
            usable = [f for f in recipe.facets if f.codes[node] >= 0 and f.clauses[f.codes[node]]]
            match = recipe.head.codes[pool] == recipe.head.codes[node]
            chosen = []
            for index in self.rng.permutation(len(usable)):
                facet = usable[int(index)]
                match &= facet.codes[pool] == facet.codes[node]
                chosen.append(facet)
                unique = int(match.sum()) == 1
                if (unique and len(chosen) >= recipe.min_facets) or len(
                    chosen
                ) == recipe.max_facets:
                    break
            if int(match.sum()) != 1 or len(chosen) < recipe.min_facets:
                continue
            details = [self._pick(f.clauses[f.codes[node]]) for f in chosen]
            slots = {
                "head": self._pick(recipe.head.clauses[recipe.head.codes[node]]),
                "details": join_details(details, self.rng),
            }
            provenance = {"node": self.graph.ids[node]}
            yield self._question(
                "text_only", recipe.templates, np.asarray([node]), slots, provenance
            )


def _filter_slots(name: str) -> dict[str, str]:
    return {"filter": name, "filter_lc": name.lower()}


def _round_robin(sources: list[Iterator[Question]], count: int) -> list[Question]:
    """Take questions from each source in turn until `count` or all run dry; no repeated text."""
    taken: list[Question] = []
    seen: set[str] = set()
    active = list(sources)
    while active and len(taken) < count:
        for source in list(active):
            question = next(source, None)
            if question is None:
                active.remove(source)
            elif question.query not in seen:
                seen.add(question.query)
                taken.append(question)
                if len(taken) == count:
                    break
    return taken
