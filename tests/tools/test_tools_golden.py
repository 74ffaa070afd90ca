"""Golden texts of every observation format on the tiny fixed snapshot."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.format import NodeView, edge_arrow, node_label
from tools.snippet import make_snippet, terms_by_weight
from tools.toolset import Toolset


@pytest.fixture
def toolset(tiny_snapshot: Snapshot) -> Toolset:
    return Toolset(tiny_snapshot, ToolConfig(snippet_chars=60, neighbor_snippet_chars=40))


def test_search_hits_with_snippets_and_rounded_scores(toolset: Toolset) -> None:
    observation = toolset.call("search", '{"query": "analytical engine"}')
    assert observation.text == (
        '3 results for "analytical engine":\n'
        "[P1] Notes on the Analytical Engine (paper) score 0.63 | "
        "…that computes Bernoulli numbers on the Analytical Engine.\n"
        "[A2] Charles Babbage (author) score 0.60 | "
        "Inventor of the Difference Engine and the Analytical Engine.\n"
        "[P3] Passages from the Life of a Philosopher (paper) score 0.47 | "
        "…Engine, the Analytical Engine, and years of quarrels with…"
    )
    # one document per node (name + text), Okapi BM25 with b 0.4: P1 holds both words twice
    # and its longer text costs it less than the short A2 gains (see BENCHMARKS.md)
    assert observation.node_ids == ["P1", "A2", "P3"]
    assert [round(score, 2) for score in observation.scores] == [0.63, 0.60, 0.47]
    assert observation.error is None


def test_search_full_page_suggests_raising_k(toolset: Toolset) -> None:
    observation = toolset.call("search", {"query": "Analytical engine", "k": 2})
    assert observation.text.splitlines()[0] == '2 results for "Analytical engine":'
    assert observation.text.splitlines()[-1] == (
        "more may match: raise k (now 2, max 50) or refine the query."
    )


def test_search_snippet_around_a_late_match(toolset: Toolset) -> None:
    observation = toolset.call("search", {"query": "street musicians"})
    assert observation.text == (
        '1 result for "street musicians":\n'
        "[P3] Passages from the Life of a Philosopher (paper) score 2.29 | "
        "…a long account of street musicians and the noise they made."
    )


def test_snippet_shows_the_informative_match_not_the_first(toolset: Toolset) -> None:
    # "engine" occurs first (and in 3 nodes); the window goes to the rare "musicians"
    observation = toolset.call("search", {"query": "engine musicians", "k": 1})
    assert observation.text.splitlines()[1] == (
        "[P3] Passages from the Life of a Philosopher (paper) score 1.42 | "
        "…a long account of street musicians and the noise they made."
    )
    neighbors = toolset.call("neighbors", {"node_id": "P1", "query": "engine musicians", "k": 1})
    assert neighbors.text.splitlines()[1] == (
        "<-[cites]- [P3] Passages from the Life of a Philosopher (paper) score 1.42 | "
        "…of street musicians and the noise they…"
    )


def test_search_capped_k_and_type_filter(toolset: Toolset) -> None:
    observation = toolset.call("search", {"query": "engine", "node_types": ["author"], "k": 200})
    assert observation.text == (
        '1 result for "engine" with node_types: author:\n'
        "[A2] Charles Babbage (author) score 0.34 | "
        "Inventor of the Difference Engine and the Analytical Engine.\n"
        "note: k=200 is above the maximum; showing at most 50."
    )


def test_search_without_results_suggests_a_next_step(toolset: Toolset) -> None:
    assert toolset.call("search", {"query": "zebra", "node_types": ["paper"]}).text == (
        'no results for "zebra" with node_types: paper.\n'
        "Try other words (names, synonyms, key terms of the question) or fewer words, "
        "or drop the node_types filter."
    )
    empty = toolset.call("search", {"query": "  "})
    assert empty.text == (
        "empty query: give keywords to search for, e.g. a name or a phrase of the question."
    )
    assert empty.error is None


def test_node_without_text_shows_no_snippet(toolset: Toolset) -> None:
    observation = toolset.call("search", {"query": "scientific memoirs"})
    assert observation.text.splitlines()[1] == "[V1] Scientific Memoirs (venue) score 3.44"


def test_neighbors_default_order(toolset: Toolset) -> None:
    observation = toolset.call("neighbors", {"node_id": "P1"})
    assert observation.text == (
        "neighbours of [P1] Notes on the Analytical Engine (paper):\n"
        "<-[cites]- [P2] On the Economy of Machinery (paper)\n"
        "<-[cites]- [P3] Passages from the Life of a Philosopher (paper)\n"
        "-[published_in]-> [V1] Scientific Memoirs (venue)\n"
        "<-[writes]- [A1] Ada Lovelace (author)"
    )
    assert observation.node_ids == ["P2", "P3", "V1", "A1"]
    assert observation.scores == []


def test_neighbors_ranked_and_cut(toolset: Toolset) -> None:
    arguments = {"node_id": "P1", "query": "machinery babbage", "k": 1}
    observation = toolset.call("neighbors", arguments)
    assert observation.text == (
        "neighbours of [P1] Notes on the Analytical Engine (paper), "
        'ranked by "machinery babbage":\n'
        "<-[cites]- [P2] On the Economy of Machinery (paper) score 2.01 | "
        "…of factory production and machinery.\n"
        "2 of 4 match the query.\n"
        "showing 1 of 4 (by edge type: cites 2, published_in 1, writes 1); "
        "refine with query or filters."
    )
    assert [round(score, 2) for score in observation.scores] == [2.01]


def test_neighbors_rank_the_whole_neighbourhood_and_fill_with_zero_scores(
    toolset: Toolset,
) -> None:
    """The paper's Top-k under rel >= 0: matches first, the rest fill in the default order."""
    observation = toolset.call("neighbors", {"node_id": "P1", "query": "babbage engine"})
    assert observation.text == (
        'neighbours of [P1] Notes on the Analytical Engine (paper), ranked by "babbage engine":\n'
        "<-[cites]- [P3] Passages from the Life of a Philosopher (paper) score 0.89 | "
        "Autobiography of Babbage: the Difference…\n"
        "<-[cites]- [P2] On the Economy of Machinery (paper) score 0.00\n"
        "-[published_in]-> [V1] Scientific Memoirs (venue) score 0.00\n"
        "<-[writes]- [A1] Ada Lovelace (author) score 0.00\n"
        "1 of 4 match the query; the other 3 shown share no word with it "
        "(listed by edge type and connectedness)."
    )
    assert observation.node_ids == ["P3", "P2", "V1", "A1"]
    assert observation.scores[1:] == [0.0, 0.0, 0.0]
    two = toolset.call("neighbors", {"node_id": "P1", "query": "babbage engine", "k": 2})
    assert two.node_ids == ["P3", "P2"]  # the fill stops at k
    assert two.text.splitlines()[-1] == (
        "showing 2 of 4 (by edge type: cites 2, published_in 1, writes 1); "
        "refine with query or filters."
    )


