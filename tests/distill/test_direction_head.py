"""SARG's direction classifier: labels from provenance or a model; the head trained and used."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agent.models.scripted import ScriptedModel, text_message
from answer.direction_head import SHIPPED_HEAD, DirectionHead, LearnedDirection
from answer.errors import AnswerConfigError
from answer.query_graph import Direction
from cli.app import build_app
from distill.direction import (
    LabelledQuestion,
    model_labels,
    provenance_direction,
    read_labels,
    split_rows,
    synth_labels,
    train_head,
    write_labels,
)
from distill.errors import DistillError
from tests.answer.word_encoder import WordEncoder

pytest.importorskip("sklearn")

ROWS = [
    *(LabelledQuestion(f"what follows from event {i}", Direction.forward, "a") for i in range(8)),
    *(LabelledQuestion(f"what caused outcome {i}", Direction.backward, "a") for i in range(8)),
    *(LabelledQuestion(f"who links {i} and place", Direction.bidirectional, "b") for i in range(8)),
]  # fmt: skip


def test_provenance_labels_follow_the_steps_direction() -> None:
    assert provenance_direction([["r", "out", "t"], ["s", "out", "u"]]) is Direction.forward
    assert provenance_direction([["r", "in", "t"]]) is Direction.backward
    assert provenance_direction([["r", "out", "t"], ["s", "in", "u"]]) is Direction.bidirectional
    assert provenance_direction([["r", "both", "t"]]) is Direction.bidirectional
    assert provenance_direction([]) is Direction.bidirectional  # a text-only question


def test_synthetic_questions_are_labelled_from_their_provenance() -> None:
    rows = synth_labels(["biomed"], nodes=400)
    assert {row.source for row in rows} == {"synth:biomed"}
    assert {row.direction for row in rows} == set(Direction)


def test_a_trained_head_round_trips_and_predicts(tmp_path: Path) -> None:
    encoder = WordEncoder(dim=64)
    train, held, described = split_rows(ROWS, holdout_source=None, fraction=0.25, seed=0)
    head, report = train_head(train, held, encoder, encoder_name="words", holdout=described)
    assert report.accuracy == 1.0 and report.held_out == 6  # the classes' words differ
    head.save(tmp_path / "head.json")
    loaded = DirectionHead.load(tmp_path / "head.json")
    assert loaded.about["accuracy"] == 1.0 and loaded.about["train_sources"]
    learned = LearnedDirection(loaded, encoder)
    assert asyncio.run(learned.classify("what caused outcome 99")) is Direction.backward
    assert learned.predict_many(["what follows from event 42"]) == [Direction.forward]


def test_holding_out_a_source_keeps_it_out_of_training() -> None:
    train, held, _ = split_rows(ROWS, holdout_source="b", fraction=0.2, seed=0)
    assert {r.source for r in held} == {"b"} and {r.source for r in train} == {"a"}
    with pytest.raises(DistillError, match="no labelled question has source 'c'"):
        split_rows(ROWS, holdout_source="c", fraction=0.2, seed=0)


def test_the_shipped_head_loads_and_reads_minilm_vectors() -> None:
    head = DirectionHead.load(SHIPPED_HEAD)
    assert head.dim == 384 and set(head.classes) == set(Direction)
    assert head.about["held_out"] > 0 and set(head.about["per_class"]) == {
        d.value for d in Direction
    }
    probabilities = head.probabilities(np.ones((2, 384)) / np.sqrt(384))
    assert probabilities.shape == (2, 3) and np.allclose(probabilities.sum(axis=1), 1.0)


def test_a_head_over_another_encoder_width_is_refused() -> None:
    head = DirectionHead.load(SHIPPED_HEAD)
    with pytest.raises(AnswerConfigError, match=r"384-d vectors.*--direction rule"):
        LearnedDirection(head, WordEncoder(dim=64))


def test_a_model_labels_questions_and_unusable_replies_are_left_out() -> None:
    model = ScriptedModel([text_message("backward"), text_message("no idea")])
    rows, unusable = asyncio.run(model_labels(["Why did it rain?", "Hm?"], model))
    assert [(r.question, r.direction) for r in rows] == [("Why did it rain?", Direction.backward)]
    assert unusable == 1 and rows[0].source.startswith("model:")


def test_labels_files_round_trip_and_bad_rows_say_what_is_needed(tmp_path: Path) -> None:
    write_labels(tmp_path / "l.jsonl", ROWS)
    assert read_labels(tmp_path / "l.jsonl") == ROWS
    (tmp_path / "bad.jsonl").write_text(json.dumps({"question": "q", "direction": "up"}) + "\n")
    with pytest.raises(DistillError, match=r"bad.jsonl:1: .*forward, backward or bidirectional"):
        read_labels(tmp_path / "bad.jsonl")


def test_the_cli_asks_for_a_label_source() -> None:
    done = CliRunner().invoke(build_app(), ["distill", "direction-labels", "--out", "x.jsonl"])
    assert done.exit_code == 2 and "--synth DOMAIN" in done.output
