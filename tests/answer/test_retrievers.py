"""The retrievers SARG can sit on: BM25 (with a type filter), dense embeddings, ARK's agents."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.factory import make_agent
from answer.errors import RetrievalError
from answer.retrieve import AgentRetriever, BM25Retriever, DenseRetriever
from graphs.snapshot import Snapshot
from tests.answer.conftest import QUESTION, build_bridge_kg
from tests.answer.word_encoder import WordEncoder


def test_bm25_ranks_and_filters_by_type(snapshot: Snapshot) -> None:
    ids = asyncio.run(BM25Retriever(snapshot).retrieve(QUESTION, 2))
    assert snapshot.external_id(ids[0]) == "tokarev"
    people = BM25Retriever(snapshot, node_types=[snapshot.type_code("university")])
    found = asyncio.run(people.retrieve(QUESTION, 5))
    assert [snapshot.external_id(n) for n in found] == ["msu"]


def test_agents_retrieval_returns_the_fused_ranking(snapshot: Snapshot) -> None:
    agent = make_agent(snapshot, AgentConfig(model="rules", n_agents=1, max_steps=4))
    ids = asyncio.run(AgentRetriever(snapshot, agent).retrieve(QUESTION, 3))
    assert 1 <= len(ids) <= 3 and len(set(ids)) == len(ids)


@pytest.mark.slow
def test_dense_needs_the_snapshots_embeddings_then_ranks(tmp_path: Path, encoder_dir: Path) -> None:
    from graphs.dense.build import EmbedRequest, embed_snapshot
    from graphs.dense.encoder import TextEncoder

    snapshot = Snapshot.open(build_bridge_kg(tmp_path / "snap"))
    with pytest.raises(RetrievalError, match="ark graph embed"):
        DenseRetriever(snapshot, WordEncoder())
    encoder = TextEncoder.load(encoder_dir)
    embed_snapshot(snapshot, encoder, EmbedRequest(variants=()))
    ids = asyncio.run(DenseRetriever(snapshot, encoder).retrieve(QUESTION, 3))
    assert len(ids) == 3 and len(set(ids)) == 3