def test_neighbors_without_a_match_fall_back_to_the_default_order(toolset: Toolset) -> None:
    observation = toolset.call("neighbors", {"node_id": "P1", "query": "zebra", "k": 2})
    assert observation.text == (
        "neighbours of [P1] Notes on the Analytical Engine (paper):\n"
        "<-[cites]- [P2] On the Economy of Machinery (paper)\n"
        "<-[cites]- [P3] Passages from the Life of a Philosopher (paper)\n"
        'no neighbour matches "zebra"; listed by edge type and connectedness.\n'
        "showing 2 of 4 (by edge type: cites 2, published_in 1, writes 1); "
        "refine with query or filters."
    )
    assert observation.scores == []
    assert observation.error is None


@pytest.fixture(scope="module")
def two_way_toolset(tmp_path_factory: pytest.TempPathFactory) -> Toolset:
    """A PrimeKG-like graph: every edge of the drug is stored in both directions."""
    nodes = [
        ("D1", "drug", "Aspirin", "Salicylate that relieves pain and inhibits platelets."),
        ("G1", "gene", "PTGS1", "Cyclooxygenase 1, makes prostaglandins in platelets."),
        ("G2", "gene", "PTGS2", "Cyclooxygenase 2, induced by inflammation."),
        ("X1", "disease", "Pain", "An unpleasant sensation."),
    ]
    edges = [
        ("D1", "G1", "target"),
        ("G1", "D1", "target"),
        ("D1", "G2", "target"),
        ("D1", "X1", "indication"),
        ("X1", "D1", "indication"),
        ("D1", "X1", "off_label_use"),
        ("G1", "X1", "associated_with"),
    ]
    out = tmp_path_factory.mktemp("two_way") / "snapshot"
    build_snapshot(
        pa.table(
            {key: [row[i] for row in nodes] for i, key in enumerate(("id", "type", "name", "text"))}
        ),
        pa.table(
            {key: [row[i] for row in edges] for i, key in enumerate(("src", "dst", "relation"))}
        ),
        out,
        name="two_way",
    )
    return Toolset(Snapshot.open(out), ToolConfig(neighbor_snippet_chars=40))


