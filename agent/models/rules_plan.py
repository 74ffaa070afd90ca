"""The rule policy's planner: anchor-then-expand over the real tools, decided without an LLM."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.models.question_terms import STOPWORDS, SchemaVocabulary, find_name_span, words

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot
    from tools.toolset import Toolset

MAX_ANCHORS = 2
MAX_INTERMEDIATES = 5
MAX_ANSWERS = 20


@dataclass(frozen=True)
class PlannedCall:
    """One tool call of the plan, with the reason shown as the assistant's text."""

    name: str
    arguments: dict[str, Any]


@dataclass
class Plan:
    """Turns of tool calls (each turn one assistant message) and a short note per turn."""

    turns: list[list[PlannedCall]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, note: str, *calls: PlannedCall) -> None:
        """Append one turn."""
        self.turns.append(list(calls))
        self.notes.append(note)


class RulePlanner:
    """Plans a whole episode for a question by running the same tools the agent will run.

    The policy, in order:
    1. `search` the question (k=20) and take as anchors the hits whose name occurs verbatim in
       the question (longest names first, at most two, none contained in another).
    2. Map question words to the graph's node-type and relation names (light stemming). The
       answer type is the only candidate type if the snapshot declares one, else the first type
       named in the question. A named type that is neither the answer type nor an anchor's type
       is an intermediate hop.
    3. Expand each anchor with `neighbors`, filtered to the answer type (or the intermediate type,
       then its best neighbours to the answer type: two hops) and to the named relations, ranked
       by the question words that are not the anchor's name. Filters are relaxed one at a time
       when a call returns nothing.
    4. `select` nodes reached from more anchors first, then by score, then global-search hits of
       the answer type to fill up to 20; then `finish`.
    """

    def __init__(self, snapshot: Snapshot, toolset: Toolset) -> None:
        self.snapshot = snapshot
        self.toolset = toolset
        manifest = snapshot.manifest
        self.vocabulary = SchemaVocabulary.from_names(manifest.node_types, manifest.relations)
        self.candidate_types = list(manifest.candidate_types)

    def plan(self, question: str, tools: Sequence[dict[str, Any]], max_turns: int) -> Plan:
        """Plan the episode so that `select` and `finish` fit within max_turns turns."""
        offered = {tool["function"]["name"]: tool["function"] for tool in tools}
        plan = Plan()
        search = PlannedCall("search", {"query": question, "k": MAX_ANSWERS})
        plan.add("Search the whole graph for the question to find named entities.", search)
        hits = list(self._run(search).node_ids)
        exploration_budget = max_turns - 3
        ranked: list[str] = []
        if "neighbors" in offered:
            ranked = self._expand(question, hits, offered["neighbors"], plan, exploration_budget)
        fill_budget = exploration_budget - (len(plan.turns) - 1)
        ranked += self._fill(question, hits, offered["search"], plan, fill_budget)
        answers = list(dict.fromkeys(ranked))[:MAX_ANSWERS]
        if answers and max_turns >= 2:
            select = PlannedCall("select", {"node_ids": answers})
            plan.add("Select the best candidates, best first.", select)
        if max_turns >= 3:
            plan.add("The answer list is complete.", PlannedCall("finish", {}))
        return plan

    def _run(self, call: PlannedCall) -> Any:
        return self.toolset.call(call.name, call.arguments)

    def answer_type(self, question: str) -> str | None:
        """The node type the answers should have, if the question or snapshot tells."""
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        mentioned = self.vocabulary.mentioned_types(question)
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        return allowed[0] if allowed else None

    def anchors(self, question: str, hit_ids: Sequence[str]) -> list[int]:
        """Internal ids of search hits whose name occurs in the question, longest first."""
        index = self.snapshot.index
        question_tokens = index.tokenize(question)
        found: list[tuple[int, int, int]] = []
        for rank, external in enumerate(hit_ids):
            node = self.snapshot.internal_id(external)
            name_tokens = index.tokenize(self.snapshot.name(node))
            if not [t for t in name_tokens if t not in STOPWORDS and len(t) >= 3]:
                continue
            if find_name_span(question_tokens, name_tokens) is not None:
                found.append((-len(name_tokens), rank, node))
        chosen: list[int] = []
        chosen_names: list[str] = []
        for _, _, node in sorted(found):
            name = " ".join(index.tokenize(self.snapshot.name(node)))
            if any(f" {name} " in f" {other} " for other in chosen_names):
                continue
            chosen.append(node)
            chosen_names.append(name)
            if len(chosen) == MAX_ANCHORS:
                break
        return chosen

    def residual_query(self, question: str, anchors: Sequence[int]) -> str:
        """The question's words minus the anchors' names and stopwords: the property to rank by."""
        drop = set(STOPWORDS)
        for node in anchors:
            drop.update(words(self.snapshot.name(node)))
        return " ".join(w for w in words(question) if w not in drop)

    def _expand(
        self,
        question: str,
        hit_ids: Sequence[str],
        neighbors_schema: dict[str, Any],
        plan: Plan,
        budget: int,
    ) -> list[str]:
        anchors = self.anchors(question, hit_ids)
        if not anchors or budget < 1:
            return []
        properties = neighbors_schema["parameters"]["properties"]
        target = self.answer_type(question) if "node_types" in properties else None
        relations = (
            self.vocabulary.mentioned_relations(question) if "edge_types" in properties else []
        )
        query = self.residual_query(question, anchors) if "query" in properties else ""
        anchor_types = {self.snapshot.type_name(a) for a in anchors}
        intermediate = (
            next(
                (
                    t
                    for t in self.vocabulary.mentioned_types(question)
                    if t != target and t not in anchor_types
                ),
                None,
            )
            if target
            else None
        )
        expansion = _Expansion(self, plan, query, relations)
        if intermediate is not None and budget >= 2:
            return expansion.two_hop(anchors, intermediate, target)
        return expansion.one_hop(anchors, target, allow_second_hop=budget >= 2)

    def _fill(
        self,
        question: str,
        hit_ids: Sequence[str],
        search_schema: dict[str, Any],
        plan: Plan,
        budget: int,
    ) -> list[str]:
        """Global-search hits of the answer type, searching again with a type filter if needed."""
        target = self.answer_type(question)
        types = [target] if target else self.candidate_types
        allowed = set(types)
        of_type = [
            node_id
            for node_id in hit_ids
            if not allowed or self.snapshot.type_name(self.snapshot.internal_id(node_id)) in allowed
        ]
        filterable = "node_types" in search_schema["parameters"]["properties"]
        if len(of_type) < len(hit_ids) and filterable and budget >= 1:
            arguments = {"query": question, "k": MAX_ANSWERS, "node_types": types}
            plan.add(
                f"Search again among {', '.join(types)} nodes only.",
                PlannedCall("search", arguments),
            )
            return list(self._run(PlannedCall("search", arguments)).node_ids)
        return of_type


