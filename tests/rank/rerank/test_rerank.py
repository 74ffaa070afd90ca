"""Stage-3 reranking: documents, prompt, cache, logprob parsing, `ark rerank` with fake scorers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from evals.runs.store import RunStoreError, read_config, read_results
from graphs.snapshot import Snapshot
from rank.rerank.cache import RerankCacheError, ScoreCache, cache_key
from rank.rerank.doc import DocConfig, RerankPrompt, serialize_node
from rank.rerank.models import RerankError
from rank.rerank.run import RerankRequest, run_rerank
from rank.rerank.served import yes_probability
from tests.evals.eval_graph import build_tiny


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tiny product graph, a val/test split and a JSONL stage-2 ranking over both."""
    root = tmp_path_factory.mktemp("rerank")
    snapshot, qa_file = build_tiny(root)
    rows = [json.loads(line) for line in qa_file.read_text().splitlines()]
    qa = root / "qa"
    qa.mkdir()
    (qa / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[::2]))
    (qa / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[1::2]))
    # The stage-2 ranking puts every gold answer 3rd, below two wrong products.
    ranking = root / "stage2.jsonl"
    lines = []
    for row in rows:
        gold = row["answer_ids"][0]
        wrong = [f"p{i}" for i in range(18) if f"p{i}" not in row["answer_ids"]][:6]
        lines.append({"id": row["id"], "ranking": [*wrong[:2], gold, *wrong[2:]]})
    ranking.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {"snapshot": snapshot, "qa": qa, "stage2": ranking, "root": root}


class OracleScorer:
    """Scores a candidate 0.9 when its name holds the query's model number, else 0.1."""

    identity = "oracle"
    endpoint = None

    def __init__(self) -> None:
        self.calls = 0

    def score(self, chats: Sequence[list[dict[str, str]]]) -> list[float]:
        self.calls += len(chats)
        scores = []
        for chat in chats:
            user = chat[-1]["content"]
            query = user.split("\n")[0]
            name = next(line for line in user.splitlines() if line.startswith("name: "))
            number = query.split()[-1]
            scores.append(0.9 if name.split()[-1] == number else 0.1)
        return scores


def test_document_lists_type_fields_and_grouped_neighbours(tiny: dict[str, Path]) -> None:
    snapshot = Snapshot.open(tiny["snapshot"])
    document = serialize_node(snapshot, snapshot.internal_id("p0"))
    lines = document.splitlines()
    assert lines[0] == "type: product"
    assert lines[1] == "name: Acme red kettle 0"
    assert lines[2].startswith("text: A red electric kettle")
    assert "[has_brand] Acme" in lines
    assert "[also_buy] Acme blue lamp 1; Initech green lamp 17" in lines  # both directions
    brand = serialize_node(
        snapshot, snapshot.internal_id("b0"), DocConfig(max_neighbors_per_relation=2)
    )
    assert brand.splitlines()[-1] == "[has_brand] Acme red kettle 0; Acme blue lamp 1"
    short = serialize_node(snapshot, snapshot.internal_id("p0"), DocConfig(max_field_tokens=2))
    assert "text: A red ..." in short


def test_bad_doc_config() -> None:
    with pytest.raises(ValueError, match="max_field_tokens"):
        DocConfig(max_field_tokens=0)


def test_prompt_renders_query_and_document(tiny: dict[str, Path]) -> None:
    prompt = RerankPrompt.for_snapshot(Snapshot.open(tiny["snapshot"]))
    messages = prompt.messages("red kettle?", "type: product\nname: x")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "candidate product" in messages[0]["content"]
    assert "Query: red kettle?" in messages[1]["content"]
    assert "name: x" in messages[1]["content"]
    assert (
        prompt.fingerprint == RerankPrompt.for_snapshot(Snapshot.open(tiny["snapshot"])).fingerprint
    )


def test_cache_round_trip_and_stats(tmp_path: Path) -> None:
    key = cache_key("m", "p", "q", "n1", "doc")
    assert key != cache_key("m2", "p", "q", "n1", "doc")
    with ScoreCache(tmp_path / "c.sqlite") as cache:
        assert cache.get_many([key]) == {}
        cache.put_many([(key, 0.25)])
    with ScoreCache(tmp_path / "c.sqlite") as cache:
        assert cache.get_many([key, "other"]) == {key: 0.25}
        assert (cache.stats.hits, cache.stats.misses) == (1, 1)
        assert cache.stats.hit_rate == 0.5


