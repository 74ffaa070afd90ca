"""Both metric protocols against hand-computed cases, and aggregation with failures."""

from __future__ import annotations

import pytest

from evals.metrics import (
    OVERALL,
    CandidateFilter,
    aggregate,
    ark_metrics,
    score_question,
    stark_metrics,
)

# p* are products (the candidate type), b* brands, c* categories.
TYPES = {f"p{i}": "product" for i in range(40)} | {"b1": "brand", "b2": "brand", "c1": "category"}
IS_CANDIDATE = CandidateFilter(TYPES, frozenset({"product"}))


def test_several_gold_answers() -> None:
    ranked = ["p1", "p2", "p3", "p4", "p5", "p6"]
    gold = ["p2", "p5", "p30"]
    assert ark_metrics(ranked, gold) == {
        "hit@1": 0.0,
        "hit@5": 1.0,
        "recall@20": pytest.approx(2 / 3),
        "mrr": 0.5,
        "recall@40": pytest.approx(2 / 3),
    }
    assert stark_metrics(ranked, gold, IS_CANDIDATE) == ark_metrics(ranked, gold)


def test_first_position_hit() -> None:
    assert ark_metrics(["p7", "p1"], ["p7"]) == {
        "hit@1": 1.0,
        "hit@5": 1.0,
        "recall@20": 1.0,
        "mrr": 1.0,
        "recall@40": 1.0,
    }


@pytest.mark.parametrize(("position", "hit5"), [(5, 1.0), (6, 0.0)])
def test_hit_at_5_boundary(position: int, hit5: float) -> None:
    ranked = [f"p{i}" for i in range(10, 10 + position - 1)] + ["p1"]
    scores = ark_metrics(ranked, ["p1"])
    assert scores["hit@5"] == hit5
    assert scores["mrr"] == pytest.approx(1 / position)


def test_recall_and_mrr_see_only_the_top_20() -> None:
    ranked = [f"p{i}" for i in range(20)] + ["p39"]
    scores = ark_metrics(ranked, ["p39", "p0"])
    assert scores["recall@20"] == 0.5
    assert scores["mrr"] == 1.0
    deep = ark_metrics(ranked, ["p39"])
    assert deep == {"hit@1": 0.0, "hit@5": 0.0, "recall@20": 0.0, "mrr": 0.0, "recall@40": 1.0}


@pytest.mark.parametrize(("rank", "mrr"), [(20, 1 / 20), (21, 0.0), (25, 0.0)])
def test_mrr_is_computed_on_the_ranking_truncated_to_20(rank: int, mrr: float) -> None:
    # The paper's appendix: the ranking is cut to the top 20; Hit@1 and MRR use that ranking.
    ranked = [f"p{i}" for i in range(10, 10 + rank - 1)] + ["p1"]
    assert ark_metrics(ranked, ["p1"])["mrr"] == pytest.approx(mrr)
    assert stark_metrics(ranked, ["p1"], IS_CANDIDATE)["mrr"] == pytest.approx(mrr)


def test_stark_cuts_at_20_before_dropping_non_candidates() -> None:
    """The paper's order: truncate the fused ranking to 20, then filter to candidates.

    Five non-candidates on top and the gold product at fused rank 22: filtering first would
    lift it to candidate rank 17; cutting first leaves it out, so every metric is 0.
    """
    filler = [f"x{i}" for i in range(5)]
    is_candidate = CandidateFilter(TYPES | dict.fromkeys(filler, "brand"), frozenset({"product"}))
    ranked = [*filler, *(f"p{i}" for i in range(10, 26)), "p1"]
    assert ranked.index("p1") + 1 == 22
    zeros = {"hit@1": 0.0, "hit@5": 0.0, "recall@20": 0.0, "mrr": 0.0}
    assert stark_metrics(ranked, ["p1"], is_candidate) == {**zeros, "recall@40": 1.0}
    assert ark_metrics(ranked, ["p1"]) == {**zeros, "recall@40": 1.0}
    # within the cut the filter still lifts a candidate: fused rank 6 -> candidate rank 1
    assert stark_metrics([*filler, "p1"], ["p1"], is_candidate)["mrr"] == 1.0
    # ... and a gold at fused rank 20 stays in: candidate rank 15
    edge = [*filler, *(f"p{i}" for i in range(10, 24)), "p1"]
    assert stark_metrics(edge, ["p1"], is_candidate)["mrr"] == pytest.approx(1 / 15)


@pytest.mark.parametrize("ranked", [[], ["b1", "c1"]])
def test_empty_prediction_is_a_miss_under_stark(ranked: list[str]) -> None:
    zeros = {"hit@1": 0.0, "hit@5": 0.0, "recall@20": 0.0, "mrr": 0.0, "recall@40": 0.0}
    assert stark_metrics(ranked, ["p1", "p2"], IS_CANDIDATE) == zeros
    assert ark_metrics(ranked, ["p1", "p2"]) == zeros


def test_no_gold_selected_gives_mrr_zero() -> None:
    assert ark_metrics(["p1", "p2"], ["p3"])["mrr"] == 0.0


def test_non_candidates_are_dropped_before_ranking_under_stark() -> None:
    ranked = ["b1", "c1", "p4", "p9"]
    ark = ark_metrics(ranked, ["p4"])
    stark = stark_metrics(ranked, ["p4"], IS_CANDIDATE)
    assert (ark["hit@1"], ark["mrr"]) == (0.0, pytest.approx(1 / 3))
    assert (stark["hit@1"], stark["mrr"]) == (1.0, 1.0)


