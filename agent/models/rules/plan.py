"""The rule policy's plan: anchor-then-expand over the tools, decided from what it has seen.

The plan is a generator: it yields one turn of tool calls at a time and is sent back the node
rows each call's observation listed (tools/listing_parse.py). The rule policy replays it over
the conversation's recorded results to find its next turn, so it never runs a tool itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.models.rules.expand import Expansion
from agent.models.rules.question_terms import (
    STOPWORDS,
    SchemaVocabulary,
    cased_words,
    find_name_span,
    words,
)
from agent.models.rules.rank_fusion import fuse_rankings
from agent.models.rules.schema_paths import SchemaPaths
from agent.models.rules.turns import MAX_ANSWERS, NO_BUDGET, PlannedCall, PlannedTurn, Steps

if TYPE_CHECKING:
    from graphs.manifest import Manifest
    from tools.listing_parse import ListedNode

MAX_ANCHORS = 2


class RulePlanner:
    """Plans an episode for a question from the graph's schema and the observations.

    The policy, in order:
    1. `search` the question (k=20); anchors are hits whose name occurs verbatim in the question
       (longest names first, at most two, none contained in another).
    2. Question words are matched to the graph's node-type and relation names (light stemming).
       The answer type is the snapshot's only candidate type if it declares one, else the first
       type named in the question.
    3. A relational plan fits only when the question names an entity (see `relational`:
       written as the graph writes its name, or a lower-case name plus a type or relation
       word). Then each anchor gets a route read off the relation signatures (see
       rules_expand.py), and the nodes reached are ranked first.
    4. Without a relational plan, the answers are the global search ranking in order, kept to
       the snapshot's candidate types (searching again with a type filter when other types are
       in the way). A relational plan is topped up the same way with hits of the answer type.
       Then `select` (best first) and `finish`.

    Args:
        manifest: The graph's schema (the same one the system prompt shows).
    """

    def __init__(self, manifest: Manifest) -> None:
        self.vocabulary = SchemaVocabulary.from_names(manifest.node_types, manifest.relations)
        self.schema = SchemaPaths.from_signatures(manifest.signatures)
        self.candidate_types = list(manifest.candidate_types)

    def episode(self, question: str, offered: dict[str, Any], budget: int | None) -> Steps:
        """Yield the episode's turns; each is sent back the rows its calls listed.

        Args:
            question: The user's question.
            offered: The tools offered, by name (their OpenAI `function` objects).
            budget: The turn budget; `select` and `finish` always fit in it.
        """
        max_turns = NO_BUDGET if budget is None else budget
        calls = [PlannedCall("search", {"query": question, "k": MAX_ANSWERS})]
        if "dense_search" in offered:
            calls.append(PlannedCall("dense_search", {"query": question, "k": MAX_ANSWERS}))
        hits, *meaning = yield PlannedTurn("Search the whole graph for the question.", tuple(calls))
        exploration_budget = max_turns - 3
        ranked: list[str] = []
        used = 0
        anchors = self.anchors(question, hits)
        relational = self.relational(question, hits)
        if "neighbors" in offered and exploration_budget >= 1 and relational:
            expansion = Expansion(
                question,
                offered["neighbors"],
                vocabulary=self.vocabulary,
                schema=self.schema,
                target=self.answer_type(question),
                query=self.residual_query(question, anchors),
            )
            ranked, used = yield from expansion.run(anchors, exploration_budget)
        # Without a relational plan only the manifest's candidate types narrow the search
        # ranking: a type word alone ("which category ...") is too weak a signal to filter on.
        types = self._answer_types(question) if relational else self.candidate_types
        fill = yield from self._fill(
            question, [hits, *meaning], types, offered["search"], exploration_budget - used
        )
        answers = list(dict.fromkeys([*ranked, *fill]))[:MAX_ANSWERS]
        if answers and max_turns >= 2:
            select = PlannedCall("select", {"node_ids": answers})
            yield PlannedTurn("Select the best candidates, best first.", (select,))
        if max_turns >= 3:
            yield PlannedTurn("The answer list is complete.", (PlannedCall("finish", {}),))

    def relational(self, question: str, hits: Sequence[ListedNode]) -> bool:
        """A relational plan fits: the question names an entity of the graph.

        A hit whose name has capitals and occurs in the question written the same way is a
        name (`Flatrev`, `Noor Elmovich`). A hit whose name occurs only in another case
        (`Pink` as "coral pink") is an ordinary word of the question, not a name. A lower-case
        name (`asthma`) names an entity only when the question also names a node type or a
        relation to follow from it; otherwise the question is a description, answered by
        search. A question written without any capital gives no case signal: every match
        counts as a name.
        """
        kinds = {self._mention(question, hit) for hit in self.anchors(question, hits)}
        if "name" in kinds:
            return True
        return "word" in kinds and bool(
            self.vocabulary.mentioned_types(question)
            or self.vocabulary.mentioned_relations(question)
        )

    @staticmethod
    def _mention(question: str, hit: ListedNode) -> str:
        """How a hit's name occurs in the question: "name", "word" (lower case) or "other"."""
        if question == question.lower():
            return "name"
        if hit.name == hit.name.lower():
            return "word"
        found = find_name_span(cased_words(question), cased_words(hit.name)) is not None
        return "name" if found else "other"

    def answer_type(self, question: str) -> str | None:
        """The node type the answers should have, if the question or snapshot tells."""
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        mentioned = self.vocabulary.mentioned_types(question)
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        return allowed[0] if allowed else None

    def anchors(self, question: str, hits: Sequence[ListedNode]) -> list[ListedNode]:
        """Search hits whose name occurs in the question, longest first."""
        question_words = words(question)
        found: list[tuple[int, int, ListedNode, str]] = []
        for rank, hit in enumerate(hits):
            name_words = words(hit.name)
            if not [w for w in name_words if w not in STOPWORDS and len(w) >= 3]:
                continue
            if find_name_span(question_words, name_words) is not None:
                found.append((-len(name_words), rank, hit, " ".join(name_words)))
        chosen: list[tuple[ListedNode, str]] = []
        for _, _, hit, name in sorted(found, key=lambda f: (f[0], f[1])):
            if any(f" {name} " in f" {other} " for _, other in chosen):
                continue
            chosen.append((hit, name))
        return [hit for hit, _ in chosen[:MAX_ANCHORS]]

    def residual_query(self, question: str, anchors: Sequence[ListedNode]) -> str:
        """The question's words minus the anchors' names and stopwords: the property to rank by."""
        drop = set(STOPWORDS)
        for anchor in anchors:
            drop.update(words(anchor.name))
        return " ".join(w for w in words(question) if w not in drop)

    def _answer_types(self, question: str) -> list[str]:
        target = self.answer_type(question)
        return [target] if target else self.candidate_types

    def _fill(
        self,
        question: str,
        rankings: Sequence[Sequence[ListedNode]],
        types: list[str],
        search_schema: dict[str, Any],
        budget: int,
    ) -> Steps:
        """The global-search ids of `types` (all types when empty), in order.

        `rankings` holds the keyword search's hits, then dense_search's when it is offered;
        two rankings are fused by z-score CombSUM (rank_fusion.py). When other types were in
        the way, search again (both ways) with a type filter instead.
        """
        hits = fuse_rankings(rankings)
        of_type = [hit.node_id for hit in hits if not types or hit.type in types]
        filterable = "node_types" in search_schema["parameters"]["properties"]
        if len(of_type) < len(hits) and filterable and budget >= 1:
            names = ["search", "dense_search"][: len(rankings)]
            arguments = {"query": question, "k": MAX_ANSWERS, "node_types": types}
            calls = tuple(PlannedCall(name, arguments) for name in names)
            typed = yield PlannedTurn(f"Search again among {', '.join(types)} nodes.", calls)
            return [hit.node_id for hit in fuse_rankings(typed)]
        return of_type
