"""What both snapshot builds check and report alike: candidate types, rows kept though imperfect."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from graphs.errors import GraphImportError

logger = logging.getLogger(__name__)


def check_candidates(candidate_types: Sequence[str], type_names: list[str]) -> None:
    """Raise a GraphImportError naming any candidate type that is not a node type."""
    unknown = [value for value in candidate_types if value not in type_names]
    if unknown:
        raise GraphImportError(
            f"unknown candidate type(s) {', '.join(unknown)}; the node types are "
            f"{', '.join(type_names) or '(none)'}"
        )


def warn_about_rows(
    nodes_file: str,
    edges_file: str,
    name_as_text: int,
    num_nodes: int,
    duplicate_edges: int,
    self_loops: int,
) -> None:
    """Log the rows that were kept although imperfect (empty text, duplicates, self-loops)."""
    if name_as_text:
        logger.warning(
            "%s: %d of %d nodes have empty text; their name is used as their text",
            nodes_file,
            name_as_text,
            num_nodes,
        )
    if duplicate_edges or self_loops:
        logger.info(  # the CLI prints the import summary itself
            "%s: collapsed %d duplicate edges, kept %d self-loops (--strict makes them errors)",
            edges_file,
            duplicate_edges,
            self_loops,
        )
