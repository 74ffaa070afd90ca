"""Text or graph: which search hits rival what the offline plan's walks reached.

The rule agent (agent/models/rules/plan.py) walks its plan, then asks these questions of its
searches' hits before it ranks the reached nodes ahead of the search or behind it:

- `rival_score`: the best hit of the remaining words' search that rivals the anchors (named
  like them, or among the whole question's leading hits while the reading is unsure,
  `leading_rivals`), compared with the reached nodes by `graph_first` (tools/plans/reach.py);
- `describing_rival`: the whole question's first hit, when a question asking for no walk
  may describe a node like the one it names (compared by `named_first`);
- `clear_winner`: the whole question's first hit, when it leads the next hit the question
  does not name by `CLEAR_LEAD` in a question asking for no walk;
- `unanchored` and `about_named`: whether the question's leading hits hold a node the walks
  start from, which decides which side keeps the list's last `TAIL` places.

None of them reads a list of question phrasings: only the plan, the hits and their scores,
and the snapshot's index statistics.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tools.listing_parse import ListedNode
from tools.plans.reach import Reach
from tools.plans.rule_plan import RulePlan
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import MIN_CONTENT_CHARS, QuestionReader, TermStats

RIVAL_SHARE = 0.5
"""Share of an anchor's name weight a search hit's name must hold to rival the anchor."""
LEADING_HITS = 3
"""Hits of the whole question's search (of the answer types) that rival loose anchors."""
TAIL = 5
"""Places at the end of the answer list kept for the side ranked second: the search's hits
when the walk ranks first on the least constrained reading (`Rivals.unanchored`), the
walk's best reached nodes when the search ranks first on a question about a named node
(`Rivals.about_named`) or one naming a relation (it asked for a walk)."""
CLEAR_LEAD = 1.5
"""How many times the next unnamed hit's score the whole question's first hit must score to
answer a question that asks for no walk (`Rivals.clear_winner`). On the development graphs
the first hits that were the answer while the walk's were not led by 1.70x and 1.97x, and
1.85x over the next hit the question does not name (`fjord`); every one that was not the
answer where the walk's was, by at most 1.21x (benchmarks/studies/clear_lead.py,
BENCHMARKS.md "Relational retrieval on graphs nobody tuned it on")."""


