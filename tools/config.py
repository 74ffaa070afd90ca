"""ToolConfig: k defaults, caps and the paper's ablation switches, fixed when a Toolset is built."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class ToolConfig:
    """How the tools behave for one run.

    Attributes:
        search_k: Default number of global-search hits (paper: 5).
        neighbors_k: Default number of neighbours shown (paper: 20).
        max_k: Largest k a call may ask for; larger values are capped and the observation says so.
        enable_neighbors: Ablation: False removes the neighbors tool entirely.
        neighbor_query_ranking: Ablation: False ignores `query` in neighbors (deterministic order).
        type_filters: Ablation: False removes the node_types/edge_types parameters.
        snippet_chars: Length of the text snippet shown for each node.
    """

    search_k: int = 5
    neighbors_k: int = 20
    max_k: int = 50
    enable_neighbors: bool = True
    neighbor_query_ranking: bool = True
    type_filters: bool = True
    snippet_chars: int = 160
