"""Retrieval metrics (hit@1, hit@5, recall@20, MRR) under the ARK and STaRK protocols.

Two protocols are computed for every question, because papers report both:

* **ARK** scores the fused answer list exactly as the agent returned it. Every node counts,
  whatever its type. ``recall@20 = |gold ∩ top-20| / |gold|``; MRR is ``1 / rank`` of the
  first gold node, and 0 when no gold node was selected at all.
* **STaRK** mirrors the STaRK evaluator on the paper's truncated ranking: the fused ranking
  is first cut to its top ``CUTOFF`` (20), as the paper's appendix does, and only then are
  non-candidate nodes dropped from it before ranks are counted (so a candidate at fused rank
  22 never counts, even when non-candidates above it are dropped); gold nodes that are not
  candidates are dropped from the denominator of recall. An
  empty prediction (or one with no candidate left) is a miss on every metric, never a crash.
  The STaRK evaluator ranks every unselected candidate below the selected ones in an
  arbitrary tie order; we count such a gold node as not retrieved (MRR 0), which is the
  deterministic reading of that tie.

Both protocols rank a list as given: ties in the agent's votes are already broken by the
fusion rule upstream, and a node repeated in the list counts only at its first position.
As in the paper's appendix, the ranking is truncated to its top ``CUTOFF`` (20) nodes and every
metric is computed on that truncated ranking: Recall@20, Hit@1, Hit@5 and MRR alike, so a gold
node first found at rank 25 gives MRR 0, not 1/25. A question with no gold node (after
candidate filtering under STaRK) scores 0 everywhere.

Every question is also scored at depth ``DEPTH`` (40), GME's retrieval budget: ``recall@40``
is the share of the gold nodes among the first 40 nodes returned (cut at 40 first, then
filtered under STaRK), which is GME's gold-evidence recovery within 40 nodes when the gold set
is the evidence set (nodes of other types use up the budget but never count). It is kept
beside the headline metrics (``DEPTH_METRIC_NAMES``), so a dense baseline returning 40 nodes
is scored at the depth its strategies are designed for.

Aggregates count every question: one whose agents all failed scores 0 on every metric in the
headline means (the paper's tables count every test question); the means over successful
questions only are kept beside them as a note.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot

METRIC_NAMES: tuple[str, ...] = ("hit@1", "hit@5", "recall@20", "mrr")
DEPTH_METRIC_NAMES: tuple[str, ...] = ("recall@40",)
"""Scored and aggregated for every question, shown where depth matters (dense baselines)."""
ALL_METRIC_NAMES: tuple[str, ...] = METRIC_NAMES + DEPTH_METRIC_NAMES
METRIC_TITLES = {
    "hit@1": "Hit@1",
    "hit@5": "Hit@5",
    "recall@20": "R@20",
    "mrr": "MRR",
    "recall@40": "R@40",
}
PROTOCOLS: tuple[str, ...] = ("ark", "stark")
PROTOCOL_TITLES = {"ark": "ARK", "stark": "STaRK"}
OVERALL = "all"
"""Key of the overall group in per-family aggregates."""
NO_FAMILY = "unlabelled"
"""Family name used for questions that carry none."""
CUTOFF = 20
"""Rankings are truncated to this many nodes before any metric is computed (paper appendix)."""
DEPTH = 40
"""GME's retrieval budget: ``recall@40`` sees this many nodes."""

Scores = dict[str, float]
ProtocolScores = dict[str, dict[str, float]]
CandidateTest = Callable[[str], bool]


