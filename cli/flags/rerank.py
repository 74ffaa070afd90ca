"""The reranker's document flags, declared once (RerankDocFlags) for training and reranking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from cli.flags.groups import flag_group

if TYPE_CHECKING:
    from rank.rerank.doc import DocConfig

NeighborsPerRelationOpt = Annotated[
    int,
    typer.Option("--neighbors-per-relation", min=0, help="Neighbour names per relation (10)."),
]
MaxFieldTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--max-field-tokens",
        min=1,
        help="Tokens kept per text field (default: GRASP's limit for the graph, 512 for "
        "MAG, 300 otherwise).",
    ),
]


@flag_group
@dataclass(frozen=True, kw_only=True)
class RerankDocFlags:
    """How a candidate is written for the reranker: `ark distill reranker` and `ark rerank`.

    A reranker is trained and used on documents cut the same way, so both commands take
    these flags from this one declaration.
    """

    neighbors_per_relation: NeighborsPerRelationOpt = 10
    max_field_tokens: MaxFieldTokensOpt = None

    def doc(self) -> DocConfig:
        """The DocConfig these flags ask for."""
        from rank.rerank.doc import DocConfig

        return DocConfig(
            max_field_tokens=self.max_field_tokens,
            max_neighbors_per_relation=self.neighbors_per_relation,
        )
