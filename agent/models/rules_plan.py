"""The rule policy's planner: anchor-then-expand over the real tools, decided without an LLM."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.models.question_terms import STOPWORDS, SchemaVocabulary, find_name_span, words
from agent.models.schema_paths import SchemaPaths

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot
    from tools.toolset import Toolset

MAX_ANCHORS = 2
MAX_INTERMEDIATES = 5
MAX_ANSWERS = 20


@dataclass(frozen=True)
class PlannedCall:
    """One tool call of the plan."""

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


@dataclass(frozen=True)
class Hop:
    """One neighbours expansion: the type and relations kept, and whether the query ranks it."""

    node_type: str | None
    relations: tuple[str, ...]
    ranked: bool
    k: int | None = None


@dataclass(frozen=True)
class Route:
    """How to reach the answers from one anchor: one hop, or two through an intermediate type."""

    anchor: int
    hops: tuple[Hop, ...]


class RulePlanner:
    """Plans a whole episode for a question by running the same tools the agent will run.

    The policy, in order:
    1. `search` the question (k=20); anchors are hits whose name occurs verbatim in the question
       (longest names first, at most two, none contained in another).
    2. Question words are matched to the graph's node-type and relation names (light stemming).
       The answer type is the snapshot's only candidate type if it declares one, else the first
       type named in the question.
    3. Each anchor gets a route read off the relation signatures: one hop to the answer type;
       or two hops, through a named intermediate type, through an end type of a named relation
       that does not touch the anchor's type, or through the best-linked type when the anchor's
       type has no direct link to the answer type. The last hop is ranked by the question's
       words minus the anchor's name; intermediate hops keep the five first neighbours.
       A relation filter that matches nothing is dropped and the call retried.
    4. `select` nodes reached from more anchors first, then by more paths, then by score, then
       global-search hits of the answer type to fill up to 20; then `finish`.
    """

    def __init__(self, snapshot: Snapshot, toolset: Toolset) -> None:
        self.snapshot = snapshot
        self.toolset = toolset
        manifest = snapshot.manifest
        self.vocabulary = SchemaVocabulary.from_names(manifest.node_types, manifest.relations)
        self.schema = SchemaPaths.from_signatures(manifest.signatures)
        self.candidate_types = list(manifest.candidate_types)

    def plan(self, question: str, tools: Sequence[dict[str, Any]], max_turns: int) -> Plan:
        """Plan the episode so that `select` and `finish` fit within max_turns turns."""
        offered = {tool["function"]["name"]: tool["function"] for tool in tools}
        plan = Plan()
        search = PlannedCall("search", {"query": question, "k": MAX_ANSWERS})
        plan.add("Search the whole graph for the question to find named entities.", search)
        hits = list(self.toolset.call(search.name, search.arguments).node_ids)
        exploration_budget = max_turns - 3
        ranked: list[str] = []
        if "neighbors" in offered and exploration_budget >= 1:
            expansion = _Expansion(self, plan, question, offered["neighbors"])
            ranked = expansion.run(self.anchors(question, hits), exploration_budget)
        fill_budget = exploration_budget - (len(plan.turns) - 1)
        ranked += self._fill(question, hits, offered["search"], plan, fill_budget)
        answers = list(dict.fromkeys(ranked))[:MAX_ANSWERS]
        if answers and max_turns >= 2:
            select = PlannedCall("select", {"node_ids": answers})
            plan.add("Select the best candidates, best first.", select)
        if max_turns >= 3:
            plan.add("The answer list is complete.", PlannedCall("finish", {}))
        return plan

    def answer_type(self, question: str) -> str | None:
        """The node type the answers should have, if the question or snapshot tells."""
        if len(self.candidate_types) == 1:
            return self.candidate_types[0]
        mentioned = self.vocabulary.mentioned_types(question)
        allowed = [t for t in mentioned if not self.candidate_types or t in self.candidate_types]
        return allowed[0] if allowed else None

    def anchors(self, question: str, hit_ids: Sequence[str]) -> list[int]:
        """Internal ids of search hits whose name occurs in the question, longest first."""
        tokenize = self.snapshot.index.tokenize
        question_tokens = tokenize(question)
        found: list[tuple[int, int, int, str]] = []
        for rank, external in enumerate(hit_ids):
            node = self.snapshot.internal_id(external)
            name_tokens = tokenize(self.snapshot.name(node))
            if not [t for t in name_tokens if t not in STOPWORDS and len(t) >= 3]:
                continue
            if find_name_span(question_tokens, name_tokens) is not None:
                found.append((-len(name_tokens), rank, node, " ".join(name_tokens)))
        chosen: list[tuple[int, str]] = []
        for _, _, node, name in sorted(found):
            if any(f" {name} " in f" {other} " for _, other in chosen):
                continue
            chosen.append((node, name))
        return [node for node, _ in chosen[:MAX_ANCHORS]]

    def residual_query(self, question: str, anchors: Sequence[int]) -> str:
        """The question's words minus the anchors' names and stopwords: the property to rank by."""
        drop = set(STOPWORDS)
        for node in anchors:
            drop.update(words(self.snapshot.name(node)))
        return " ".join(w for w in words(question) if w not in drop)

    def route(self, anchor: int, question: str, target: str | None, relations: list[str]) -> Route:
        """Choose one- or two-hop expansion for an anchor from the relation signatures."""
        anchor_type = self.snapshot.type_name(anchor)
        near = tuple(r for r in relations if self.schema.touches(r, anchor_type))
        far = tuple(r for r in relations if not self.schema.touches(r, anchor_type))
        last = Hop(target, far, ranked=True)
        named = [
            t
            for t in self.vocabulary.mentioned_types(question)
            if t not in (target, anchor_type) and self.schema.linked(anchor_type, t)
        ]
        middle = named[0] if named and target and self.schema.linked(named[0], target) else None
        if middle is None and far:
            middle = self.schema.entry_type(far, anchor_type)
        if middle is None and target and not self.schema.linked(anchor_type, target):
            middle = self.schema.bridge(anchor_type, target)
        if middle is None:
            return Route(anchor, (Hop(target, near, ranked=True),))
        return Route(anchor, (Hop(middle, near, ranked=False, k=MAX_INTERMEDIATES), last))

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
            call = PlannedCall("search", {"query": question, "k": MAX_ANSWERS, "node_types": types})
            plan.add(f"Search again among {', '.join(types)} nodes only.", call)
            return list(self.toolset.call(call.name, call.arguments).node_ids)
        return of_type


@dataclass
class _Reached:
    """Nodes reached by the last hops: which anchors reached them, how often, best score."""

    anchors: dict[str, set[int]] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)
    best: dict[str, float] = field(default_factory=dict)

    def add(self, anchor: int, result: Sequence[tuple[str, float]]) -> None:
        for node_id, score in result:
            self.anchors.setdefault(node_id, set()).add(anchor)
            self.paths[node_id] = self.paths.get(node_id, 0) + 1
            self.best[node_id] = max(self.best.get(node_id, float("-inf")), score)

    def ranking(self) -> list[str]:
        order = list(self.paths)
        return sorted(
            order,
            key=lambda n: (-len(self.anchors[n]), -self.paths[n], -self.best[n], order.index(n)),
        )


class _Expansion:
    """Runs the anchors' routes turn by turn: all first hops, then all second hops."""

    def __init__(
        self, planner: RulePlanner, plan: Plan, question: str, schema: dict[str, Any]
    ) -> None:
        self.planner = planner
        self.plan = plan
        self.question = question
        self.properties = schema["parameters"]["properties"]

    def run(self, anchors: list[int], budget: int) -> list[str]:
        """Expand the anchors within `budget` turns; the ranked ids reached."""
        if not anchors:
            return []
        planner = self.planner
        target = planner.answer_type(self.question) if "node_types" in self.properties else None
        relations = (
            planner.vocabulary.mentioned_relations(self.question)
            if "edge_types" in self.properties
            else []
        )
        self.query = planner.residual_query(self.question, anchors)
        routes = [planner.route(a, self.question, target, relations) for a in anchors]
        if budget < 2:
            routes = [Route(r.anchor, r.hops[-1:]) for r in routes]
        reached = _Reached()
        first = [(r, r.anchor, self._call(r.anchor, r.hops[0])) for r in routes]
        results = self._turn("Expand the named entities along the relations asked for.", first)
        follow: list[tuple[Route, int, PlannedCall]] = []
        for (route, anchor, call), result in zip(first, results, strict=True):
            if len(route.hops) == 2:
                follow += [
                    (route, anchor, self._call(self._id(n), route.hops[1])) for n, _ in result
                ]
            elif result:
                reached.add(anchor, result)
            elif "edge_types" in call.arguments:
                relaxed = Hop(route.hops[0].node_type, (), ranked=True)
                follow.append((Route(anchor, (relaxed,)), anchor, self._call(anchor, relaxed)))
        if follow and budget >= 2:
            results = self._turn("Follow the next hop from the nodes just found.", follow)
            for (_, anchor, _), result in zip(follow, results, strict=True):
                reached.add(anchor, result)
        return reached.ranking()

    def _id(self, external: str) -> int:
        return self.planner.snapshot.internal_id(external)

    def _call(self, node: int, hop: Hop) -> PlannedCall:
        arguments: dict[str, Any] = {"node_id": self.planner.snapshot.external_id(node)}
        if hop.node_type and "node_types" in self.properties:
            arguments["node_types"] = [hop.node_type]
        if hop.relations and "edge_types" in self.properties:
            arguments["edge_types"] = list(hop.relations)
        if hop.ranked and self.query and "query" in self.properties:
            arguments["query"] = self.query
        if hop.k is not None:
            arguments["k"] = hop.k
        return PlannedCall("neighbors", arguments)

    def _turn(
        self, note: str, calls: Sequence[tuple[Route, int, PlannedCall]]
    ) -> list[list[tuple[str, float]]]:
        self.plan.add(note, *(call for _, _, call in calls))
        results = []
        for _, _, call in calls:
            observation = self.planner.toolset.call(call.name, call.arguments)
            scores = list(observation.scores) or [0.0] * len(observation.node_ids)
            results.append(list(zip(observation.node_ids, scores, strict=False)))
        return results