def _dedupe(ranked: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    unique: list[str] = []
    for node_id in ranked:
        if node_id not in seen:
            seen.add(node_id)
            unique.append(node_id)
    return unique


def _score(ranked: list[str], gold: set[str], deep: list[str]) -> Scores:
    """Metrics of `ranked` (already cut at CUTOFF) and recall@40 of `deep` (cut at DEPTH)."""
    if not gold:
        return dict.fromkeys(ALL_METRIC_NAMES, 0.0)
    top = ranked[:CUTOFF]
    first = next((rank for rank, node in enumerate(top, start=1) if node in gold), None)
    return {
        "hit@1": float(first == 1),
        "hit@5": float(first is not None and first <= 5),
        "recall@20": len(gold.intersection(top)) / len(gold),
        "mrr": 0.0 if first is None else 1.0 / first,
        "recall@40": len(gold.intersection(deep[:DEPTH])) / len(gold),
    }


def ark_metrics(ranked: Sequence[str], gold: Iterable[str]) -> Scores:
    """Score a ranked list under the ARK protocol (the list as is, every node counts).

    Args:
        ranked: External node ids, best first (the fused answer list).
        gold: External ids of the correct answers.

    Returns:
        ``{"hit@1", "hit@5", "recall@20", "mrr", "recall@40"}`` as floats in [0, 1].
    """
    unique = _dedupe(ranked)
    return _score(unique, set(gold), unique)


def stark_metrics(
    ranked: Sequence[str], gold: Iterable[str], is_candidate: CandidateTest
) -> Scores:
    """Score a ranked list under the STaRK evaluator's protocol (candidate types only).

    The ranking is cut at ``CUTOFF`` first and filtered to candidates second (the paper
    truncates the fused ranking to 20 and computes every metric on that ranking).

    Args:
        ranked: External node ids, best first.
        gold: External ids of the correct answers.
        is_candidate: True for ids whose node type can be an answer.

    Returns:
        ``{"hit@1", "hit@5", "recall@20", "mrr", "recall@40"}`` as floats in [0, 1]
        (``recall@40``: cut at ``DEPTH``, then filtered).
    """
    unique = _dedupe(ranked)
    candidates = [node for node in unique[:CUTOFF] if is_candidate(node)]
    deep = [node for node in unique[:DEPTH] if is_candidate(node)]
    return _score(candidates, {node for node in gold if is_candidate(node)}, deep)


def score_question(
    ranked: Sequence[str], gold: Sequence[str], is_candidate: CandidateTest
) -> ProtocolScores:
    """Both protocols for one question: ``{"ark": {...}, "stark": {...}}``."""
    return {"ark": ark_metrics(ranked, gold), "stark": stark_metrics(ranked, gold, is_candidate)}


@dataclass(frozen=True)
class CandidateFilter:
    """Decides which external ids are candidates (answers allowed under the STaRK protocol).

    Attributes:
        node_types: External id -> node type name, for every node that may appear.
        candidate_types: Allowed type names; empty means every type is a candidate.
    """

    node_types: Mapping[str, str] | Callable[[str], str | None]
    candidate_types: frozenset[str] = frozenset()

    def __call__(self, node_id: str) -> bool:
        """True when `node_id` is a candidate; unknown ids never are."""
        if callable(self.node_types):
            type_name = self.node_types(node_id)
        else:
            type_name = self.node_types.get(node_id)
        if type_name is None:
            return False
        return not self.candidate_types or type_name in self.candidate_types

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> CandidateFilter:
        """Candidates as the snapshot's manifest declares them (``candidate_types``)."""
        from graphs.errors import UnknownNodeError

        def type_of(node_id: str) -> str | None:
            try:
                return snapshot.type_name(snapshot.internal_id(node_id))
            except UnknownNodeError:
                return None

        return cls(type_of, frozenset(snapshot.manifest.candidate_types))


@dataclass
class Aggregate:
    """Mean metrics over a group of questions; failed questions count as misses in the headline.

    Attributes:
        questions: Successfully answered questions.
        failures: Questions whose model calls kept failing (every agent errored, or the run
            raised); each scores 0 on every metric in `means`.
        sums: Protocol -> metric -> sum over the successful questions.
    """

    questions: int = 0
    failures: int = 0
    sums: dict[str, dict[str, float]] = field(
        default_factory=lambda: {p: dict.fromkeys(ALL_METRIC_NAMES, 0.0) for p in PROTOCOLS}
    )

    @property
    def total(self) -> int:
        """Every question of the group, successful or failed."""
        return self.questions + self.failures

    def add(self, metrics: Mapping[str, Mapping[str, float]]) -> None:
        """Add one successful question's scores."""
        self.questions += 1
        for protocol in PROTOCOLS:
            for name in ALL_METRIC_NAMES:
                self.sums[protocol][name] += metrics.get(protocol, {}).get(name, 0.0)

    def means(self) -> ProtocolScores:
        """The headline: means over every question, a failed one counting as a miss (0)."""
        return self._divided(self.total)

    def means_successful(self) -> ProtocolScores:
        """Means over the successful questions only (the note beside the headline)."""
        return self._divided(self.questions)

    def _divided(self, count: int) -> ProtocolScores:
        count = max(count, 1)
        return {p: {m: v / count for m, v in ms.items()} for p, ms in self.sums.items()}

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form used by ``--json`` summaries."""
        return {
            "questions": self.questions,
            "failures": self.failures,
            "metrics": self.means(),
            "metrics_successful_only": self.means_successful(),
        }


NO_VALUE = "—"


def metric_cell(group: Aggregate, value: float) -> str:
    """A mean for a table: 3 decimals, or "—" when the group holds no question at all."""
    return f"{value:.3f}" if group.total else NO_VALUE


def successful_cell(group: Aggregate, value: float) -> str:
    """A successful-only mean: "—" when no question of the group succeeded.

    Such a group has no successful-only mean; showing 0.000 would read as a score.
    """
    return f"{value:.3f}" if group.questions else NO_VALUE


def aggregate(
    scored: Iterable[tuple[str | None, Mapping[str, Mapping[str, float]]]],
    failed_families: Iterable[str | None] = (),
) -> dict[str, Aggregate]:
    """Aggregate per-question scores overall (key ``"all"``) and per question family.

    Args:
        scored: (family, {"ark": {...}, "stark": {...}}) for every successful question.
        failed_families: The family of every failed question.

    Returns:
        Group name -> Aggregate; ``"all"`` first, then families in sorted order.
    """
    groups: dict[str, Aggregate] = {OVERALL: Aggregate()}
    for family, metrics in scored:
        groups[OVERALL].add(metrics)
        groups.setdefault(family or NO_FAMILY, Aggregate()).add(metrics)
    for family in failed_families:
        groups[OVERALL].failures += 1
        groups.setdefault(family or NO_FAMILY, Aggregate()).failures += 1
    return {OVERALL: groups.pop(OVERALL), **dict(sorted(groups.items()))}
