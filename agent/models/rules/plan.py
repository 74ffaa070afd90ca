"""The rule agent's episode: the offline plan (tools/plans/) replayed through the tools.

The episode is a generator: it yields one turn of tool calls at a time and is sent back the
node rows each call's observation listed (tools/listing_parse.py). The rule policy replays it
over the conversation's recorded results to find its next turn, so it never runs a tool itself.
Its relational logic is the offline planner's (tools/plans/rule_planner.py); the plan executor
runs the same plan directly on the snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.models.rules.expand import Expansion
from agent.models.rules.rank_fusion import fuse_ids, fuse_rankings
from agent.models.rules.turns import MAX_ANSWERS, NO_BUDGET, PlannedCall, PlannedTurn, Steps
from tools.plans.rule_planner import RulePlan
from tools.plans.rule_planner import RulePlanner as PlanWriter

if TYPE_CHECKING:
    from graphs.manifest import Manifest
    from tools.listing_parse import ListedNode
    from tools.plans.vocabulary import Vocabulary


class RulePlanner:
    """Plans an episode for a question from the graph's schema and the observations.

    The policy, in order:
    1. `search` the question (k=20).
    2. The offline planner writes the question's plan from those hits (anchors, typed hops,
       target, relevance text; tools/plans/rule_planner.py).
    3. A relational plan is replayed through `neighbors`: each anchor's hops toward the
       target, the last ranked by the plan's relevance text (expand.py); a filter anchor
       (the target's own neighbour beside a chain) is checked from the nodes the chain
       reached. The nodes reached are ranked first (more anchors, then those the relevance
       text matched, then more paths, then the best score), fused by reciprocal ranks with
       the search hits that match the question better than every anchor does.
    4. The answers are topped up with the global search ranking in order, kept to the plan's
       target types (searching again with a type filter when other types are in the way).
       Then `select` (best first) and `finish`.

    Args:
        manifest: The graph's schema (the same one the system prompt shows).
        vocabulary: The snapshot's index statistics for the plan's relevance text, if known.
    """

    def __init__(self, manifest: Manifest, vocabulary: Vocabulary | None = None) -> None:
        self.writer = PlanWriter(manifest, vocabulary)
        self.candidate_types = list(manifest.candidate_types)

    def plan(self, question: str, hits: Sequence[ListedNode]) -> RulePlan:
        """The offline plan for `question` given its first search's hits."""
        return self.writer.plan(question, hits)

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
        rule_plan = self.plan(question, hits)
        if "neighbors" in offered and exploration_budget >= 1 and rule_plan.relational:
            expansion = Expansion(offered["neighbors"], rule_plan)
            ranked, used = yield from expansion.run(exploration_budget)
            closer = self.closer_than_anchors(hits, rule_plan)
            if ranked and closer:
                ranked = fuse_ids([ranked, closer])
        # A text plan keeps the manifest's candidate types only: a type word alone ("which
        # category ...") is too weak a signal to filter on.
        types = list(rule_plan.plan.target.labels)
        fill = yield from self._fill(
            question, [hits, *meaning], types, offered["search"], exploration_budget - used
        )
        answers = list(dict.fromkeys([*ranked, *fill]))[:MAX_ANSWERS]
        if answers and max_turns >= 2:
            arguments: dict[str, Any] = {"node_ids": answers}
            if ranked:  # reached through the graph; the search hits after them only fill the list
                names = " and ".join(node.name for node in rule_plan.anchor_nodes.values())
                reason = f"reached from {names} through the graph"
                arguments["reasons"] = {node_id: reason for node_id in answers if node_id in ranked}
            select = PlannedCall("select", arguments)
            yield PlannedTurn("Select the best candidates, best first.", (select,))
        if max_turns >= 3:
            yield PlannedTurn("The answer list is complete.", (PlannedCall("finish", {}),))

    @staticmethod
    def closer_than_anchors(hits: Sequence[ListedNode], rule_plan: RulePlan) -> list[str]:
        """First-search hits of the target types scoring above every anchor, in search order.

        A question that names an entity matches that entity best; hits above it are described
        by the question's other words as much as the anchor is named, so they are answers in
        their own right: the graph's ranking is fused with them (reciprocal ranks) instead of
        put before them.
        """
        scores = [node.score for node in rule_plan.anchor_nodes.values()]
        if not scores or any(score is None for score in scores):
            return []
        best = max(score for score in scores if score is not None)
        types = set(rule_plan.plan.target.labels)
        return [
            hit.node_id
            for hit in hits
            if hit.score is not None and hit.score > best and (not types or hit.type in types)
        ]

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