def test_neighbours_are_nodes_with_every_link_on_one_row(two_way_toolset: Toolset) -> None:
    observation = two_way_toolset.call("neighbors", {"node_id": "D1"})
    assert observation.text == (
        "neighbours of [D1] Aspirin (drug):\n"
        "<-[indication]->, -[off_label_use]-> [X1] Pain (disease)\n"
        "<-[target]-> [G1] PTGS1 (gene)\n"
        "-[target]-> [G2] PTGS2 (gene)"
    )
    assert observation.node_ids == ["X1", "G1", "G2"]
    cut = two_way_toolset.call("neighbors", {"node_id": "D1", "k": 1})
    assert cut.text.splitlines()[-1] == (
        "showing 1 of 3 (by edge type: target 2, indication 1, off_label_use 1); "
        "refine with query or filters."
    )
    ranked = two_way_toolset.call("neighbors", {"node_id": "D1", "query": "platelets", "k": 5})
    assert ranked.node_ids == ["G1", "X1", "G2"]  # the two unmatched fill in default order
    assert ranked.text.splitlines()[1].startswith("<-[target]-> [G1] PTGS1 (gene) score ")
    assert "1 of 3 match the query; the other 2 shown share no word with it" in ranked.text


def test_no_neighbours_after_filters_counts_nodes(two_way_toolset: Toolset) -> None:
    observation = two_way_toolset.call("neighbors", {"node_id": "D1", "node_types": ["drug"]})
    assert observation.text == (
        "no neighbours of [D1] Aspirin (drug) match node_types: drug.\n"
        "its 3 neighbours have edge types: target 2, indication 1, off_label_use 1; "
        "node types: gene 2, disease 1. Drop or change the filters."
    )


def test_neighbors_filtered_and_ranked(toolset: Toolset) -> None:
    arguments = {"node_id": "V1", "query": "memoir notes", "node_types": ["paper"]}
    assert toolset.call("neighbors", arguments).text == (
        'neighbours of [V1] Scientific Memoirs (venue) with node_types: paper, ranked by "memoir '
        'notes":\n'
        "<-[published_in]- [P1] Notes on the Analytical Engine (paper) score 3.19 | "
        "Translation of a memoir, with notes…\n"
        "1 of 1 match the query."
    )


def test_neighbors_filtered_to_nothing_says_what_exists(toolset: Toolset) -> None:
    observation = toolset.call("neighbors", {"node_id": "A2", "edge_types": ["cites"]})
    assert observation.text == (
        "no neighbours of [A2] Charles Babbage (author) match edge_types: cites.\n"
        "its 4 neighbours have edge types: writes 2, collaborates_with 1, member_of 1; "
        "node types: paper 2, author 1, institution 1. Drop or change the filters."
    )
    assert observation.error is None
    assert observation.node_ids == []


