"""Static, dynamic (plan) and agent-signal RRF: hand-computed scores, grids, spec round trip."""

from __future__ import annotations

import numpy as np
import pytest

from rank.fusion.fuse import (
    AgentRRF,
    DynamicRRF,
    FusionError,
    PlanSignals,
    StaticRRF,
    apply_spec,
    cand_bucket,
    confidence_level,
    fuse_rankings,
    length_bucket,
    risk_index,
    spec_from_record,
    spec_record,
)
from rank.fusion.grid import grid_search, prepare_question, score_grid, simplex
from rank.rankings import AgentSignals


def signals(
    top_votes: int = 3, agents: int = 3, length: int = 5, calls: float = 2.0
) -> AgentSignals:
    return AgentSignals(
        agents=agents, top_votes=top_votes, vote_entropy=0.1, fused_length=length,
        neighbor_calls=calls,
    )  # fmt: skip


def test_static_rrf_matches_hand_computation() -> None:
    ids, scores = fuse_rankings([["a", "b", "c"], ["c", "a"]], np.array([0.5, 0.5]), 1.0)
    # a: .5/2 + .5/3; b: .5/3; c: .5/4 + .5/2
    assert ids == ["a", "c", "b"]
    assert scores == pytest.approx([0.5 / 2 + 0.5 / 3, 0.5 / 4 + 0.5 / 2, 0.5 / 3])


def test_zero_weight_drops_ids_only_that_ranking_has() -> None:
    ids, _ = fuse_rankings([["a", "b"], ["z", "a"]], np.array([1.0, 0.0]), 60.0)
    assert ids == ["a", "b"]


def test_ties_keep_first_appearance_order() -> None:
    ids, scores = fuse_rankings([["x", "y"], ["y", "x"]], np.array([0.5, 0.5]), 10.0)
    assert scores[0] == scores[1]
    assert ids == ["x", "y"]


def test_depth_cuts_the_fused_list() -> None:
    ids, _ = fuse_rankings([list("abcdef")], np.array([1.0]), 60.0, depth=3)
    assert ids == ["a", "b", "c"]


def test_weight_count_must_match() -> None:
    with pytest.raises(FusionError, match="2 rankings"):
        fuse_rankings([["a"], ["b"]], np.array([1.0]), 60.0)
    spec = StaticRRF(weights=(0.5, 0.5), k=60)
    with pytest.raises(FusionError, match="same sources"):
        apply_spec(spec, [["a"]], None)


def test_agent_signal_weight_is_bucket_times_level() -> None:
    spec = AgentRRF(
        k=5, feature="agreement", bucket_weights=(1.0, 2.0, 3.0, 4.0, 5.0),
        level_multipliers=(0.0, 0.1, 0.5, 1.0),
    )  # fmt: skip
    assert spec.graph_weight(signals(top_votes=3, length=5)) == pytest.approx(3.0 * 1.0)
    assert spec.graph_weight(signals(top_votes=1, length=2)) == pytest.approx(2.0 * 0.1)
    assert spec.graph_weight(signals(top_votes=2, length=40)) == pytest.approx(5.0 * 0.5)
    weights = spec.weights_for(signals(top_votes=3, length=1))
    assert weights.tolist() == [1.0, 1.0]
    with pytest.raises(FusionError, match="agent run"):
        spec.weights_for(None)


@pytest.mark.parametrize(
    ("length", "bucket"), [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (10, 2), (11, 3), (31, 4)]
)
def test_length_buckets(length: int, bucket: int) -> None:
    assert length_bucket(signals(length=length)) == bucket


def test_confidence_levels() -> None:
    assert confidence_level(signals(length=0), "agreement") == 0
    assert confidence_level(signals(top_votes=1), "agreement") == 1
    assert confidence_level(signals(top_votes=2), "agreement") == 2
    assert confidence_level(signals(top_votes=3), "agreement") == 3
    assert confidence_level(signals(calls=0), "neighbor_calls") == 1
    assert confidence_level(signals(calls=5), "neighbor_calls") == 3


def test_spec_round_trip_and_bad_record() -> None:
    for spec in (
        StaticRRF(weights=(0.3, 0.7), k=2),
        AgentRRF(k=5, feature="entropy", bucket_weights=(1,) * 5, level_multipliers=(0, 1, 1, 1)),
        DynamicRRF(k=5, bucket_weights=(2, 1, 0.2, 0, 0), risk_multipliers=(0, 0.5, 1, 1.5)),
    ):
        assert spec_from_record(spec_record(spec)) == spec
    old = spec_record(AgentRRF(k=5, feature="entropy", bucket_weights=(1,) * 5,
                               level_multipliers=(0, 1, 1, 1))) | {"mode": "dynamic"}  # fmt: skip
    assert isinstance(spec_from_record(old), AgentRRF)  # a spec saved before plan runs
    with pytest.raises(FusionError, match="'static', 'dynamic' or 'agents'"):
        spec_from_record({"mode": "max"})
    with pytest.raises(FusionError, match="incomplete"):
        spec_from_record({"mode": "static"})


def test_simplex_grid_for_two_rankings_is_grasps_w_grid() -> None:
    grid = simplex(2)
    assert len(grid) == 21
    assert np.allclose(grid.sum(axis=1), 1.0)
    assert sorted(grid[:, 0].round(2).tolist()) == [round(0.05 * i, 2) for i in range(21)]
    assert len(simplex(3)) == 231


