"""The whole pipeline on a tiny KG: offline, with a scripted model, and the baselines."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from agent.models.scripted import ScriptedModel, text_message
from answer.config import SargConfig
from answer.direction_head import DirectionHead
from answer.errors import AnswerConfigError, RetrievalError
from answer.factory import make_answerer
from answer.query_graph import Direction
from answer.result import AnswerResult
from graphs.snapshot import Snapshot
from tests.answer.conftest import QUESTION
from tests.answer.word_encoder import FixedPhrases, WordEncoder

PHRASES = ["sergei tokarev", "university professor"]


def _answer(
    snapshot: Snapshot, model: ScriptedModel | None = None, **config: object
) -> AnswerResult:
    answerer = make_answerer(
        snapshot,
        SargConfig(**{"passages": 2, **config}),  # type: ignore[arg-type]
        model=model,
        encoder=WordEncoder(),
        keyphrases=FixedPhrases(PHRASES),
    )
    return asyncio.run(answerer.answer(QUESTION))


def test_offline_answer_is_read_from_the_chain(snapshot: Snapshot) -> None:
    result = _answer(snapshot)
    assert result.answer == "1755"
    assert result.model == "offline" and result.messages == []
    best = result.chains[0]
    assert best.nodes[:2] == ["tokarev", "msu"]
    assert "y1755" in {node for chain in result.chains for node in chain.nodes}
    assert result.entries[0].node == "tokarev" and result.entries[0].similarity == pytest.approx(1)
    assert set(best.sources) <= set(result.citations)
    assert result.timings["construct_s"] > 0 and result.timings["generate_s"] == 0


def test_scripted_model_sees_the_eq6_prompt_and_its_answer_is_parsed(snapshot: Snapshot) -> None:
    model = ScriptedModel([text_message("The chain leads to MSU.\nAnswer: 1755.")])
    result = _answer(snapshot, model)
    assert result.answer == "1755"
    system, user = model.calls[0].messages
    assert system["role"] == "system" and 'starts with "Answer:"' in system["content"]
    assert "<" not in system["content"]  # no placeholder a small model would copy
    text = user["content"]
    question_at = text.index(QUESTION)
    chain_at = text.index("Sergei Tokarev --[professor at]--> Moscow State University")
    source_at = text.index("[msu] Moscow State University was founded in 1755.")
    assert question_at < chain_at < source_at
    assert result.messages == model.calls[0].messages and result.reply.endswith("1755.")


def test_rag_baseline_gets_the_retrieved_texts_flat(snapshot: Snapshot) -> None:
    model = ScriptedModel([text_message("Answer: 1755")])
    result = _answer(snapshot, model, method="rag")
    user = model.calls[0].messages[1]["content"]
    assert "Reasoning chains" not in user and "Context:" in user
    assert result.chains == [] and result.citations == result.retrieved


def test_cot_rag_asks_for_steps_and_direct_gets_no_context(snapshot: Snapshot) -> None:
    cot = ScriptedModel([text_message("Step 1 ... Answer: 1755")])
    _answer(snapshot, cot, method="cot-rag")
    assert "step by step" in cot.calls[0].messages[0]["content"]
    direct = ScriptedModel([text_message("Answer: 1755")])
    result = _answer(snapshot, direct, method="direct")
    assert direct.calls[0].messages[1]["content"].strip() == f"Question: {QUESTION}"
    assert result.citations == []


def test_flat_chains_ablation_shows_the_chain_sources_without_chains(snapshot: Snapshot) -> None:
    model = ScriptedModel([text_message("Answer: 1755")])
    result = _answer(snapshot, model, method="flat-chains")
    user = model.calls[0].messages[1]["content"]
    assert "Reasoning chains" not in user
    assert result.chains and all(f"[{s}]" in user for s in result.citations)


def test_llm_direction_uses_the_models_label(snapshot: Snapshot) -> None:
    model = ScriptedModel([text_message("backward"), text_message("Answer: 1755")])
    result = _answer(snapshot, model, direction="llm")
    assert result.direction == "backward"
    assert "forward, backward or bidirectional" in model.calls[0].messages[0]["content"]
    assert result.timings["direction_llm_s"] >= 0


def test_forced_forward_only_walks_out_edges(snapshot: Snapshot) -> None:
    result = _answer(snapshot, direction="forward")
    assert result.direction == "forward"
    assert all(not rel.startswith("<-") for chain in result.chains for rel in chain.relations)


def test_named_nodes_are_the_entries_when_no_key_phrase_clears_tau(snapshot: Snapshot) -> None:
    # tau 1.0: no phrase clears it; the question names Sergei Tokarev in the query graph
    result = _answer(snapshot, tau=1.0)
    assert [(e.node, e.similarity) for e in result.entries] == [("tokarev", 1.0)]
    assert not result.entry_fallback


def test_a_rambling_reply_is_bounded_in_the_record_and_its_answer_still_read(
    snapshot: Snapshot,
) -> None:
    from agent.reply_limit import MAX_REPLY_CHARS

    rambling = "blah " * 200_000 + "\nAnswer: 1755"
    result = _answer(snapshot, ScriptedModel([text_message(rambling)]))
    assert result.answer == "1755"
    assert len(result.reply) < MAX_REPLY_CHARS + 200 and "[cut by ARK" in result.reply


def test_gold_retrieval_answers_from_the_named_nodes_only(snapshot: Snapshot) -> None:
    answerer = make_answerer(
        snapshot,
        SargConfig(method="rag", retrieval="gold"),
        encoder=WordEncoder(),
        keyphrases=FixedPhrases(PHRASES),
    )
    result = asyncio.run(answerer.answer(QUESTION, ["msu", "kosarev"]))
    assert sorted(result.retrieved) == ["kosarev", "msu"] and result.retrieved[0] == "msu"
    with pytest.raises(RetrievalError, match="names none"):
        asyncio.run(answerer.answer(QUESTION, []))
    with pytest.raises(RetrievalError, match="'nowhere'"):
        asyncio.run(answerer.answer(QUESTION, ["nowhere"]))


def test_sarg_without_a_chain_records_the_flat_fallback(snapshot: Snapshot) -> None:
    result = _answer(snapshot, passages=1, max_neighbors=0)  # one node, no edge: no chain
    assert result.chains == [] and result.fallback == "no-chain"
    assert _answer(snapshot).fallback is None


def test_learned_direction_reads_the_head_it_is_given(snapshot: Snapshot, tmp_path: Path) -> None:
    encoder = WordEncoder()
    weights = np.zeros((3, encoder.dim))
    head = DirectionHead(
        (Direction.forward, Direction.backward, Direction.bidirectional),
        weights,
        np.array([0.0, 0.0, 1.0]),  # always bidirectional
        "words",
    )
    head.save(tmp_path / "head.json")
    config = SargConfig(direction="learned", direction_head=str(tmp_path / "head.json"))
    answerer = make_answerer(snapshot, config, encoder=encoder, keyphrases=FixedPhrases(PHRASES))
    assert asyncio.run(answerer.answer(QUESTION)).direction == "bidirectional"
    missing = SargConfig(direction="learned", direction_head=str(tmp_path / "none.json"))
    with pytest.raises(AnswerConfigError, match="ark distill direction-head"):
        make_answerer(snapshot, missing, encoder=encoder, keyphrases=FixedPhrases(PHRASES))