@dataclass(frozen=True)
class Rivals:
    """The judgments between a plan's walks and the question's search hits.

    Attributes:
        reader: The snapshot's question reader (stems, analyzer).
        schema: The snapshot's schema paths (which relations touch which types).
        vocabulary: The snapshot's index statistics (idf weights; None: every word 1.0).
    """

    reader: QuestionReader
    schema: SchemaPaths
    vocabulary: TermStats | None = None

    def rival_score(
        self,
        rule_plan: RulePlan,
        hits: Sequence[ListedNode],
        reached: Collection[str] = (),
        leading: Collection[str] = (),
        *,
        by_name: bool = True,
    ) -> float | None:
        """The best search score of a hit that rivals the anchors as the question's subject.

        A rival is of the answer types, is not an anchor and was not reached, and either the
        whole question's search ranks it first (`leading`: its first `LEADING_HITS` hits of
        the answer types, given only while an anchor is loose, its words mostly used as
        words in the graph's text, or while the relation the question names lies along no
        path walked: the reading of the question is then unconfirmed), or its name shares
        with the words naming an anchor at least half of their weight (words matched by
        stem, weighted by their inverse document frequency, so sharing "other" or
        "unspecified" is not sharing "finger"): a more specific node of the named kind
        (`highball glass` for `glass`), which a question describing it by text would find.
        Any other hit matches only the question's other words, the words the reached nodes
        are ranked by; it does not compete with a path from what was named.

        `by_name` False: hits named like the anchors do not rival (the rule agent's choice
        when its walk reached nodes along the relation the question names, in its
        direction: "Which packages recommend having an info-browser installed?" asks for
        info-browser's recommenders, not for `install-info`).

        A named node of the answer types rivals too when the question names no relation
        leaving a named node's type (as `describing_rival`): nothing asks for a walk, and a
        question whose words left are the named node's own text ("Which diagnosis code
        covers ... pancytopenia?", quoting the notes of `Pancytopenia`) is answered by it,
        not by its children.
        """
        anchors = rule_plan.start_ids
        weighted = [self._weighted_stems(route.words) for route in rule_plan.routes]
        types = set(rule_plan.plan.target.labels)
        unwalked = not self.walks_named(rule_plan)
        scores = []
        for hit in hits:
            if hit.node_id in anchors and unwalked and (not types or hit.type in types):
                if hit.node_id not in reached and hit.score is not None:
                    scores.append(hit.score)
                continue
            if hit.node_id in anchors or hit.node_id in reached or hit.score is None:
                continue
            if types and hit.type not in types:
                continue  # not of the answer types: it cannot be the answer instead
            if hit.node_id in leading:
                scores.append(hit.score)
                continue
            if not by_name:
                continue
            stems = set(self._weighted_stems(hit.name))
            for named in weighted:
                total = sum(named.values())
                shared = sum(weight for stem, weight in named.items() if stem in stems)
                if total and shared >= RIVAL_SHARE * total:
                    scores.append(hit.score)
                    break
        return max(scores, default=None)

    def describing_rival(
        self, rule_plan: RulePlan, hits: Sequence[ListedNode], reached: Collection[str] = ()
    ) -> ListedNode | None:
        """The whole question's first hit, when it rivals the named nodes as its subject.

        Only for a question that names no relation leaving a named node (none at all, or one
        that touches none of their types, as "buy" names `also_buy` between products in
        "Looking to buy a pet carrier ..."): it asks for no walk from them and may be asking
        for a node like them. The rival is the first of `hits` of the answer types, if it is
        neither named nor `reached` and its name or snippet holds at least `RIVAL_SHARE` of an
        anchor's name weight (its text uses the name's words: `kronometer`, "simple stopwatch
        application", for the package `stopwatch`), or whatever its text says when no named
        node matches any of the question's words (each scores nothing for it: named only by a
        stem, "tune" for the package `tuned`, the question uses the word as a word). None
        otherwise.
        """
        types = set(rule_plan.plan.target.labels)
        if self.walks_named(rule_plan):
            return None
        top = next((hit for hit in hits if not types or hit.type in types), None)
        anchors = rule_plan.start_ids
        if top is None or top.node_id in anchors or top.node_id in reached:
            return None
        if not any(score for route in rule_plan.routes for _, score in route.starts()):
            return top  # the named nodes hold none of the question's words
        stems = set(self._weighted_stems(f"{top.name} {top.snippet}"))
        for route in rule_plan.routes:
            named = self._weighted_stems(route.words)
            total = sum(named.values())
            if (
                total
                and sum(w for stem, w in named.items() if stem in stems) >= RIVAL_SHARE * total
            ):
                return top
        return None

    def clear_winner(self, rule_plan: RulePlan, hits: Sequence[ListedNode]) -> str | None:
        """The whole question's first hit, when it clearly answers a question asking no walk.

        For a question that names no relation leaving a named node: its first hit is of the
        answer types, is no node the question names (of any type) and scores at least
        `CLEAR_LEAD` times the next hit the question does not name either (a next hit of
        unknown score, or a first hit scoring nothing, is no clear lead; a named node scores
        high because its name is written in the question, not because it matches the
        description: "Like a Scottish loch, but a long narrow sea inlet between steep cliffs"
        leads with `fjord` before `loch (inlet)`). It matches the question clearly better
        than anything else in the graph ("how do i make big ASCII banners out of normal
        text": `figlet`, whatever `make` and the section `text` agree on). None otherwise.
        """
        if self.walks_named(rule_plan) or len(hits) < 1:
            return None
        first, types = hits[0], set(rule_plan.plan.target.labels)
        if (
            (types and first.type not in types)
            or first.node_id in rule_plan.start_ids
            or first.node_id in rule_plan.named_ids
            or not first.score
        ):
            return None
        named = rule_plan.named_ids | rule_plan.start_ids
        after = next((hit for hit in hits[1:] if hit.node_id not in named), None)
        if after is not None and (after.score is None or CLEAR_LEAD * after.score > first.score):
            return None
        return first.node_id

    def unanchored(self, rule_plan: RulePlan, hits: Sequence[ListedNode]) -> bool:
        """Whether the walk is the least constrained reading and the text is not about it.

        The plan confines the answers to no type (`RulePlan.answer_type`), no relation the
        question names leaves a named node (the walks take every relation), and the whole
        question's first `LEADING_HITS` hits, of any type, hold none of the nodes the walks
        start from: what the question's words describe best is not what they name. When the
        walk still ranks first, the search's hits keep the list's last `TAIL` places
        ("progressive blockage of the carotid arteries ...": HPO's clinical course
        `Progressive` reaches thousands of diseases, and the phenotype the words describe
        stays in the list). False for a plan with no walk.
        """
        if not rule_plan.relational or rule_plan.answer_type is not None:
            return False
        return not self.walks_named(rule_plan) and not self.about_named(rule_plan, hits)

    def about_named(self, rule_plan: RulePlan, hits: Sequence[ListedNode]) -> bool:
        """Whether the question's text is about a node it names.

        The whole question's first `LEADING_HITS` hits, of any type, hold a node the walks
        start from. When the search still ranks first, the walk's best reached nodes keep
        the list's last `TAIL` places: "Fibroadenoma of the breast is classified under which
        broader phenotype terms?" names its first hit, its search ranks first, and the
        broader terms the walk reached from it stay in the list.
        """
        return bool({hit.node_id for hit in hits[:LEADING_HITS]} & rule_plan.start_ids)

    def walk_confirmed(self, rule_plan: RulePlan, reach: Reach) -> bool:
        """Whether the walk reached nodes along a named relation, in its direction.

        The question then asks for that relation's nodes (`rival_score`'s `by_name`).
        """
        return self.walks_named(rule_plan) and reach.directed()

    def walks_named(self, rule_plan: RulePlan) -> bool:
        """Whether a relation the question names leaves a named node's type (asks for a walk)."""
        return any(
            self.schema.touches(relation, route.node.type)
            for relation in rule_plan.relations
            for route in rule_plan.routes
        )

    def leading_rivals(
        self, rule_plan: RulePlan, hits: Sequence[ListedNode], reach: Reach
    ) -> list[str]:
        """The whole question's leading hits that rival the walk (`rival_score`'s `leading`).

        Only while the plan's reading is unsure: an anchor is loose (its words mostly used as
        words in the graph's text), unless the search's own top hit is a node named with
        confidence (the question is about it); or the relation the question names lies along
        no path the walks took. Otherwise none.
        """
        leading = self.leading(rule_plan, hits)
        sure = {n.node_id for r in rule_plan.routes if not r.loose for n, _ in r.starts()}
        named_top = bool(leading) and leading[0] in sure
        unconfirmed = bool(rule_plan.relations) and not any(
            node.on_path for node in reach.nodes.values()
        )
        return leading if (rule_plan.loose and not named_top) or unconfirmed else []

    def leading(self, rule_plan: RulePlan, hits: Sequence[ListedNode]) -> list[str]:
        """The whole question's first `LEADING_HITS` search hits of the plan's answer types."""
        types = set(rule_plan.plan.target.labels)
        return [hit.node_id for hit in hits if not types or hit.type in types][:LEADING_HITS]

    def _weighted_stems(self, text: str) -> dict[str, float]:
        """The stems of `text`'s content words, each with its word's idf (1.0 without stats)."""
        spans = [
            (text[start:end], stem)
            for start, end, stem in self.reader.stemmer.word_spans(text)
            if end - start >= MIN_CONTENT_CHARS
        ]
        if self.vocabulary is None:
            return {stem: 1.0 for _, stem in spans}
        tokens = [(self.reader.analyzer.tokenize(word) or [""])[0] for word, _ in spans]
        weights = self.vocabulary.idf(tokens)
        return {stem: weight for (_, stem), weight in zip(spans, weights, strict=True)}