def test_score_grid_hits_and_mrr() -> None:
    question = prepare_question([["a", "g"], ["g", "b"]], ["g"], lambda n: True)
    hits, reciprocal = score_grid([question], np.array([[1.0, 0.0], [0.0, 1.0]]), 60.0)
    assert hits.tolist() == [0.0, 1.0]
    assert reciprocal.tolist() == [0.5, 1.0]


def test_score_grid_skips_non_candidates() -> None:
    question = prepare_question([["brand", "g"]], ["g"], lambda n: n != "brand")
    hits, _ = score_grid([question], np.array([[1.0]]), 60.0)
    assert hits.tolist() == [1.0]


def test_grid_picks_the_informative_ranking() -> None:
    questions = [
        prepare_question([[f"x{i}"], [f"g{i}", f"y{i}"]], [f"g{i}"], lambda n: True)
        for i in range(6)
    ]
    result = grid_search(questions, 2, modes=("static",))
    assert isinstance(result.best, StaticRRF)
    assert result.best.weights[0] < 0.5  # the text ranking is the right one
    assert result.static[1] == 1.0
    assert result.heatmap.shape == (21, 9)
    assert result.dynamic is None


def test_dynamic_beats_static_when_agreement_predicts_the_graph() -> None:
    questions = []
    for i in range(12):
        agree = i % 2 == 0
        graph = [f"g{i}", f"t{i}"] if agree else [f"w{i}", f"g{i}"]
        text = [f"t{i}", f"g{i}"] if agree else [f"g{i}", f"w{i}"]
        meta = signals(top_votes=3 if agree else 1)
        questions.append(prepare_question([graph, text], [f"g{i}"], lambda n: True, meta))
    result = grid_search(questions, 2)
    assert result.dynamic is None  # no plan run
    assert result.agents is not None
    dynamic, hit, _ = result.agents
    assert hit == 1.0
    assert result.static[1] < 1.0
    assert isinstance(result.best, AgentRRF)
    assert dynamic.feature in ("agreement", "entropy", "neighbor_calls")
    low = dynamic.level_multipliers[1]
    high = dynamic.level_multipliers[3]
    assert low < high


@pytest.mark.parametrize(
    ("n_cand", "bucket"),
    [(0, 0), (1, 0), (10, 0), (11, 1), (50, 1), (51, 2), (100, 2), (101, 3), (500, 3), (501, 4)],
)
def test_n_cand_buckets_are_grasps(n_cand: int, bucket: int) -> None:
    assert cand_bucket(PlanSignals(n_cand, "normal")) == bucket


def test_plan_weight_is_w_bucket_times_m_risk() -> None:
    spec = DynamicRRF(
        k=10, bucket_weights=(2.0, 1.4, 0.6, 0.1, 0.0), risk_multipliers=(0.0, 0.5, 1.0, 1.5)
    )
    assert spec.graph_weight(PlanSignals(3, "aggressive")) == pytest.approx(3.0)
    assert spec.graph_weight(PlanSignals(40, "weak")) == pytest.approx(0.7)
    assert spec.graph_weight(PlanSignals(2, "no_trade")) == 0.0  # pure text: the opt-out
    assert spec.graph_weight(PlanSignals(900, "aggressive")) == 0.0
    assert spec.weights_for(PlanSignals(60, "normal")).tolist() == [0.6, 1.0]
    assert risk_index(PlanSignals(1, "no_trade")) == 0
    with pytest.raises(FusionError, match="risk level"):
        risk_index(PlanSignals(1, "bold"))
    with pytest.raises(FusionError, match="plan run"):
        spec.weights_for(signals())
    # n_cand 0 with no_trade: the graph ranking adds nothing, the text ranking decides
    ids, _ = apply_spec(
        DynamicRRF(k=5, bucket_weights=(1,) * 5, risk_multipliers=(0, 1, 1, 1)),
        [["g"], ["t", "g"]],
        PlanSignals(0, "no_trade"),
    )
    assert ids == ["t", "g"]


def test_dynamic_grid_reads_n_cand_and_risk_level() -> None:
    """Small candidate sets from a trusted plan hold the answer; big weak ones do not."""
    questions = []
    for i in range(12):
        precise = i % 2 == 0
        graph = [f"g{i}", f"t{i}"] if precise else [f"w{i}", f"g{i}"]
        text = [f"t{i}", f"g{i}"] if precise else [f"g{i}", f"w{i}"]
        meta = PlanSignals(5, "aggressive") if precise else PlanSignals(800, "weak")
        questions.append(prepare_question([graph, text], [f"g{i}"], lambda n: True, meta))
    result = grid_search(questions, 2)
    assert result.agents is None and result.dynamic is not None
    spec, hit, _ = result.dynamic
    assert hit == 1.0 and result.static[1] < 1.0
    assert isinstance(result.best, DynamicRRF)
    assert spec.bucket_weights[0] in (1.0, 1.2, 1.4, 1.6, 2.0)  # GRASP's grid
    assert (
        spec.bucket_weights[4] * spec.risk_multipliers[1]
        < spec.bucket_weights[0] * (spec.risk_multipliers[3])
    )
