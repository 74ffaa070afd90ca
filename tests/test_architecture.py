"""The import graph: layers point one way and no modules import each other in a cycle."""

from __future__ import annotations

import grimp
import networkx as nx
import pytest

PACKAGES = ("cli", "distill", "rank", "evals", "answer", "agent", "tools", "graphs", "prompts")
LAYERS = PACKAGES  # from the top; each may import only the ones after it


@pytest.fixture(scope="module")
def import_graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def _module_digraph(graph: grimp.ImportGraph) -> nx.DiGraph:
    digraph = nx.DiGraph()
    for module in graph.modules:
        digraph.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            digraph.add_edge(module, imported)
    return digraph


def test_no_import_cycle_between_modules(import_graph: grimp.ImportGraph) -> None:
    digraph = _module_digraph(import_graph)
    # A package's __init__ importing its own submodules is not a cycle worth reporting.
    digraph.remove_edges_from(
        [(a, b) for a, b in digraph.edges if b.startswith(a + ".") or a.startswith(b + ".")]
    )
    cycles = [sorted(c) for c in nx.strongly_connected_components(digraph) if len(c) > 1]
    assert cycles == []


def test_no_layer_imports_a_higher_layer(import_graph: grimp.ImportGraph) -> None:
    upward = []
    for low_index, low in enumerate(LAYERS):
        for high in LAYERS[:low_index]:
            chains = import_graph.find_shortest_chains(importer=low, imported=high)
            upward.extend(sorted(chains))
    assert upward == []


def test_the_checker_sees_an_upward_import() -> None:
    """The contract would fail on a violation: an agent module importing evals is found."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    graph.add_import(importer="agent.graph", imported="evals.runs.store")
    assert graph.find_shortest_chains(importer="agent", imported="evals")
