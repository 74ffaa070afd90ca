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
from agent.models.rules.rank_fusion import fuse_rankings
from agent.models.rules.turns import (
    MAX_ANSWERS,
    MAX_WALK_TURNS,
    NO_BUDGET,
    PlannedCall,
    PlannedTurn,
    Steps,
)
from tools.plans.function_words import FUNCTION_WORDS
from tools.plans.reach import Reach, graph_first, named_first
from tools.plans.rivals import TAIL
from tools.plans.rule_plan import RulePlan
from tools.plans.rule_planner import RulePlanner as PlanWriter
from tools.plans.vocabulary import words

if TYPE_CHECKING:
    from graphs.manifest import Manifest
    from tools.listing_parse import ListedNode, NamedListed
    from tools.plans.vocabulary import TermStats


class RulePlanner:
    """Plans an episode for a question from the graph's schema and the observations.

    The policy, in order:
    1. `search` the question (k=20); its observation also lists the nodes the question
       names (the snapshot's name index).
    2. The offline planner writes the question's plan from them (anchors, relations and
       their direction, typed hops, remaining words; tools/plans/rule_planner.py).
    3. A relational plan is replayed through `neighbors` (expand.py): each anchor's hops,
       the last ranked by the anchor's remaining words; the nodes reached are ranked by the
       one rule the plan executor uses too (tools/plans/reach.py).
    4. The reached nodes come first when anchors agree on one (unless an anchor is loose:
       the graph's text mostly uses its words away from it, tools/mentions.py); else the
       question's words neither the anchors nor the schema explain (the plan's relevance
       text) are searched too, unless every one is a function word ("more doing what": they
       say nothing for the text's side, and the reached nodes come first unless a later
       check below puts the search first); the reached nodes come first unless a hit of that search
       that rivals the anchors (`Rivals.rival_score`: named like them, unless the walk
       reached nodes along the relation the question names, in its direction: the question
       asks for that relation's nodes, not for one named alike; or one of the first
       search's leading hits while the reading is unsure, `leading_rivals`; not
       reached) scores above every reached node for those words (`graph_first`): then the
       question is answered by its text, and the first search's ranking comes first.
       A question that names no relation leaving its named nodes may use their names as
       words, asking for something like them: when the whole question's first hit of
       the answer types is another node whose name or snippet holds the anchor's name words
       (or any such hit, when no named node holds any of the question's words: "tune"
       names `tuned` by its stem only; `Rivals.describing_rival`) and it matches the whole
       question clearly better
       than the named nodes and every reached node (`named_first`), the search comes first
       ("Is there a simple stopwatch application?" answers `kronometer`, described as one,
       not what the package `stopwatch` depends on). Anchors agreeing on a node spare the
       graph this check only when each is named as written: a name the question writes
       in another form ("shell" for the section `shells`, `Route.inflected`) may be a word.
       And in such a question, when the whole question's first hit is of the answer types,
       is no node the question names and scores at least `CLEAR_LEAD` times the next hit
       (`Rivals.clear_winner`), it answers: the search comes first, or, when the walks
       reached it too, it leads their ranking.
       When the walks come first on the least constrained reading (answers of no one
       type, no relation named that leaves a named node) and the question's leading hits
       hold no node the walks start from (`Rivals.unanchored`), the search's hits that
       are not among them keep the list's last `TAIL` places; when the search comes
       first on a question that names a relation (it asked for a walk) or whose leading
       hits hold such a node (`Rivals.about_named`), the walk's best reached nodes keep
       them.
       The list is topped up with the other, kept to the plan's target types (searching
       again with a type filter when other types are in the way); when the walk reached
       nothing, the graph did not confirm the plan's answer type (a word like "topped" may
       name WordNet's `noun.Tops` by its stem), and only the snapshot's candidate types are
       kept. Then `select` (best first, each reached node with the path that reached it as
       its reason) and `finish`.

    Args:
        manifest: The graph's schema (the same one the system prompt shows).
        vocabulary: The snapshot's index statistics for the plan's relevance text, if known.
    """

    def __init__(self, manifest: Manifest, vocabulary: TermStats | None = None) -> None:
        self.writer = PlanWriter(manifest, vocabulary)
        self.candidate_types = list(manifest.candidate_types)

    def plan(
        self, question: str, hits: Sequence[ListedNode], names: Sequence[NamedListed] | None
    ) -> RulePlan:
        """The offline plan for `question` given its first search's hits and names."""
        return self.writer.plan(question, hits, names)

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
        names = getattr(hits, "names", None) or None
        exploration_budget = max_turns - 3
        reach = Reach()
        used = 0
        rule_plan = self.plan(question, hits, names)
        judge = self.writer.rivals
        if "neighbors" in offered and exploration_budget >= 1 and rule_plan.relational:
            expansion = Expansion(offered["neighbors"], rule_plan)
            reach, used = yield from expansion.run(min(exploration_budget, MAX_WALK_TURNS))
        text_best = None
        remaining = rule_plan.plan.target.relevance_text
        loose = rule_plan.loose
        agreed = reach.agreed() and not loose
        worded = any(word not in FUNCTION_WORDS for word in words(remaining))
        if reach.nodes and not agreed and worded and exploration_budget - used >= 1:
            note = "Search the question's words the named nodes do not explain."
            search = PlannedCall("search", {"query": remaining, "k": MAX_ANSWERS})
            rivals, *_ = yield PlannedTurn(note, (search,))
            used += 1
            leading = judge.leading_rivals(rule_plan, hits, reach)
            confirmed = judge.walk_confirmed(rule_plan, reach)
            text_best = judge.rival_score(
                rule_plan, rivals, reach.nodes, leading, by_name=not confirmed
            )
        ranked = reach.ranking()
        types = list(rule_plan.plan.target.labels if reach.nodes else self.candidate_types)
        fill = yield from self._fill(
            question, [hits, *meaning], types, offered["search"], exploration_budget - used
        )
        first = graph_first(reach, text_best, trust_agreement=not loose)
        written = {route.var for route in rule_plan.routes if not route.inflected}
        if first and (loose or not reach.agreed(among=written)):
            rival = judge.describing_rival(rule_plan, hits, reach.nodes)
            if rival is not None:
                named = [score for route in rule_plan.routes for _, score in route.starts()]
                reached = [hit.score or 0.0 for hit in hits if hit.node_id in reach.nodes]
                first = named_first(max(named + reached), rival.score or 0.0)
        winner = judge.clear_winner(rule_plan, hits) if first else None
        if winner is not None and winner in reach.nodes:  # the walks found it too: lead with it
            ranked = [winner, *(node for node in ranked if node != winner)]
        elif winner is not None:
            first = False
        if first and judge.unanchored(rule_plan, hits):
            ranked = _with_tail(ranked, [n for n in fill if n not in rule_plan.start_ids])
        elif not first and (rule_plan.relations or judge.about_named(rule_plan, hits)):
            fill = _with_tail(fill, [n for n in ranked if n not in rule_plan.start_ids])
        order = [*ranked, *fill] if first else [*fill, *ranked]
        answers = list(dict.fromkeys(order))[:MAX_ANSWERS]
        if answers and max_turns >= 2:
            arguments: dict[str, Any] = {"node_ids": answers}
            reasons = reach.reasons()
            if any(node_id in reasons for node_id in answers):
                arguments["reasons"] = {n: reasons[n] for n in answers if n in reasons}
            select = PlannedCall("select", arguments)
            yield PlannedTurn("Select the best candidates, best first.", (select,))
        if max_turns >= 3:
            yield PlannedTurn("The answer list is complete.", (PlannedCall("finish", {}),))

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


def _with_tail(first: list[str], second: list[str]) -> list[str]:
    """`first` (the side ranked first) with `TAIL` nodes of `second` in the list's last places.

    Its first `MAX_ANSWERS - TAIL` stay first, in order; then the first nodes of `second`
    not among them; then the rest of `first`.
    """
    head = list(dict.fromkeys(first))[: MAX_ANSWERS - TAIL]
    tail = [node for node in second if node not in head][:TAIL]
    return list(dict.fromkeys([*head, *tail, *first]))
