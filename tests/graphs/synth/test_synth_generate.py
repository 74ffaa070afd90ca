"""Synthetic graphs: gold re-derived from the written edges, determinism, fairness, errors."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from graphs.bm25.tokenize import Tokenizer
from graphs.build.options import BuildOptions
from graphs.errors import GraphError
from graphs.snapshot import Snapshot
from graphs.synth.generate import DOMAINS, SynthError, build_domain, generate

ID_PATTERN = re.compile(
    r"\b(prod|brand|cat|color|paper|author|inst|field|gene|dis|drug|pheno|path|anat)-\d+\b"
)


class EdgeIndex:
    """Plain-Python neighbour sets read from edges.parquet (independent of the generator)."""

    def __init__(self, snapshot: Path) -> None:
        nodes = pq.read_table(snapshot / "nodes.parquet").to_pydict()
        edges = pq.read_table(snapshot / "edges.parquet").to_pydict()
        self.type = dict(zip(nodes["id"], nodes["type"], strict=True))
        self.name = dict(zip(nodes["id"], nodes["name"], strict=True))
        tokenizer = Tokenizer()
        tokenized = tokenizer.tokenize_many(nodes["text"])
        self.tokens = {n: set(t) for n, t in zip(nodes["id"], tokenized, strict=True)}
        self.postings: dict[str, set[str]] = defaultdict(set)
        named = tokenizer.tokenize_many(nodes["name"])
        for n, words, more in zip(nodes["id"], tokenized, named, strict=True):
            for word in (*words, *more):
                self.postings[word].add(n)
        self.out: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.into: dict[tuple[str, str], set[str]] = defaultdict(set)
        for s, d, r in zip(edges["src"], edges["dst"], edges["relation"], strict=True):
            self.out[(s, r)].add(d)
            self.into[(d, r)].add(s)

    def step(self, nodes: set[str], relation: str, direction: str, target: str) -> set[str]:
        found: set[str] = set()
        for n in nodes:
            if direction in ("out", "both"):
                found |= self.out[(n, relation)]
            if direction in ("in", "both"):
                found |= self.into[(n, relation)]
        return {n for n in found if self.type[n] == target}


def _reverse(direction: str) -> str:
    return {"out": "in", "in": "out", "both": "both"}[direction]


@pytest.fixture(scope="module", params=DOMAINS)
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp(request.param) / "snap"
    result = generate(request.param, 7, out)  # default (demo) size
    rows = {
        split: [json.loads(line) for line in path.read_text().splitlines()]
        for split, path in result.qa_files.items()
    }
    provenance = {
        p["id"]: p
        for p in map(json.loads, (out / "qa" / "provenance.jsonl").read_text().splitlines())
    }
    return result, rows, provenance, EdgeIndex(out)


def _gold(index: EdgeIndex, p: dict) -> set[str]:
    family = p["family"]
    if family == "text_only":
        return {p["node"]}
    current = {p["anchor"]}
    for relation, direction, target in p["steps"]:
        current = index.step(current, relation, direction, target)
    current.discard(p["anchor"])
    if family == "one_hop":
        return {n for n in current if p["trait"] in index.tokens[n]}
    if "filter" in p:
        relation, direction, _ = p["constraint"]
        gold_type = p["steps"][-1][2]
        current &= index.step({p["filter"]}, relation, _reverse(direction), gold_type)
    return current


def test_gold_answers_match_the_written_edges(built) -> None:
    _, rows, provenance, index = built
    for split_rows in rows.values():
        for row in split_rows:
            p = provenance[row["id"]]
            assert p["family"] == row["family"]
            assert set(row["answer_ids"]) == _gold(index, p), row
            assert len(row["answer_ids"]) == len(set(row["answer_ids"]))


def test_one_hop_trait_is_textual_and_narrows_the_neighbourhood(built) -> None:
    _, rows, provenance, index = built
    for row in (r for r in rows["test"] if r["family"] == "one_hop"):
        p = provenance[row["id"]]
        relation, direction, target = p["steps"][0]
        near = index.step({p["anchor"]}, relation, direction, target)
        assert set(row["answer_ids"]) < near  # the property removes some neighbours
        same_type = [n for n, t in index.type.items() if t == target]
        with_trait = sum(p["trait"] in index.tokens[n] for n in same_type)
        assert with_trait >= 5 * len(row["answer_ids"])  # common in the graph, not a giveaway


def test_questions_name_anchors_never_ids(built) -> None:
    _, rows, provenance, index = built
    lowered = Counter(name.lower() for name in index.name.values())
    for row in (r for split_rows in rows.values() for r in split_rows):
        assert not ID_PATTERN.search(row["query"]), row["query"]
        p = provenance[row["id"]]
        for key in ("anchor", "filter"):
            if key in p:
                name = index.name[p[key]]
                assert name.lower() in row["query"].lower()
                assert lowered[name.lower()] == 1


def test_family_and_split_sizes(built) -> None:
    result, rows, _, index = built
    assert len(rows["test"]) >= 200 and len(rows["train"]) >= 400 and rows["val"]
    for split_rows in rows.values():
        counts = Counter(r["family"] for r in split_rows)
        assert set(counts) == {"text_only", "one_hop", "two_hop", "multi_answer"}
    candidates = set(Snapshot.open(result.snapshot).manifest.candidate_types)
    bounds = {"text_only": (1, 1), "one_hop": (1, 20), "two_hop": (1, 20), "multi_answer": (3, 20)}
    for row in (r for split_rows in rows.values() for r in split_rows):
        low, high = bounds[row["family"]]
        assert low <= len(row["answer_ids"]) <= high
        assert all(a in index.type for a in row["answer_ids"])
        assert not candidates or {index.type[a] for a in row["answer_ids"]} <= candidates
    ids = [r["id"] for split_rows in rows.values() for r in split_rows]
    assert len(ids) == len(set(ids))
    queries = [r["query"] for split_rows in rows.values() for r in split_rows]
    assert len(queries) == len(set(queries))


def test_no_question_word_is_found_only_in_gold_nodes(built) -> None:
    _, rows, _, index = built
    tokenizer = Tokenizer()
    for row in (r for r in rows["test"] if r["family"] != "text_only"):
        gold = set(row["answer_ids"])
        for word in set(tokenizer.tokenize(row["query"])):
            holders = index.postings.get(word, set())
            assert not holders or not holders <= gold, (word, row["query"])


def test_snapshot_neighbors_agree_with_one_hop_gold(built) -> None:
    result, rows, provenance, _ = built
    snapshot = Snapshot.open(result.snapshot)
    for row in [r for r in rows["test"] if r["family"] in ("one_hop", "multi_answer")][:40]:
        p = provenance[row["id"]]
        if "filter" in p:
            continue
        relation, direction, target = p["steps"][0]
        hood = snapshot.neighbors(
            snapshot.internal_id(p["anchor"]),
            node_types=[snapshot.type_code(target)],
            relations=[snapshot.relation_code(relation)],
        )
        wanted = {"out": [1], "in": [-1], "both": [1, -1]}[direction]
        near = {
            snapshot.external_id(int(n))
            for n, d in zip(hood.nodes, hood.directions, strict=True)
            if d in wanted
        }
        assert set(row["answer_ids"]) <= near


def test_bm25_alone_does_well_on_text_only_and_poorly_on_relational_families(built) -> None:
    result, rows, _, _ = built
    snapshot = Snapshot.open(result.snapshot)
    recall: dict[str, list[float]] = defaultdict(list)
    for row in rows["test"]:
        found, _ = snapshot.index.search(row["query"], 20)
        top = {snapshot.external_id(int(n)) for n in found}
        recall[row["family"]].append(len(top & set(row["answer_ids"])) / len(row["answer_ids"]))
    text_only = float(np.mean(recall.pop("text_only")))
    assert text_only >= 0.6
    for family, values in recall.items():
        assert float(np.mean(values)) <= 0.3, family


def test_same_seed_gives_identical_files(tmp_path: Path) -> None:
    first = generate("biomed", 3, tmp_path / "a", nodes=800)
    second = generate("biomed", 3, tmp_path / "b", nodes=800)
    for split, path in first.qa_files.items():
        assert path.read_bytes() == second.qa_files[split].read_bytes()
    for table in ("nodes.parquet", "edges.parquet"):
        assert pq.read_table(tmp_path / "a" / table).equals(pq.read_table(tmp_path / "b" / table))
    other = generate("biomed", 4, tmp_path / "c", nodes=800)
    assert other.qa_files["test"].read_bytes() != first.qa_files["test"].read_bytes()


@pytest.mark.parametrize("domain", DOMAINS)
def test_small_graphs_build_for_every_domain(domain: str) -> None:
    built, questions = build_domain(domain, 1, nodes=600)
    assert built.graph.num_nodes <= 600
    assert {q.family for q in questions} == {"text_only", "one_hop", "two_hop", "multi_answer"}


@pytest.mark.parametrize(
    ("domain", "nodes", "message"),
    [
        ("movies", None, "choose one of: products, academic, biomed"),
        ("products", 10, "at least"),
        ("academic", -5, "positive"),
    ],
)
def test_bad_arguments_are_rejected_with_a_clear_message(
    domain: str, nodes: int | None, message: str
) -> None:
    with pytest.raises(SynthError, match=message):
        build_domain(domain, 0, nodes)


def test_existing_output_needs_overwrite(tmp_path: Path) -> None:
    generate("academic", 0, tmp_path / "s", nodes=500)
    with pytest.raises(GraphError, match="overwrite"):
        generate("academic", 0, tmp_path / "s", nodes=500)
    again = generate("academic", 1, tmp_path / "s", nodes=500, options=BuildOptions(overwrite=True))
    assert again.qa_files["test"].exists()
