"""Anchor linking: an anchor's text to scored candidate bindings (dense when offered, else BM25).

GRASP (Appendix 7) keeps the top K matches whose similarity is at least τ times the top-1's,
each with its similarity: (K, τ) = (5, 0.95) for `name` anchors and (10, 0.90) for `doc`
anchors. With embeddings (a `DenseSearch`) the similarity is the cosine over the snapshot's
plain node embeddings (ARK embeds a node's name and text together, so both modes use that
one matrix). Without them it is BM25 over the node documents, divided by the top-1's score
(so the best binding scores 1.0 and τ keeps those within 5% / 10% of it). In `name` mode, with
either ranking, the top K * NAME_POOL matches are read and nodes whose name analyses (BM25
analyzer) to exactly the anchor's words, when any is among them, are the only bindings
(score 1.0): "Republic of the Congo" binds that country, not also the Democratic Republic of
the Congo, whose cosine is within τ of it. An anchor that binds the target itself (a plan
with no hop, GRASP's doc_search) keeps the top `depth` matches with no τ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tools.plans.model import PlanAnchor

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot
    from tools.dense import DenseSearch

NAME_POOL = 4
"""Name mode reads K * NAME_POOL matches (dense or BM25) to find exact-name matches among them."""


@dataclass(frozen=True, kw_only=True)
class LinkConfig:
    """How anchors are linked (GRASP's Appendix 7 defaults).

    Attributes:
        name_k: Bindings kept for a `name` anchor.
        name_tau: Their minimum similarity, relative to the top-1's.
        doc_k: Bindings kept for a `doc` anchor.
        doc_tau: Their minimum relative similarity.
    """

    name_k: int = 5
    name_tau: float = 0.95
    doc_k: int = 10
    doc_tau: float = 0.90


@dataclass(frozen=True)
class Bindings:
    """The nodes one anchor variable binds: internal ids and scores, best first."""

    nodes: np.ndarray
    scores: np.ndarray

    def as_dict(self) -> dict[int, float]:
        """Node -> score."""
        return {int(n): float(s) for n, s in zip(self.nodes, self.scores, strict=True)}


def type_codes(snapshot: Snapshot, labels: list[str]) -> list[int] | None:
    """Type codes of `labels` (None: any type)."""
    return [snapshot.type_code(label) for label in labels] if labels else None


def link_anchor(
    snapshot: Snapshot,
    anchor: PlanAnchor,
    labels: list[str],
    config: LinkConfig,
    *,
    dense: DenseSearch | None = None,
    depth: int | None = None,
) -> Bindings:
    """Bind one anchor (see the module doc).

    Args:
        snapshot: The graph.
        anchor: The anchor.
        labels: Types its nodes must have ([]: any).
        config: K and τ per mode.
        dense: Dense search over the snapshot's embeddings, if any.
        depth: For an anchor bound to the target: how many matches to keep, without τ.
    """
    k, tau = (
        (config.name_k, config.name_tau)
        if anchor.match_mode == "name"
        else (config.doc_k, config.doc_tau)
    )
    if depth is not None:
        k, tau = depth, 0.0
    codes = type_codes(snapshot, labels)
    by_name = anchor.match_mode == "name" and depth is None
    pool = k * NAME_POOL if by_name else k
    if dense is not None:
        found, cosines = dense.index.top_k(dense.query_vector(anchor.text), pool, node_types=codes)
        scores = np.asarray(cosines, dtype=np.float64)
    else:
        found, raw = snapshot.index.search(anchor.text, pool, node_types=codes)
        scores = (
            np.asarray(raw, dtype=np.float64) / float(raw[0])
            if len(raw) and raw[0] > 0
            else np.zeros(len(raw))
        )
    nodes = np.asarray(found, dtype=np.int64)
    if by_name:
        nodes, scores = _exact_names_first(snapshot, anchor.text, nodes, scores)
    return _kept(nodes, scores, k, tau)


def _exact_names_first(
    snapshot: Snapshot, text: str, nodes: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    wanted = snapshot.index.tokenize(text)
    exact = np.array(
        [snapshot.index.tokenize(snapshot.name(int(n))) == wanted for n in nodes], dtype=bool
    )
    if exact.any():
        return nodes[exact], np.ones(int(exact.sum()))
    return nodes, scores


def _kept(nodes: np.ndarray, scores: np.ndarray, k: int, tau: float) -> Bindings:
    if not len(nodes):
        return Bindings(nodes, scores)
    keep = scores >= tau * scores[0] if scores[0] > 0 else np.ones(len(scores), dtype=bool)
    return Bindings(nodes[keep][:k], scores[keep][:k])