def test_select_and_finish(toolset: Toolset) -> None:
    arguments = {"node_ids": ["P1", "P3", "P2", "P1"], "reasons": {"P3": "cites the notes"}}
    observation = toolset.call("select", arguments, answers=["P2"])
    assert observation.text == (
        "selected 2:\n"
        "[P1] Notes on the Analytical Engine (paper)\n"
        "[P3] Passages from the Life of a Philosopher (paper) | cites the notes\n"
        "already in the answer list (ignored): P2, P1.\n"
        "answer list: 3 ids."
    )
    assert observation.selected == ["P1", "P3"]
    finished = toolset.call("finish", "{}", answers=["P2", "P1", "P3"])
    assert finished.text == "finished with 3 answers."
    assert finished.finished


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        (
            "serch",
            "{}",
            "error: unknown tool 'serch'; did you mean 'search'? "
            "valid: search, neighbors, select, finish",
        ),
        (
            "search",
            "{'query': 'x'}",
            "error: arguments are not valid JSON (Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1)); send one JSON object, e.g. for "
            "search(query: string, k?: integer, node_types?: list of string)",
        ),
        (
            "search",
            '{"q": "x", "k": "five"}',
            "error: bad arguments for search: missing required field 'query'; k: Input should "
            "be a valid integer, unable to parse string as an integer (got 'five'); unexpected "
            "field 'q'. Call search(query: string, k?: integer, node_types?: list of string)",
        ),
        (
            "search",
            '{"query": 5, "node_types": "paper"}',
            'error: bad arguments for search: query must be a string of keywords, e.g. "5" '
            "(got 5); node_types must be a list of type names, e.g. [\"paper\"] (got 'paper'). "
            "Call search(query: string, k?: integer, node_types?: list of string)",
        ),
        (
            "select",
            '{"node_ids": "P1"}',
            'error: bad arguments for select: node_ids must be a list of node ids, e.g. ["P1"] '
            "(got 'P1'). Call select(node_ids: list of string, reasons?: object)",
        ),
        (
            "neighbors",
            '{"node_id": "[P1] Notes on the Analytical Engine (paper)"}',
            "error: unknown node id '[P1] Notes on the Analytical Engine (paper)'; did you mean "
            "'P1'? Use ids exactly as shown in brackets by search or neighbors ([P12] -> P12).",
        ),
        (
            "neighbors",
            '{"node_id": "P1", "edge_types": ["cite"]}',
            "error: unknown edge type 'cite'; did you mean 'cites' or 'writes'? "
            "valid: cites, collaborates_with, member_of, published_in, writes",
        ),
        (
            "neighbors",
            '{"node_id": "author"}',
            "error: unknown node id 'author'; 'author' is a node type, not a node id: list such "
            'nodes with search or neighbors and node_types ["author"], then use their ids. '
            "Use ids exactly as shown in brackets by search or neighbors ([P12] -> P12).",
        ),
        (
            "select",
            '{"node_ids": ["Paper", "P9"]}',
            "error: unknown node ids 'Paper', 'P9'; 'Paper' is a node type, not a node id: list "
            'such nodes with search or neighbors and node_types ["paper"], then use their ids. '
            "Use ids exactly as shown in brackets by search or neighbors ([P12] -> P12).",
        ),
        (
            "select",
            '{"node_ids": ["P9"]}',
            "error: unknown node id 'P9'. "
            "Use ids exactly as shown in brackets by search or neighbors ([P12] -> P12).",
        ),
    ],
)
def test_error_texts(toolset: Toolset, name: str, arguments: str, expected: str) -> None:
    assert toolset.call(name, arguments).text == expected