class _Expansion:
    """Neighbour expansions from anchors, relaxing filters when a call comes back empty."""

    def __init__(
        self, planner: RulePlanner, plan: Plan, query: str, relations: Sequence[str]
    ) -> None:
        self.planner = planner
        self.plan = plan
        self.query = query
        self.relations = list(relations)

    def one_hop(
        self, anchors: Sequence[int], target: str | None, *, allow_second_hop: bool
    ) -> list[str]:
        """Expand every anchor to the target type; two hops for anchors with no such neighbour."""
        reached: list[list[tuple[str, float]]] = []
        calls = [self._call(a, target, self.relations) for a in anchors]
        results = self._turn("Expand the named entities to the nodes the question asks for.", calls)
        retry_calls: list[PlannedCall] = []
        for anchor, call, result in zip(anchors, calls, results, strict=True):
            if result:
                reached.append(result)
            elif "edge_types" in call.arguments or "node_types" in call.arguments:
                retry_calls.append(
                    self._call(anchor, target if "edge_types" in call.arguments else None, [])
                )
        if retry_calls and allow_second_hop:
            reached += [
                r for r in self._turn("Relax the filters that matched nothing.", retry_calls) if r
            ]
        return _merge(reached)

    def two_hop(self, anchors: Sequence[int], intermediate: str, target: str | None) -> list[str]:
        """Anchor -> best intermediate-type neighbours -> their neighbours of the target type."""
        first = self._turn(
            f"Expand the named entities to {intermediate} nodes first.",
            [self._call(a, intermediate, [], k=MAX_INTERMEDIATES) for a in anchors],
        )
        middle = list(dict.fromkeys(node_id for result in first for node_id, _ in result))
        middle = middle[:MAX_INTERMEDIATES]
        if not middle:
            return self.one_hop(anchors, target, allow_second_hop=False)
        snapshot = self.planner.snapshot
        calls = [self._call(snapshot.internal_id(m), target, self.relations) for m in middle]
        second = self._turn(f"Expand those {intermediate} nodes to the answers.", calls)
        return _merge([r for r in second if r])

    def _call(
        self, anchor: int, node_type: str | None, relations: Sequence[str], *, k: int | None = None
    ) -> PlannedCall:
        arguments: dict[str, Any] = {"node_id": self.planner.snapshot.external_id(anchor)}
        if node_type:
            arguments["node_types"] = [node_type]
        if relations:
            arguments["edge_types"] = list(relations)
        if self.query:
            arguments["query"] = self.query
        if k is not None:
            arguments["k"] = k
        return PlannedCall("neighbors", arguments)

    def _turn(self, note: str, calls: Sequence[PlannedCall]) -> list[list[tuple[str, float]]]:
        self.plan.add(note, *calls)
        results = []
        for call in calls:
            observation = self.planner.toolset.call(call.name, call.arguments)
            scores = list(observation.scores) or [0.0] * len(observation.node_ids)
            results.append(list(zip(observation.node_ids, scores, strict=False)))
        return results


def _merge(results: Sequence[Sequence[tuple[str, float]]]) -> list[str]:
    """Rank nodes by how many expansions reached them, then best score, then first appearance."""
    count: dict[str, int] = {}
    best: dict[str, float] = {}
    first: dict[str, int] = {}
    position = 0
    for result in results:
        for node_id, score in result:
            count[node_id] = count.get(node_id, 0) + 1
            best[node_id] = max(best.get(node_id, float("-inf")), score)
            first.setdefault(node_id, position)
            position += 1
    return sorted(count, key=lambda n: (-count[n], -best[n], first[n]))
