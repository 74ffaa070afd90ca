"""EM and token F1 against HotpotQA's official answer normalisation."""

from __future__ import annotations

import pytest

from evals.answers.metrics import exact_match, normalize_answer, score_answer, token_f1


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("The Beatles!", "beatles"),
        ("  A  cat, an apple  ", "cat apple"),
        ("Theatre", "theatre"),  # "the" only as a whole word
        ("U.S.A.", "usa"),
        ("1,755", "1755"),
        ("an", ""),
        ("Dutch-born", "dutchborn"),
    ],
)
def test_normalisation_matches_the_official_script(raw: str, normalised: str) -> None:
    assert normalize_answer(raw) == normalised


def test_exact_match_after_normalisation() -> None:
    assert exact_match("the Dutch", "dutch") == 1.0
    assert exact_match("Dutch people", "dutch") == 0.0


def test_token_f1_by_hand() -> None:
    # prediction tokens [new, york, city], gold [york, city]: 2 shared, P 2/3, R 1, F1 0.8
    f1, precision, recall = token_f1("New York City", "the York City")
    assert (precision, recall) == pytest.approx((2 / 3, 1.0))
    assert f1 == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [("yes", "no"), ("yes", "yes indeed"), ("no answer here", "noanswer"), ("noanswer", "x")],
)
def test_yes_no_noanswer_score_zero_unless_equal(prediction: str, gold: str) -> None:
    assert token_f1(prediction, gold) == (0.0, 0.0, 0.0)


def test_yes_equal_to_yes_scores_one() -> None:
    assert token_f1("Yes.", "yes")[0] == 1.0


def test_repeated_tokens_count_once_per_gold_occurrence() -> None:
    # Counter intersection: "paris" twice in the prediction, once in the gold
    f1, precision, recall = token_f1("paris paris", "paris")
    assert (precision, recall) == pytest.approx((0.5, 1.0))
    assert f1 == pytest.approx(2 / 3)


def test_best_gold_wins() -> None:
    score = score_answer("1755", ["1754", "1755"])
    assert (score.em, score.f1) == (1.0, 1.0)
    assert score_answer("", ["x"]).f1 == 0.0
