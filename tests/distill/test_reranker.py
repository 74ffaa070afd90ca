"""The local yes/no scorer and listwise LoRA reranker training on a tiny random model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from distill.errors import TrainConfigError
from distill.reranker_data import (
    RerankDataOptions,
    RerankerDataError,
    build_records,
    read_data,
    write_data,
)
from distill.reranker_train import (
    ListwiseGroups,
    RerankerTrainConfig,
    listwise_loss,
    train_reranker,
)
from evals.qa.sets import load_qa
from evals.runs.store import read_results
from graphs.snapshot import Snapshot
from rank.rankings import read_rankings
from rank.rerank.doc import RerankPrompt, serialize_node
from rank.rerank.models import LocalScorer, RerankError
from tests.evals.eval_graph import build_tiny

runner = CliRunner()


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tiny graph with train/val/test splits, a stage-2 JSONL ranking and a scratch base."""
    from distill.scratch import ScratchSpec, save_scratch_base

    root = tmp_path_factory.mktemp("reranker")
    snapshot_dir, qa_file = build_tiny(root)
    rows = [json.loads(line) for line in qa_file.read_text().splitlines()]
    qa = root / "qa"
    qa.mkdir()
    for split, part in (("train", rows), ("val", rows[::2]), ("test", rows[1::2])):
        (qa / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in part))
    ranking = []
    for row in rows:
        wrong = [f"p{i}" for i in range(18) if f"p{i}" not in row["answer_ids"]][:5]
        ranking.append({"id": row["id"], "ranking": [*wrong[:2], row["answer_ids"][0], *wrong[2:]]})
    stage2 = root / "stage2.jsonl"
    stage2.write_text("".join(json.dumps(r) + "\n" for r in ranking))
    snapshot = Snapshot.open(snapshot_dir)
    prompt = RerankPrompt.for_snapshot(snapshot)
    documents = [serialize_node(snapshot, node) for node in range(snapshot.num_nodes)]
    corpus = [prompt.system, prompt.user_template, *documents, *(r["query"] for r in rows)]
    corpus += ["yes no Yes No " * 20]
    base = save_scratch_base(root / "base", corpus * 3, ScratchSpec(vocab_size=700, hidden_size=32))
    return {"snapshot": snapshot_dir, "qa": qa, "stage2": stage2, "base": base, "root": root}


def test_local_scorer_is_batch_invariant(setup: dict[str, Path]) -> None:
    prompt = RerankPrompt.from_names("g", "product")
    chats = [
        prompt.messages(f"kettle {i}", "type: product\nname: lamp " * (i + 1)) for i in range(5)
    ]
    single = LocalScorer(str(setup["base"]), batch_size=1).score(chats)
    batched = LocalScorer(str(setup["base"]), batch_size=4).score(chats)
    assert all(0.0 < s < 1.0 for s in single)
    assert batched == pytest.approx(single, abs=1e-5)


def test_records_keep_positives_and_hardest_negatives(setup: dict[str, Path]) -> None:
    snapshot = Snapshot.open(setup["snapshot"])
    items = load_qa(setup["qa"], "train")
    options = RerankDataOptions(pool_depth=4, hard_negatives=2)
    records, stats = build_records(read_rankings(setup["stage2"]), items, snapshot, options)
    assert stats.kept == len(items) == len(records)
    first = records[0]
    assert len(first["positives"]) == 1 and len(first["negatives"]) == 2
    gold = items[0].answer_ids[0]
    assert first["positives"][0] == serialize_node(snapshot, snapshot.internal_id(gold))
    shallow = RerankDataOptions(pool_depth=2)
    _, skipped = build_records(read_rankings(setup["stage2"]), items, snapshot, shallow)
    assert skipped.kept == 0 and skipped.no_positive == len(items)


def test_empty_data_is_a_clear_error(tmp_path: Path) -> None:
    write_data(tmp_path, [], RerankPrompt.from_names("g", "node"), RerankDataOptions())
    with pytest.raises(RerankerDataError, match="no training question"):
        read_data(tmp_path)
    with pytest.raises(RerankerDataError, match="not reranker training data"):
        read_data(tmp_path / "missing")


def test_groups_sample_one_positive_first(setup: dict[str, Path]) -> None:
    records = [{"query": "q", "positives": ["P"], "negatives": ["a", "b", "c"]}]
    config = RerankerTrainConfig(group_size=3)
    groups = ListwiseGroups(records, RerankPrompt.from_names("g", "n"), None, config)
    for _ in range(5):
        sample = groups.sample(0)
        assert sample[0] == "P" and len(set(sample[1:])) == 2
    config = RerankerTrainConfig(group_size=6)  # more than stored: drawn with replacement
    assert len(ListwiseGroups(records, groups.prompt, None, config).sample(0)) == 6


def test_listwise_loss_prefers_the_positive_first() -> None:
    import torch

    good = listwise_loss(torch.tensor([5.0, 0.0, 0.0, 0.0, 0.0, 0.0]), 2)
    bad = listwise_loss(torch.tensor([0.0, 5.0, 0.0, 0.0, 5.0, 0.0]), 2)
    assert good < bad
    assert listwise_loss(torch.zeros(4), 1).item() == pytest.approx(torch.log(torch.tensor(4.0)))