def test_corrupt_cache_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(RerankCacheError, match="delete it"):
        ScoreCache(path)


def completion(top: list[tuple[str, float]] | None) -> SimpleNamespace:
    entries = [SimpleNamespace(token=t, logprob=lp) for t, lp in top or []]
    content = None if top is None else [SimpleNamespace(top_logprobs=entries)]
    logprobs = SimpleNamespace(content=content)
    return SimpleNamespace(choices=[SimpleNamespace(logprobs=logprobs)])


def test_yes_probability_from_top_logprobs() -> None:
    value = yes_probability(completion([("Yes", -0.5), (" yes", -2.0), ("No", -1.5), ("x", -0.1)]))
    import math

    yes = math.exp(-0.5) + math.exp(-2.0)
    assert value == pytest.approx(yes / (yes + math.exp(-1.5)))
    assert yes_probability(completion([("no", -0.1)])) == 0.0
    with pytest.raises(RerankError, match="no logprobs"):
        yes_probability(completion(None))
    with pytest.raises(RerankError, match="neither 'yes' nor 'no'"):
        yes_probability(completion([("maybe", -0.1)]))


def request(tiny: dict[str, Path], out: Path, cache: Path, **extra: object) -> RerankRequest:
    return RerankRequest(
        source=str(tiny["stage2"]), qa=tiny["qa"], out=out, cache=cache,
        snapshot=tiny["snapshot"], depth=5, **extra,  # type: ignore[arg-type]
    )  # fmt: skip


def test_rerank_lifts_the_gold_and_tunes_the_fusion(tiny: dict[str, Path], tmp_path: Path) -> None:
    scorer = OracleScorer()
    outcome = run_rerank(request(tiny, tmp_path / "out", tmp_path / "c.sqlite"), scorer)
    assert outcome.validation["source hit@1"] == 0.0
    assert outcome.validation["reranker hit@1"] > 0.5
    assert outcome.validation["fused hit@1"] >= outcome.validation["reranker hit@1"]
    assert outcome.spec.weights[0] > 0.5  # the reranker carries the fusion
    records = read_results(tmp_path / "out")
    test_ids = [json.loads(line)["id"] for line in (tiny["qa"] / "test.jsonl").open()]
    assert [r.question_id for r in records] == test_ids
    text_only = [r for r in records if r.family == "text_only"]
    assert all(r.metrics["stark"]["hit@1"] == 1.0 for r in text_only)
    assert all(r.result.config["reranker_scores"][0] == 0.9 for r in text_only)
    assert read_config(tmp_path / "out")["rerank"]["model"] == "oracle"
    spec = json.loads((tmp_path / "out" / "rerank.json").read_text())
    assert spec["throughput"]["scored"] == scorer.calls == spec["cache"]["misses"]
    assert spec["cache"]["hit_rate"] < 0.5  # only repeated (question, candidate) pairs hit
    assert (tmp_path / "out" / "rerank_heatmap.png").is_file()


