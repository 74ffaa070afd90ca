"""The generic link-and-expand reference on a ten-node graph whose rankings are known by hand.

Alice (a cook) lives in New York and in York, Bob only in New York (his text names both
cities), Carol (a baker) only in York; York is twinned with New York; both cities lie in
Freedonia, a country (not a candidate type) whose text says "baker". Two towns are both named
Springfield, one by a river, one in the mountains. "US" and "The And" are never linked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from benchmarks.quality.generic_reference import (
    METHOD,
    GenericReference,
    Link,
    main,
    run_generic_reference,
)
from evals.runs.request import RunRequest
from evals.runs.store import read_results
from evals.summary import summarize_run
from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot

NODES = [
    ("c1", "country", "Freedonia", "Freedonia, the land of the baker."),
    ("c2", "country", "US", "US is a country."),
    ("c3", "country", "The And", "A country with an odd name."),
    ("t1", "city", "New York", "New York is a harbour city."),
    ("t2", "city", "York", "York is an old walled city."),
    ("t3", "city", "Springfield", "Springfield is a river town."),
    ("t4", "city", "Springfield", "Springfield is a mountain town."),
    ("p1", "person", "Alice Marsh", "Alice Marsh, a cook."),
    ("p2", "person", "Bob Stone", "Bob Stone paints New York and York."),
    ("p3", "person", "Carol Reed", "Carol Reed, a baker."),
]
EDGES = [
    ("p1", "t1", "lives_in"),
    ("p1", "t2", "lives_in"),
    ("p2", "t1", "lives_in"),
    ("p3", "t2", "lives_in"),
    ("t2", "t1", "twinned_with"),
    ("t1", "c1", "located_in"),
    ("t2", "c1", "located_in"),
    ("t3", "c2", "located_in"),
]
BAKER = "Which baker lives in both New York and York?"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out = tmp_path_factory.mktemp("towns") / "snapshot"
    columns = ("id", "type", "name", "text")
    nodes = pa.table({c: [n[i] for n in NODES] for i, c in enumerate(columns)})
    edges = pa.table({c: [e[i] for e in EDGES] for i, c in enumerate(("src", "dst", "relation"))})
    build_snapshot(nodes, edges, out, name="towns", candidate_types=["city", "person"])
    return Snapshot.open(out)


@pytest.fixture(scope="module")
def reference(snapshot: Snapshot) -> GenericReference:
    return GenericReference(snapshot)


def ids(snapshot: Snapshot, *external: str) -> list[int]:
    return [snapshot.internal_id(node) for node in external]


def test_longest_name_first_and_shorter_match_inside_skipped(
    reference: GenericReference, snapshot: Snapshot
) -> None:
    linking = reference.linker.link(BAKER)
    new_york, york = ids(snapshot, "t1", "t2")
    # words: which baker lives in both new york and york; the first "york" is inside "new york"
    assert linking.links == [Link(5, 7, (new_york,)), Link(8, 9, (york,))]
    assert linking.nodes == [new_york, york]
    assert linking.remaining == "which baker lives in both and"


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        ("Is Springfield in the mountain region?", "t4", "t3"),
        ("Is Springfield on the river?", "t3", "t4"),
    ],
)
def test_homonyms_all_kept_in_bm25_order(
    reference: GenericReference, snapshot: Snapshot, question: str, first: str, second: str
) -> None:
    (link,) = reference.linker.link(question).links
    assert link.nodes == tuple(ids(snapshot, first, second))


@pytest.mark.parametrize("question", ["Where is the US?", "Is The And a country?", "the and"])
def test_stopword_and_short_names_are_never_linked(
    reference: GenericReference, question: str
) -> None:
    assert reference.linker.link(question).links == []


def test_agreement_then_remaining_words(reference: GenericReference, snapshot: Snapshot) -> None:
    alice, bob, carol = ids(snapshot, "p1", "p2", "p3")
    whole = snapshot.index.score_nodes(BAKER, np.array([bob, carol]))
    assert whole[0] > whole[1]  # on the whole question Bob (New York, York) beats Carol
    # Alice is reached from both cities, so first though no word left ("baker") is hers; Carol
    # then beats Bob on those words; the linked cities (York reaches New York) and the
    # country (not a candidate) are left out
    assert reference.rank(BAKER).expanded == [alice, carol, bob]


def test_fill_with_bm25_of_the_whole_question_candidates_only(
    reference: GenericReference, snapshot: Snapshot
) -> None:
    ranking = reference.rank(BAKER)
    codes = [snapshot.type_code("city"), snapshot.type_code("person")]
    hits, _ = snapshot.index.search(BAKER, 100, node_types=codes)
    fill = [node for node in hits.tolist() if node not in ranking.expanded]
    assert fill  # the linked cities match "new york", "york"
    assert ranking.nodes == ranking.expanded + fill
    assert snapshot.internal_id("c1") not in ranking.nodes  # says "baker" but is a country


def test_no_link_is_plain_bm25_and_k_caps_the_list(snapshot: Snapshot) -> None:
    small = GenericReference(snapshot, k=2)
    codes = [snapshot.type_code("city"), snapshot.type_code("person")]
    question = "Who is a baker or a cook?"
    hits, _ = snapshot.index.search(question, 2, node_types=codes)
    assert small.rank(question).nodes == hits.tolist()
    assert sorted(hits.tolist()) == ids(snapshot, "p1", "p3")  # not Freedonia, a country
    assert len(small.rank(BAKER).nodes) == 2


def write_questions(path: Path) -> Path:
    questions = [
        {"id": "q1", "query": BAKER, "answer_ids": ["p1"], "family": "agreement"},
        {"id": "q2", "query": "Who lives in York?", "answer_ids": ["p3"], "family": "one_hop"},
        {"id": "q3", "query": "Who paints?", "answer_ids": ["p2"], "family": "text"},
    ]
    path.write_text("".join(json.dumps(item) + "\n" for item in questions))
    return path


def test_writes_a_run_that_summarize_run_reads(
    snapshot: Snapshot, reference: GenericReference, tmp_path: Path
) -> None:
    qa = write_questions(tmp_path / "qa.jsonl")
    out = tmp_path / "run"
    run_generic_reference(RunRequest(snapshot=snapshot.path, qa=qa, out=out))
    summary = summarize_run(out)
    assert summary.label == METHOD
    assert summary.overall.questions == 3
    hit1 = {name: group.means()["ark"]["hit@1"] for name, group in summary.groups.items()}
    # q2: York reaches New York, Alice and Carol once each and "who lives" matches no text,
    # so internal id order puts New York first; q3 links nothing and is BM25 alone
    assert hit1 == {"all": 2 / 3, "agreement": 1.0, "one_hop": 0.0, "text": 1.0}
    results = {record.question_id: record.result for record in read_results(out)}
    baker, york, paints = results["q1"], results["q2"], results["q3"]
    assert baker.fused == ["p1", "p3", "p2", "t1", "t2"]
    assert york.fused == ["t1", "p1", "p3", "t2", "p2"]
    assert paints.fused == ["p2"]
    assert baker.config["linked"] == [
        {"span": "new york", "nodes": ["t1"]},
        {"span": "york", "nodes": ["t2"]},
    ]


def test_command_line_prints_hit_at_1_per_family(
    snapshot: Snapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    qa = write_questions(tmp_path / "qa.jsonl")
    out = tmp_path / "run"
    argv = ["generic_reference", str(snapshot.path), "--qa", str(qa), "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    main()
    printed = capsys.readouterr().out
    assert "| agreement | 1 | 1.000 | 1.000 |" in printed
    assert "| one_hop | 1 | 0.000 | 0.000 |" in printed
    assert "| all | 3 | 0.667 | 0.667 |" in printed