def test_bad_train_config() -> None:
    with pytest.raises(TrainConfigError, match="group_size"):
        RerankerTrainConfig(group_size=1)
    assert RerankerTrainConfig().with_overrides(max_steps=3, learning_rate=None).max_steps == 3


@pytest.mark.slow
def test_training_lowers_the_loss_and_changes_lora_weights(
    setup: dict[str, Path], tmp_path: Path
) -> None:
    import torch
    from safetensors.torch import load_file

    snapshot = Snapshot.open(setup["snapshot"])
    items = load_qa(setup["qa"], "train")
    options = RerankDataOptions(pool_depth=6, hard_negatives=5)
    records, _ = build_records(read_rankings(setup["stage2"]), items, snapshot, options)
    data = write_data(tmp_path / "data", records, RerankPrompt.for_snapshot(snapshot), options)
    config = RerankerTrainConfig(
        group_size=4, gradient_accumulation_steps=1, groups_per_device=2, max_steps=24,
        learning_rate=5e-3, warmup_ratio=0.0, lora_r=8, lora_alpha=16, max_length=256,
    )  # fmt: skip
    result = train_reranker(data, str(setup["base"]), tmp_path / "adapter", config)
    assert result.global_step == 24
    losses = [loss for _, loss in result.losses]
    assert sum(losses[-6:]) / 6 < sum(losses[:6]) / 6
    weights = load_file(str(tmp_path / "adapter" / "adapter_model.safetensors"))
    lora_b = [v for k, v in weights.items() if "lora_B" in k]
    assert lora_b and any(torch.count_nonzero(v) > 0 for v in lora_b)  # B starts at zero
    with pytest.raises(TrainConfigError, match="already holds"):
        train_reranker(data, str(setup["base"]), tmp_path / "adapter", config)
    trained = LocalScorer(str(tmp_path / "adapter"))
    assert "+lora:" in trained.identity
    prompt = RerankPrompt.for_snapshot(snapshot)
    record = records[0]
    chats = [prompt.messages(record["query"], record["positives"][0])]
    chats += [prompt.messages(record["query"], doc) for doc in record["negatives"]]
    base_scores = LocalScorer(str(setup["base"])).score(chats)
    assert trained.score(chats) != pytest.approx(base_scores)


def test_base_without_yes_token_is_refused(tmp_path: Path) -> None:
    from distill.scratch import ScratchSpec, save_scratch_base

    base = save_scratch_base(
        tmp_path / "b", ["abc def"] * 20, ScratchSpec(vocab_size=300, hidden_size=32)
    )
    with pytest.raises(RerankError, match="single token for 'yes'"):
        LocalScorer(str(base)).load()


@pytest.mark.slow
def test_cli_distill_reranker_then_rerank(setup: dict[str, Path], tmp_path: Path) -> None:
    adapter = tmp_path / "adapter"
    result = runner.invoke(
        build_app(),
        ["distill", "reranker", str(setup["stage2"]), "--qa", str(setup["qa"]),
         "--snapshot", str(setup["snapshot"]), "--base-model", str(setup["base"]),
         "--out", str(adapter), "--depth", "6", "--group-size", "4", "--grad-accum", "1",
         "--max-steps", "3", "--max-length", "256"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "training data: 24 questions" in result.output
    out = tmp_path / "reranked"
    cache = tmp_path / "cache.sqlite"
    args = ["rerank", f"{setup['stage2']}", "--qa", str(setup["qa"]), "--snapshot",
            str(setup["snapshot"]), "--model", f"hf:{adapter}", "--depth", "4",
            "--cache", str(cache)]  # fmt: skip
    result = runner.invoke(build_app(), [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "cache hit rate" in result.output
    assert len(read_results(out)) == len(load_qa(setup["qa"], "test"))
    again = runner.invoke(build_app(), [*args, "--out", str(tmp_path / "again"), "--json"])
    assert again.exit_code == 0, again.output
    summary = json.loads(again.output[again.output.index('{"spec"') :].splitlines()[0])
    assert summary["cache_hit_rate"] == 1.0 and summary["scored"] == 0


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("hf:{tmp}/none.gguf", "no such directory or .gguf file"),
        ("{tmp}", "did you mean 'hf:"),  # -m means what it means in `ark ask`: hf:PATH
        ("rules", "cannot score relevance"),
    ],
)
def test_cli_rerank_bad_model_is_one_line(
    setup: dict[str, Path], tmp_path: Path, model: str, message: str
) -> None:
    result = runner.invoke(
        build_app(),
        ["rerank", str(setup["stage2"]), "--qa", str(setup["qa"]), "--model",
         model.format(tmp=tmp_path), "--out", str(tmp_path / "o")],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.output.count("error:") == 1 and "Traceback" not in result.output
    assert message in " ".join(result.output.split())