def test_rerun_reads_every_score_from_the_cache(tiny: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    first = OracleScorer()
    run_rerank(request(tiny, tmp_path / "a", cache), first)
    again = OracleScorer()
    outcome = run_rerank(request(tiny, tmp_path / "b", cache), again)
    assert first.calls > 0
    assert again.calls == 0
    assert outcome.cache.hit_rate == 1.0
    assert [r.result.fused for r in read_results(tmp_path / "a")] == [
        r.result.fused for r in read_results(tmp_path / "b")
    ]


def test_limit_and_no_tuning(tiny: dict[str, Path], tmp_path: Path) -> None:
    scorer = OracleScorer()
    outcome = run_rerank(
        request(tiny, tmp_path / "o", tmp_path / "c.sqlite", limit=3, tune_split=None), scorer
    )
    assert outcome.grid is None and outcome.written == 3
    assert scorer.calls == 3 * 5
    for record in read_results(tmp_path / "o"):
        assert record.result.fused[:5] == record.result.config["reranker"]


def test_sample_takes_the_same_seeded_questions_of_each_split(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    from evals.qa.sampling import QuestionSample
    from evals.qa.sets import load_qa

    sample = QuestionSample(size=2, seed=3)
    scorer = OracleScorer()
    outcome = run_rerank(
        request(tiny, tmp_path / "o", tmp_path / "c.sqlite", sample=sample), scorer
    )
    expected = [item.id for item in sample.apply(load_qa(tiny["qa"], "test"))]
    assert [r.question_id for r in read_results(tmp_path / "o")] == expected
    assert outcome.written == 2 and scorer.calls == 2 * 2 * 5  # 2 val + 2 test, depth 5
    assert read_config(tmp_path / "o")["sample"] == {"size": 2, "fraction": None, "seed": 3}


def test_the_stage2_tail_below_the_reranked_depth_is_kept(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    run_rerank(request(tiny, tmp_path / "o", tmp_path / "c.sqlite"), OracleScorer())  # depth 5
    stage2 = {
        row["id"]: row["ranking"]
        for row in map(json.loads, tiny["stage2"].read_text().splitlines())
    }
    for record in read_results(tmp_path / "o"):
        fused = record.result.fused
        assert len(stage2[record.question_id]) == 7
        assert sorted(fused[:5]) == sorted(stage2[record.question_id][:5])
        assert fused[5:] == stage2[record.question_id][5:]  # the tail, in stage-2 order


class ReversedOracle(OracleScorer):
    """The oracle's opposite: every gold answer scores lowest, so reranking only hurts."""

    identity = "reversed"

    def score(self, chats: Sequence[list[dict[str, str]]]) -> list[float]:
        return [1.0 - score for score in super().score(chats)]


def test_a_reranker_that_does_not_beat_stage2_on_validation_leaves_its_order(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    """Ties and losses on the tuning split keep the stage-2 order on the output split."""
    stage2 = {
        row["id"]: row["ranking"]
        for row in map(json.loads, tiny["stage2"].read_text().splitlines())
    }
    outcome = run_rerank(request(tiny, tmp_path / "o", tmp_path / "c.sqlite"), ReversedOracle())
    assert outcome.validation["reranker hit@1"] <= outcome.validation["source hit@1"]
    assert outcome.spec.weights == (0.0, 1.0)
    for record in read_results(tmp_path / "o"):
        assert record.result.fused == stage2[record.question_id]
    saved = json.loads((tmp_path / "o" / "rerank.json").read_text())
    assert saved["spec"]["weights"] == [0.0, 1.0]


def test_a_non_empty_out_is_refused_before_any_scoring(
    tiny: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    scorer = OracleScorer()
    with pytest.raises(RunStoreError, match="is not empty; choose a new --out directory"):
        run_rerank(request(tiny, out, tmp_path / "c.sqlite"), scorer)
    assert scorer.calls == 0
    assert (out / "keep.txt").read_text() == "mine"
    assert not (tmp_path / "c.sqlite").exists()


class _OneNode:
    """A one-node graph named like a STaRK dataset, with a 600-word text and no neighbours."""

    relation_names: tuple[str, ...] = ()

    def __init__(self, name: str) -> None:
        self.manifest = SimpleNamespace(name=name)

    def type_name(self, node: int) -> str:
        return "paper"

    def name(self, node: int) -> str:
        return "A paper"

    def text(self, node: int) -> str:
        return " ".join(f"w{i}" for i in range(600))

    def neighbors(self, node: int) -> SimpleNamespace:
        import numpy as np

        return SimpleNamespace(nodes=np.zeros(0, np.int64), relations=np.zeros(0, np.int16),
                               directions=np.zeros(0, np.int8))  # fmt: skip


@pytest.mark.parametrize(("graph", "words"), [("mag", 512), ("amazon", 300), ("prime", 300)])
def test_field_cut_defaults_to_the_graphs_grasp_limit(graph: str, words: int) -> None:
    assert DocConfig().max_field_tokens is None
    document = serialize_node(_OneNode(graph), 0)  # type: ignore[arg-type]
    text = document.splitlines()[2]
    assert text.endswith(f"w{words - 1} ...")
