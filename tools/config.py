"""ToolConfig: k defaults, caps and the paper's ablation switches, fixed when a Toolset is built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graphs.errors import ConfigError

Toolset = Literal["extended", "paper"]
"""The two toolsets: the ARK paper's as published, or ARK's extensions of it."""


@dataclass(frozen=True, kw_only=True)
class ToolConfig:
    """How the tools behave for one run.

    Attributes:
        toolset: ``"paper"`` is the toolset as the ARK paper publishes it: ``search(query, k)``
            over all nodes with no ``node_types`` filter, and ``neighbors(node_id, query,
            node_types, edge_types)`` with no ``k``: every expansion shows a fixed budget of
            `neighbors_k` neighbours (the paper's k = 20). ``"extended"`` (the default) adds
            ARK's extensions: a ``node_types`` filter on search and a ``k`` on neighbors up to
            `max_k`. The ablations below are defined relative to either, as the paper's
            Table 2 defines them relative to its toolset. ``dense_search`` is not part of the
            paper's toolset, so it needs ``"extended"``.
        search_k: Default number of global-search hits (paper: 5).
        neighbors_k: Default number of neighbours shown (paper: 20).
        max_k: Largest k a call may ask for; larger values are capped and the observation says so.
        enable_neighbors: Ablation: False removes the neighbors tool entirely.
        neighbor_query_ranking: Ablation: False ignores `query` in neighbors (deterministic order).
        type_filters: Ablation: False removes the node_types/edge_types parameters.
        enable_node: Offer the `node` tool (a node's whole text and its neighbours counted by
            edge type). Off for the agent, whose tools are the paper's; on for `ark node` and
            the MCP server (`ark mcp`).
        enable_dense_search: Offer the dense_search tool (off by default; needs the snapshot's
            embeddings from `ark graph embed` and `dense_encoder`).
        dense_encoder: Local sentence-transformers directory that encodes dense_search queries
            (the one the snapshot's embeddings were made with).
        snippet_chars: Length of the text snippet shown for each search hit.
        neighbor_snippet_chars: Length of the snippet shown for a neighbour that matched the
            query (0 shows none).
        schema_enum_limit: Node type and relation names are injected into the schemas as enums
            up to this many names; beyond it they are listed in the parameter description.
        link_names: `search` also lists the nodes the query names (the snapshot's name index,
            tools/mentions.py) under "names in the query"; extended toolset only (the paper's
            search is plain BM25).
        brief_schemas: Schemas with each tool's first paragraph only and no parameter
            descriptions (types, enums and bounds stay): about a quarter of the tokens, for
            small distilled students, which learn the tools from their teacher's calls.
    """

    toolset: Toolset = "extended"
    search_k: int = 5
    neighbors_k: int = 20
    max_k: int = 50
    enable_neighbors: bool = True
    neighbor_query_ranking: bool = True
    type_filters: bool = True
    enable_node: bool = False
    enable_dense_search: bool = False
    dense_encoder: str | None = None
    snippet_chars: int = 160
    neighbor_snippet_chars: int = 100
    schema_enum_limit: int = 64
    brief_schemas: bool = False
    link_names: bool = True

    def __post_init__(self) -> None:
        if self.toolset not in ("extended", "paper"):
            raise ConfigError(
                f"ToolConfig.toolset must be 'extended' or 'paper', got {self.toolset!r}"
            )
        if self.toolset == "paper" and self.enable_dense_search:
            raise ConfigError(
                "dense_search is an extension, not part of the paper's toolset: drop the dense "
                "search or use toolset 'extended' (--toolset extended)"
            )
        if self.enable_dense_search and not self.dense_encoder:
            raise ConfigError(
                "ToolConfig.enable_dense_search needs dense_encoder, the local "
                "sentence-transformers directory the snapshot's embeddings were made with"
            )
        for name in ("search_k", "neighbors_k", "max_k"):
            if getattr(self, name) < 1:
                raise ConfigError(f"ToolConfig.{name} must be >= 1, got {getattr(self, name)}")
        if max(self.search_k, self.neighbors_k) > self.max_k:
            raise ConfigError(
                f"ToolConfig defaults search_k={self.search_k} and neighbors_k={self.neighbors_k} "
                f"must not exceed max_k={self.max_k}"
            )