@pytest.mark.parametrize(
    ("text", "terms", "width", "expected"),
    [
        ("alpha beta gamma delta", ["delta"], 100, "alpha beta gamma delta"),
        ("the start, then the rare word at the end", ["rare", "the"], 16, "…the rare word at…"),
        ("the start, then the rare word at the end", ["the", "rare"], 16, "the start, then…"),
        ("the start, then the rarest word", ["absent", "rare", "word"], 12, "…rarest word"),
        ("alpha beta gamma delta epsilon", [], 12, "alpha beta…"),
        ("one two three four five six seven eight nine ten", ["seven"], 16, "…six seven eight…"),
        ("one two three four five six seven eight", ["eight"], 16, "…six seven eight"),
        ("Zeta_x  zeta\n\tzetas ZETA end of it all", ["zeta"], 9, "Zeta_x…"),
        ("prefix words here then Ünïcode ÜNÏCODE", ["ünïcode"], 20, "…then Ünïcode ÜNÏCODE"),
        ("graphs and graph theory", ["graph"], 8, "…graph…"),
        ("  lead\u00a0in  and  out \n", ["out"], 40, "lead in and out"),
        ("tab\tand\u2003em space word", ["word"], 15, "…em space word"),
        ("", ["x"], 10, ""),
        ("some text", ["text"], 0, ""),
    ],
)
def test_snippet_window(text: str, terms: list[str], width: int, expected: str) -> None:
    assert make_snippet(text, terms, width) == expected


@pytest.mark.parametrize(
    ("terms", "node", "expected"),
    [
        (["algorithm", "machine"], "A1", ["machine", "algorithm"]),  # rare before common
        (["engine", "musicians"], "P3", ["musicians", "engine"]),
        (["engine", "bernoulli"], "P1", ["bernoulli", "engine"]),  # name words last
        (["bernoulli", "engine"], "P1", ["bernoulli", "engine"]),
    ],
)
def test_snippet_terms_most_informative_first(
    tiny_snapshot: Snapshot, terms: list[str], node: str, expected: list[str]
) -> None:
    internal = tiny_snapshot.internal_id(node)
    nodes = np.array([internal])
    ordered = terms_by_weight(tiny_snapshot.index, terms, nodes, [tiny_snapshot.name(internal)])
    assert ordered == [expected]


def test_edge_arrows_and_labels() -> None:
    assert edge_arrow("writes", outgoing=True) == "-[writes]->"
    assert edge_arrow("cites", outgoing=False) == "<-[cites]-"
    assert edge_arrow("target", outgoing=True, incoming=True) == "<-[target]->"
    assert node_label(NodeView("P1", "A title", "paper")) == "[P1] A title (paper)"


def test_labels_stay_on_one_line_and_long_texts_are_cut() -> None:
    node = NodeView("X1", "A name\nwith  a break " + "long " * 50, "thing")
    label = node_label(node)
    assert "\n" not in label
    assert label.startswith("[X1] A name with a break long long")
    assert label.endswith("… (thing)")
    assert len(label) == len("[X1] ") + 150 + len(" (thing)")


def test_long_queries_are_cut_in_headers(toolset: Toolset) -> None:
    query = "engine " + "zzz " * 200
    header = toolset.call("search", {"query": query}).text.splitlines()[0]
    assert header.startswith('3 results for "engine zzz zzz')
    assert header.endswith('zzz…":')
    assert len(header) <= len('3 results for "":') + 100


@pytest.mark.parametrize(
    "text",
    [
        "plain text with single spaces and a match here and more words after it",
        "tab\tand newline\nbreaks around the match here",
        "file\x1cseparators\x1dand\x1egroup\x1fmarks before the match here",
        " a leading space before the match here",
        "a trailing space after the match here ",
        "double  spaces  before the match here",
        "no-break\xa0space and an em\u2003space before the match here",
        "unicode words – café naïve before the match here\u2028line separator",
        "vertical\x0btab and form\x0cfeed and carriage\rreturn before the match here",
    ],
)
def test_snippets_of_any_whitespace_equal_those_of_the_flattened_text(text: str) -> None:
    """The single-space fast path never skips the flattening a text needs."""
    flat = " ".join(text.split())
    for width in (12, 30, 200):
        assert make_snippet(text, ["match"], width) == make_snippet(flat, ["match"], width)


def test_name_words_go_last_only_as_whole_words(tiny_snapshot: Snapshot) -> None:
    internal = tiny_snapshot.internal_id("P1")
    nodes = np.array([internal, internal])
    names = ["Engines of Bernoulli", "Bernoulli's engine"]  # "engine" inside "Engines": no
    ordered = terms_by_weight(tiny_snapshot.index, ["bernoulli", "engine"], nodes, names)
    assert ordered == [["engine", "bernoulli"], ["bernoulli", "engine"]]