def test_stark_recall_denominator_counts_candidate_gold_only() -> None:
    # Gold holds a brand (not a candidate): ARK counts it, STaRK drops it.
    ranked = ["p1", "p2"]
    gold = ["p1", "b2"]
    assert ark_metrics(ranked, gold)["recall@20"] == 0.5
    assert stark_metrics(ranked, gold, IS_CANDIDATE)["recall@20"] == 1.0


def test_non_candidates_beyond_top_20_leave_the_stark_top_20_short() -> None:
    # 20 brands fill the cut; p1 at fused rank 21 is outside it under both protocols.
    filler = [f"x{i}" for i in range(20)]
    types = TYPES | dict.fromkeys(filler, "brand")
    is_candidate = CandidateFilter(types, frozenset({"product"}))
    ranked = [*filler, "p1"]
    assert ark_metrics(ranked, ["p1"])["recall@20"] == 0.0
    assert stark_metrics(ranked, ["p1"], is_candidate)["recall@20"] == 0.0


def test_ties_and_repeats_rank_by_first_position() -> None:
    # The list is ranked as given (vote ties are broken upstream); a repeat counts once.
    ranked = ["p1", "p1", "p1", "p1", "p1", "p2"]
    scores = ark_metrics(ranked, ["p2"])
    assert scores["hit@5"] == 1.0
    assert scores["mrr"] == 0.5
    assert ark_metrics(["p3", "p2", "p3"], ["p2", "p3"]) == {
        "hit@1": 1.0,
        "hit@5": 1.0,
        "recall@20": 1.0,
        "mrr": 1.0,
        "recall@40": 1.0,
    }


def test_question_without_candidate_gold_scores_zero() -> None:
    assert stark_metrics(["b1"], ["b1"], IS_CANDIDATE)["hit@1"] == 0.0
    assert ark_metrics(["b1"], ["b1"])["hit@1"] == 1.0
    assert ark_metrics(["p1"], [])["recall@20"] == 0.0


def test_empty_candidate_types_means_all_types() -> None:
    every = CandidateFilter(TYPES)
    assert every("b1") and every("p1")
    assert not every("unknown")
    assert stark_metrics(["b1"], ["b1"], every)["hit@1"] == 1.0


def test_callable_type_lookup() -> None:
    is_candidate = CandidateFilter(
        lambda node: "product" if node.startswith("p") else None, frozenset({"product"})
    )
    assert is_candidate("p1") and not is_candidate("b1")


def test_aggregate_overall_per_family_and_failures() -> None:
    hit = score_question(["p1"], ["p1"], IS_CANDIDATE)
    miss = score_question(["p2"], ["p1"], IS_CANDIDATE)
    groups = aggregate([("text", hit), ("text", miss), ("one_hop", hit)], ["one_hop", None])
    assert list(groups) == [OVERALL, "one_hop", "text", "unlabelled"]
    overall = groups[OVERALL]
    assert (overall.questions, overall.failures, overall.total) == (3, 2, 5)
    # The headline counts a failed question as a miss; successful-only is the note.
    assert overall.means()["stark"]["hit@1"] == pytest.approx(2 / 5)
    assert overall.means_successful()["ark"]["hit@1"] == pytest.approx(2 / 3)
    assert groups["text"].means()["ark"]["mrr"] == 0.5
    assert (groups["one_hop"].questions, groups["one_hop"].failures) == (1, 1)
    assert groups["one_hop"].means()["ark"]["hit@1"] == 0.5
    assert groups["unlabelled"].means()["ark"]["hit@1"] == 0.0
    as_dict = groups["one_hop"].to_dict()
    assert as_dict["failures"] == 1
    assert as_dict["metrics"]["ark"]["hit@1"] == 0.5  # type: ignore[index]
    assert as_dict["metrics_successful_only"]["ark"]["hit@1"] == 1.0  # type: ignore[index]


def test_recall_at_40_is_gme_recovery_within_40_nodes() -> None:
    """GME: the share of the gold evidence among the 40 nodes returned; others use budget."""
    ranked = [f"p{i}" for i in range(10, 30)] + ["p1", *(f"b{i}" for i in range(18)), "p2", "p3"]
    types = TYPES | {f"b{i}": "brand" for i in range(18)}
    is_candidate = CandidateFilter(types, frozenset({"product"}))
    assert ranked.index("p2") + 1 == 40 and ranked.index("p3") + 1 == 41
    ark = ark_metrics(ranked, ["p1", "p2", "p3", "p4"])
    assert ark["recall@20"] == 0.0
    assert ark["recall@40"] == 0.5  # p1 (rank 21) and p2 (rank 40); p3 is the 41st node
    # STaRK cuts at 40 first: the 18 brands still use up budget, so p3 stays out
    assert stark_metrics(ranked, ["p1", "p2", "p3", "p4"], is_candidate)["recall@40"] == 0.5


def test_aggregates_carry_recall_at_40() -> None:
    scored = [("text", score_question(["a", "b"], ["b"], lambda _: True))]
    means = aggregate(scored)[OVERALL].means()
    assert means["ark"]["recall@40"] == 1.0
    assert means["stark"]["recall@40"] == 1.0
