from __future__ import annotations

import json
from pathlib import Path

import pytest

from distill.dataset import DatasetOptions, build_sft_dataset, load_sft_dataset
from distill.errors import RunDirError, SFTDataError
from distill.splits import random_split as split_questions
from distill.template import load_training_template, render


def test_keep_all_skips_model_errors_and_counts_them(run_dir: Path, tmp_path: Path) -> None:
    stats = build_sft_dataset([run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.34))
    assert stats.questions == 6
    assert stats.seen == 13
    assert stats.skipped == {"model_error": 1}
    assert stats.rows["train"] + stats.rows["val"] == 12
    assert stats.tool_calls == {"search": 12, "neighbors": 12, "select": 12, "finish": 12}
    assert stats.tool_errors == {"unknown_node": 12}
    assert json.loads((tmp_path / "data" / "stats.json").read_text())["skipped"] == {
        "model_error": 1
    }


def test_split_is_by_question_never_by_trajectory(run_dir: Path, tmp_path: Path) -> None:
    build_sft_dataset([run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.5, seed=3))
    data = load_sft_dataset(tmp_path / "data")
    train_ids = set(data["train"]["question_id"])
    val_ids = set(data["val"]["question_id"])
    assert train_ids and val_ids
    assert not train_ids & val_ids
    assert len(train_ids | val_ids) == 6
    # both agents' trajectories of a question land in the same split
    assert len(data["train"]) == 2 * len(train_ids)


def test_split_questions_is_deterministic_and_keeps_one_val() -> None:
    ids = [f"q{i}" for i in range(10)]
    assert split_questions(ids, 0.2, 0) == split_questions(ids, 0.2, 0)
    train, val = split_questions(ids[:3], 0.01, 0)
    assert len(val) == 1 and len(train) == 2
    train, val = split_questions(ids, 0.0, 0)
    assert not val and len(train) == 10


def test_best_recall_keeps_the_gold_finding_trajectory(run_dir: Path, tmp_path: Path) -> None:
    stats = build_sft_dataset(
        [run_dir], tmp_path / "data", DatasetOptions(keep="best-recall", val_fraction=0.0)
    )
    data = load_sft_dataset(tmp_path / "data")
    assert len(data["train"]) == 6
    assert data["val"] is None
    assert stats.skipped["not_best_recall"] == 6
    for row in data["train"]:
        select_call = row["messages"][6]["tool_calls"][0]["function"]
        q = row["question_id"][1:]
        assert json.loads(select_call["arguments"]) == {"node_ids": [f"n{q}0", f"n{q}1"]}


def test_rows_render_arguments_exactly_and_leak_no_nulls(
    run_dir: Path, tmp_path: Path, scratch_base: Path
) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(scratch_base)
    build_sft_dataset([run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.0))
    row = load_sft_dataset(tmp_path / "data")["train"][0]
    text = render(
        tokenizer, row["messages"], json.loads(row["tools"]), template=load_training_template()
    )
    question = row["messages"][1]["content"]
    assert (
        '<tool_call>\n{"name": "search", "arguments": '
        + json.dumps({"query": question, "k": 5})
        + "}\n</tool_call>"
    ) in text
    assert '{"name": "neighbors", "arguments": {"node_id": "P' in text
    assert '{"name": "finish", "arguments": {}}' in text
    assert "null" not in text and "None" not in text
    for tool in json.loads(row["tools"]):
        assert json.dumps(tool) in text


def test_no_system_prompt_option_drops_it(run_dir: Path, tmp_path: Path) -> None:
    build_sft_dataset(
        [run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.0, include_system_prompt=False)
    )
    row = load_sft_dataset(tmp_path / "data")["train"][0]
    assert [m["role"] for m in row["messages"]][:2] == ["user", "assistant"]


def test_trailing_tool_messages_are_trimmed(run_dir: Path, tmp_path: Path) -> None:
    build_sft_dataset([run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.0))
    row = load_sft_dataset(tmp_path / "data")["train"][0]
    assert row["messages"][-1]["role"] == "assistant"


def test_token_counts_when_a_tokenizer_is_given(
    run_dir: Path, tmp_path: Path, scratch_base: Path
) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(scratch_base)
    stats = build_sft_dataset(
        [run_dir], tmp_path / "data", DatasetOptions(val_fraction=0.2), tokenizer=tokenizer
    )
    assert stats.tokens["train"]["total"] > stats.tokens["train"]["max"] > 100


@pytest.mark.parametrize("content", [None, "not a run"])
def test_bad_run_dirs_raise_typed_errors(tmp_path: Path, content: str | None) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    if content:
        (bad / "config.json").write_text("{}")
        (bad / "results.jsonl").write_text(content + "\n{}\n")
    with pytest.raises(RunDirError, match="run"):
        build_sft_dataset([bad], tmp_path / "data")


def test_run_with_only_failures_raises_with_reasons(error_run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(SFTDataError, match="model_error: 1"):
        build_sft_dataset([error_run_dir], tmp_path / "data")


def test_missing_data_dir_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(SFTDataError, match="ark distill dataset"):
        load_sft_dataset(tmp_path / "nothing")


def test_dict_arguments_become_json_text_so_no_keys_leak_across_rows() -> None:
    from datasets import Dataset

    from distill.rows import canonical_message

    def call(name: str, arguments: dict[str, object]) -> dict[str, object]:
        function = {"name": name, "arguments": arguments}
        return {"role": "assistant", "content": None, "tool_calls": [{"function": function}]}

    rows = [
        {"messages": [canonical_message(call("search", {"query": "x"}))]},
        {"messages": [canonical_message(call("neighbors", {"node_id": "n1"}))]},
    ]
    stored = Dataset.from_list(rows)
    first = stored[0]["messages"][0]["tool_calls"][0]["function"]
    assert first == {"name": "search", "arguments": '{"query": "x"}'}
    assert stored[1]["messages"][0]["tool_calls"][0]["id"] == "call_0"
