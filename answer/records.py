"""Chains and entry nodes turned into their stored records."""

from __future__ import annotations

from answer.beam import Chain
from answer.entry import EntryMatch
from answer.prompt import serialize_chain
from answer.query_graph import QueryGraph
from answer.result import ChainRecord, EntryRecord


def chain_record(chain: Chain, graph: QueryGraph) -> ChainRecord:
    """The stored form of `chain` (names from the graph's labels)."""
    return ChainRecord(
        nodes=list(chain.nodes),
        labels=[graph.labels.get(node, node) for node in chain.nodes],
        relations=[
            hop.triple.relation if hop.forward else f"<-{hop.triple.relation}" for hop in chain.hops
        ],
        score=chain.score,
        sources=chain.sources(),
        text=serialize_chain(chain, graph.labels),
    )


def entry_record(entry: EntryMatch, graph: QueryGraph) -> EntryRecord:
    """The stored form of an entry node."""
    return EntryRecord(
        node=entry.node,
        label=graph.labels.get(entry.node, entry.node),
        similarity=entry.similarity,
        phrase=entry.phrase,
    )
