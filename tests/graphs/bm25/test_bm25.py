import json
import random
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from graphs.bm25.build import build_index, document_text
from graphs.bm25.index import MAX_QUERY_TERMS, BM25Index
from graphs.bm25.params import IDF_MINIMUM, OKAPI_EPSILON, BM25Params
from graphs.errors import GraphError, SnapshotError

WORDS = [f"w{i}" for i in range(40)] + ["graph", "ΣΟΦΟΣ", "über", "protein", "x" * 45]
# stopwords and inflected words: dropped or stemmed by some analyzers, changing field lengths
WORDS += ["the", "of", "and", "is", "connected", "connections", "running", "runs"]
QUERIES = ["w1 w2", "graph w3 w3 w3", "σοφοσ", "w5", "über w39 w0", "Protein, GRAPH!", "w7 w7"]
QUERIES += ["the connection of runs", "is the"]


def _corpus(num_nodes: int, seed: int = 0) -> tuple[list[str], list[str], np.ndarray]:
    rng = random.Random(seed)
    names = [" ".join(rng.choices(WORDS, k=rng.randint(0, 4))) for _ in range(num_nodes)]
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(0, 120))) for _ in range(num_nodes)]
    return names, texts, np.arange(num_nodes, dtype=np.int16) % 3


@pytest.fixture(
    scope="module", params=["english", "english-stem", "plain"], ids=["english", "stemmed", "plain"]
)
def index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> BM25Index:
    names, texts, codes = _corpus(400)
    path = tmp_path_factory.mktemp("bm25") / "index"
    build_index(path, names, texts, codes, meta={"content_hash": "abc"}, analyzer=request.param)
    return BM25Index.open(path)


def test_index_opens_with_its_meta(index: BM25Index) -> None:
    assert index.num_docs == 400
    assert index.meta == {"content_hash": "abc"}


def reference_scores(index: BM25Index, documents: list[str], query: str) -> np.ndarray:
    """Every document's BM25 from the documented formula, in float64, term by term."""
    params = index.params
    docs = [index.tokenize(document) for document in documents]
    lengths = np.array([len(doc) for doc in docs], dtype=np.float64)
    average = lengths.mean() if lengths.sum() else 1.0
    n = len(docs)
    vocabulary = {token for doc in docs for token in doc}
    df = {token: sum(token in doc for doc in docs) for token in vocabulary}
    idf = {t: np.log((n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
    floor = max(OKAPI_EPSILON * np.mean(list(idf.values())), IDF_MINIMUM)
    idf = {t: max(value if value >= 0 else floor, IDF_MINIMUM) for t, value in idf.items()}
    if params.idf == "lucene":
        idf = {t: np.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
    scores = np.zeros(n)
    for token in dict.fromkeys(index.tokenize(query)):
        if token not in vocabulary:
            continue
        tf = np.array([doc.count(token) for doc in docs], dtype=np.float64)
        norm = params.k1 * (1 - params.b + params.b * lengths / average)
        scores += idf[token] * (params.k1 + 1) * tf / (tf + norm)
    return scores


def test_indexes_record_okapi_bm25(index: BM25Index) -> None:
    assert index.params == BM25Params(k1=0.9, b=0.4, idf="robertson")


def test_indexes_of_older_formats_are_refused_saying_rebuild(tmp_path: Path) -> None:
    build_index(tmp_path / "index", ["a"], ["b c"], np.zeros(1, np.int16))
    meta_path = tmp_path / "index" / "meta.json"
    info = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**info, "format_version": 2}))
    with pytest.raises(SnapshotError, match=r"format version 2.*rebuild the snapshot$"):
        BM25Index.open(tmp_path / "index")
    quantised = {**info, "bm25": {**info["bm25"], "exact_lengths": False}}
    meta_path.write_text(json.dumps(quantised))
    with pytest.raises(SnapshotError, match=r"quantised document lengths.*rebuild"):
        BM25Index.open(tmp_path / "index")


@pytest.mark.parametrize("k", [1, 7, 20, 400])
def test_search_is_the_exact_ranking_of_the_documented_formula(index: BM25Index, k: int) -> None:
    names, texts, _ = _corpus(400)
    documents = [document_text(name, text) for name, text in zip(names, texts, strict=True)]
    for query in QUERIES:
        expected = reference_scores(index, documents, query)
        ids, scores = index.search(query, k)
        np.testing.assert_allclose(scores, expected[ids], rtol=1e-5)
        matching = np.flatnonzero(expected > 0)
        assert ids.size == min(k, matching.size)
        if ids.size:  # nothing left out scores above the k-th (ties within float32 rounding)
            outside = np.setdiff1d(matching, ids)
            assert not outside.size or expected[outside].max() <= scores[-1] * (1 + 1e-5)


def test_scores_equal_rank_bm25_okapi_configured_alike(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = [f"v{i}" for i in range(400)] + ["often"] * 300  # 'often' is in most nodes
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 60))) for _ in range(300)]
    build_index(tmp_path / "index", [""] * 300, texts, np.zeros(300, np.int16))
    index = BM25Index.open(tmp_path / "index")
    okapi = BM25Okapi([index.tokenize(text) for text in texts], k1=0.9, b=0.4)
    assert okapi.idf["often"] == okapi.epsilon * okapi.average_idf  # the floor is exercised
    for query in ["v1 v2", "v3 v3 v399", "v10 v20 v30 v40 v50", "nothing v7", "often v9"]:
        distinct = list(dict.fromkeys(index.tokenize(query)))
        np.testing.assert_allclose(
            index.score_nodes(query, np.arange(300)), okapi.get_scores(distinct), rtol=1e-5
        )


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("node_types", [None, [1], [0, 2]])
def test_search_and_score_nodes_agree_on_every_hit(
    index: BM25Index, query: str, node_types: list[int] | None
) -> None:
    ids, scores = index.search(query, 1000, node_types=node_types)
    assert ids.dtype == np.int64 and scores.dtype == np.float32
    all_scores = index.score_nodes(query, np.arange(index.num_docs))
    matching = np.flatnonzero(all_scores > 0)
    if node_types:
        matching = matching[np.isin(matching % 3, node_types)]
        assert set((ids % 3).tolist()) <= set(node_types)
    assert sorted(ids.tolist()) == matching.tolist()  # every match found, nothing else
    np.testing.assert_allclose(index.score_nodes(query, ids), scores, rtol=1e-4)
    assert np.all(np.diff(scores) <= 0)


def test_empty_type_list_means_no_filter(index: BM25Index) -> None:
    unfiltered = index.search("w1 graph", 30)
    no_filters: list[list[int] | tuple[int, ...]] = [[], ()]
    for no_filter in no_filters:
        ids, scores = index.search("w1 graph", 30, node_types=no_filter)
        np.testing.assert_array_equal(ids, unfiltered[0])
        np.testing.assert_array_equal(scores, unfiltered[1])


def test_type_filter_does_not_shift_scores(index: BM25Index) -> None:
    ids, scores = index.search("w1 graph", 1000)
    filtered_ids, filtered_scores = index.search("w1 graph", 1000, node_types=[2])
    by_id = dict(zip(ids.tolist(), scores.tolist(), strict=True))
    assert filtered_ids.size > 0
    for node, score in zip(filtered_ids.tolist(), filtered_scores.tolist(), strict=True):
        assert score == pytest.approx(by_id[node], rel=1e-6)


def test_name_and_text_are_one_document(tmp_path: Path) -> None:
    path = tmp_path / "index"
    build_index(path, ["alpha", "beta"], ["beta", "alpha"], np.zeros(2, np.int16))
    index = BM25Index.open(path)
    ids, scores = index.search("alpha", 5)
    assert ids.tolist() == [0, 1]
    assert scores[0] == scores[1]  # a word scores the same in the name as in the text


def test_repeated_query_tokens_count_once(index: BM25Index) -> None:
    once = index.search("w3 graph", 50)
    repeated = index.search("w3 W3 graph w3 GRAPH", 50)
    np.testing.assert_array_equal(once[0], repeated[0])
    np.testing.assert_array_equal(once[1], repeated[1])


def test_ties_are_broken_by_lower_id_deterministically(tmp_path: Path) -> None:
    path = tmp_path / "index"
    build_index(path, ["same"] * 60, ["thing"] * 60, np.zeros(60, np.int16))
    index = BM25Index.open(path)
    for k in (1, 5, 17, 60):
        ids, scores = index.search("same", k)
        assert ids.tolist() == list(range(k))
        assert np.unique(scores).size == 1


def test_k_bounds(index: BM25Index) -> None:
    assert index.search("w1", 0)[0].size == 0
    ids, _ = index.search("w1", 10**6)
    assert ids.size == np.count_nonzero(index.score_nodes("w1", np.arange(index.num_docs)))
    with pytest.raises(GraphError, match="k must be"):
        index.search("w1", -1)


MALFORMED = [
    '"',
    "a:b",
    "(",
    ")",
    "AND",
    "NOT x",
    "w1 OR w2",
    "",
    "   ",
    "🙂",
    "ü",
    "*",
    "\\",
    "name:w1",
    "[w1 TO w2]",
    "w1^3",
    "~",
    "\x00",
    "w1 " * 5000,
    "é" * 10000,
    "x" * 100,
]


@pytest.mark.parametrize("query", MALFORMED, ids=range(len(MALFORMED)))
def test_any_text_is_a_valid_query(index: BM25Index, query: str) -> None:
    ids, scores = index.search(query, 5, node_types=[0])
    assert ids.size == scores.size <= 5
    assert index.score_nodes(query, np.array([0, 1, 2])).shape == (3,)
    assert index.matched_terms(query) == [t for t in index.matched_terms(query) if t]


def test_empty_and_punctuation_queries_give_empty_results(index: BM25Index) -> None:
    for query in ("", "  ", "!!! ???", "🙂"):
        assert index.search(query, 5)[0].size == 0
        assert not index.score_nodes(query, np.arange(10)).any()


def test_long_tokens_are_dropped_like_tantivy(index: BM25Index) -> None:
    assert index.tokenize("ok " + "x" * 45 + " fine") == ["ok", "fine"]
    assert index.search("x" * 45, 5)[0].size == 0


def test_tokenizer_keeps_every_unicode_word(tmp_path: Path) -> None:
    text = "İstanbul ΣΟΦΟΣ straße a_b C++ 3.14 日本語 क़िताब e-mail"
    path = tmp_path / "index"
    build_index(path, [""], [text], np.zeros(1, np.int16), analyzer="plain")
    index = BM25Index.open(path)
    tokens = index.tokenize(text)
    assert "σοφοσ" in tokens and "a" in tokens and "b" in tokens
    assert index.doc_freqs(tokens) == [1] * len(tokens)  # every token it gives is indexed
    assert index.matched_terms(text) == list(dict.fromkeys(tokens))


def test_score_nodes_keeps_input_order_and_repeats(index: BM25Index) -> None:
    nodes = np.array([5, 3, 5, 399, 0])
    scores = index.score_nodes("w1 w2 graph", nodes)
    singles = [index.score_nodes("w1 w2 graph", np.array([n]))[0] for n in nodes.tolist()]
    assert scores.tolist() == singles
    with pytest.raises(GraphError, match="node ids must lie"):
        index.score_nodes("w1", np.array([400]))
    with pytest.raises(GraphError, match="node ids must lie"):
        index.score_nodes("", np.array([-1]))
    with pytest.raises(GraphError, match="1-D array of integer"):
        index.score_nodes("w1", np.array([0.5]))
    with pytest.raises(GraphError, match="1-D array of integer"):
        index.score_nodes("w1", np.zeros((2, 2), np.int64))


def test_bad_type_codes_are_rejected(index: BM25Index) -> None:
    with pytest.raises(GraphError, match=r"type codes must lie in \[0, 32767\]"):
        index.search("w1", 5, node_types=[-1])
    with pytest.raises(GraphError, match="type codes must lie"):
        index.search("w1", 5, node_types=[2**40])
    assert index.search("w1", 5, node_types=[9])[0].size == 0  # valid code, no such nodes


def test_matched_terms_lists_only_indexed_tokens(index: BM25Index) -> None:
    assert index.matched_terms("W1 nonexistentword w1 graph") == ["w1", "graph"]


def test_build_rejects_bad_input(tmp_path: Path) -> None:
    with pytest.raises(GraphError, match="one name, text and type code per node"):
        build_index(tmp_path / "a", ["x"], [], np.zeros(1, np.int16))
    with pytest.raises(GraphError, match=r"integers in \[0, 32767\]"):
        build_index(tmp_path / "b", ["x"], ["y"], np.array([-1]))
    with pytest.raises(GraphError, match="node 1 has a NoneType text"):
        build_index(tmp_path / "d", ["x", "y"], ["t", None], np.zeros(2, np.int16))  # type: ignore[list-item]
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "junk").write_text("x")
    with pytest.raises(GraphError, match="not empty"):
        build_index(tmp_path / "c", ["x"], ["y"], np.zeros(1, np.int16))


def test_empty_corpus(tmp_path: Path) -> None:
    build_index(tmp_path / "index", [], [], np.zeros(0, np.int16))
    index = BM25Index.open(tmp_path / "index")
    assert index.search("anything", 5)[0].size == 0
    assert index.score_nodes("anything", np.zeros(0, np.int64)).size == 0


def test_open_refuses_missing_or_foreign_index(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="cannot read BM25 index metadata"):
        BM25Index.open(tmp_path)
    build_index(tmp_path / "index", ["a"], ["b"], np.zeros(1, np.int16))
    meta_path = tmp_path / "index" / "meta.json"
    info = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**info, "format_version": 99}))
    with pytest.raises(SnapshotError, match="format version 99"):
        BM25Index.open(tmp_path / "index")


def test_huge_queries_keep_the_first_terms_and_say_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    words = [f"t{i}" for i in range(MAX_QUERY_TERMS + 10)]
    build_index(tmp_path / "index", words, [""] * len(words), np.zeros(len(words), np.int16))
    index = BM25Index.open(tmp_path / "index")
    with caplog.at_level("WARNING", logger="graphs.bm25.index"):
        ids, scores = index.search(" ".join(words), len(words))
    assert f"only the first {MAX_QUERY_TERMS} are used" in caplog.text
    assert sorted(ids.tolist()) == list(range(MAX_QUERY_TERMS))
    np.testing.assert_allclose(index.score_nodes(" ".join(words), ids), scores, rtol=1e-4)


@pytest.fixture(scope="module")
def skewed_types(tmp_path_factory: pytest.TempPathFactory) -> tuple[BM25Index, np.ndarray]:
    names, texts, _ = _corpus(600, seed=3)
    lengths = np.array([len(text) for text in texts])
    codes = np.zeros(600, np.int16)
    codes[np.argsort(-lengths)[:60]] = 4  # 10 % of nodes, the longest texts: low scores
    codes[np.argsort(lengths)[:3]] = 5  # 0.5 %: searched with a filter clause
    codes[10:200:2] = np.where(codes[10:200:2] == 0, 1, codes[10:200:2])
    path = tmp_path_factory.mktemp("skewed") / "index"
    build_index(path, names, texts, codes)
    return BM25Index.open(path), codes


@pytest.mark.parametrize("node_types", [[4], [5], [1, 4], [0], [0, 1, 4, 5], [7]])
@pytest.mark.parametrize("k", [1, 3, 20, 200])
def test_type_filtered_search_is_the_exact_filtered_ranking(
    skewed_types: tuple[BM25Index, np.ndarray], node_types: list[int], k: int
) -> None:
    index, codes = skewed_types
    for query in QUERIES:
        ids, scores = index.search(query, k, node_types=node_types)
        every = index.score_nodes(query, np.arange(index.num_docs))
        allowed = np.flatnonzero((every > 0) & np.isin(codes, node_types))
        expected = allowed[np.lexsort((allowed, -every[allowed]))][:k]
        assert np.isin(codes[ids], node_types).all()
        np.testing.assert_allclose(scores, every[expected], rtol=1e-5)


def test_rare_low_scoring_type_falls_back_to_a_filter_clause(tmp_path: Path) -> None:
    num_nodes = 10_000
    typed = np.arange(0, num_nodes, 16)  # 6 % of nodes, all scoring below the rest
    texts = ["alpha"] * num_nodes
    for node in typed.tolist():
        texts[node] = "alpha " + " ".join(f"filler{i}" for i in range(node % 7 + 5))
    codes = np.zeros(num_nodes, np.int16)
    codes[typed] = 1
    build_index(tmp_path / "index", [""] * num_nodes, texts, codes)
    index = BM25Index.open(tmp_path / "index")
    ids, scores = index.search("alpha", 3, node_types=[1])
    every = index.score_nodes("alpha", typed)
    expected = typed[np.lexsort((typed, -every))][:3]
    assert ids.tolist() == expected.tolist()
    np.testing.assert_allclose(scores, every[np.searchsorted(typed, expected)], rtol=1e-5)


@pytest.fixture(scope="module")
def rare_and_common(tmp_path_factory: pytest.TempPathFactory) -> BM25Index:
    """2,000 nodes: 'common' in all, 'medium' in a third, 'rare' in 7, 'lone' in one."""
    rng = random.Random(11)
    texts = []
    for node in range(2000):
        words = ["common"] * rng.randint(1, 3) + ["filler"] * rng.randint(0, 30)
        words += ["medium"] * (node % 3 == 0) + ["rare"] * (node % 290 == 0)
        words += ["lone"] * (node == 1234)
        rng.shuffle(words)
        texts.append(" ".join(words))
    codes = (np.arange(2000) % 4).astype(np.int16)
    path = tmp_path_factory.mktemp("rare") / "index"
    build_index(path, [""] * 2000, texts, codes)
    return BM25Index.open(path)


@pytest.mark.parametrize(
    "query",
    [
        "common",  # every node: scored densely, whole array scanned
        "rare common",  # a few listed nodes, completed by binary search in 'common'
        "rare medium common",
        "lone rare",  # only short postings: listed to the end
        "medium common filler",
    ],
)
@pytest.mark.parametrize("node_types", [None, [3], [0, 2]])
@pytest.mark.parametrize("k", [1, 3, 10, 2000])
def test_every_search_strategy_returns_the_exact_top_k(
    rare_and_common: BM25Index, query: str, node_types: list[int] | None, k: int
) -> None:
    index = rare_and_common
    every = index.score_nodes(query, np.arange(index.num_docs))
    allowed = np.flatnonzero(every > 0)
    if node_types:
        allowed = allowed[np.isin(allowed % 4, node_types)]
    expected = allowed[np.lexsort((allowed, -every[allowed]))][:k]
    ids, scores = index.search(query, k, node_types=node_types)
    np.testing.assert_allclose(scores, every[expected], rtol=1e-5)
    # ids may differ only inside groups of equal scores (float32 summation order)
    assert ids.tolist() == expected.tolist() or np.allclose(every[ids], every[expected], rtol=1e-6)
    again_ids, again_scores = index.search(query, k, node_types=node_types)
    assert again_ids.tolist() == ids.tolist()  # the reused score buffer was left clean
    np.testing.assert_array_equal(again_scores, scores)


@pytest.mark.parametrize(
    "damage",
    [
        {"bm25": {"k1": -1, "b": 0.4, "idf": "robertson", "exact_lengths": True}},
        {"bm25": {"k1": 0.9, "bogus": 1}},
        {"bm25": "okapi"},
        "impacts",
    ],
    ids=["negative-k1", "unknown-key", "not-a-map", "damaged-impacts"],
)
def test_a_damaged_index_fails_at_open_saying_rebuild(
    tmp_path: Path, damage: dict[str, object] | str
) -> None:
    build_index(tmp_path / "index", ["a"], ["b c"], np.zeros(1, np.int16))
    if damage == "impacts":
        (tmp_path / "index" / "text.impacts.npy").write_bytes(b"not an array")
    else:
        meta_path = tmp_path / "index" / "meta.json"
        meta_path.write_text(json.dumps({**json.loads(meta_path.read_text()), **damage}))
    with pytest.raises(SnapshotError, match=r"rebuild the snapshot$"):
        BM25Index.open(tmp_path / "index")


def test_node_set_scores_are_the_same_once_frequent_terms_get_bitmaps(tmp_path: Path) -> None:
    """A frequent term is searched on its first use and read from its bitmap afterwards."""
    rng = random.Random(7)
    words = [f"v{i}" for i in range(200)] + ["often"] * 300
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 40))) for _ in range(400)]
    build_index(tmp_path / "index", [""] * 400, texts, np.zeros(400, np.int16))
    index = BM25Index.open(tmp_path / "index")
    nodes = np.sort(np.array(rng.sample(range(400), 60)))
    first = index.score_nodes("often v3", nodes)
    bitmaps = index._scorer._bitmaps
    assert bitmaps.cached_bytes == 0  # first use: searched
    second = index.score_nodes("often v3", nodes)
    assert bitmaps.cached_bytes > 0  # second use: 'often' through its bitmap
    np.testing.assert_array_equal(first, second)
    okapi = BM25Okapi([index.tokenize(text) for text in texts], k1=0.9, b=0.4)
    np.testing.assert_allclose(second, okapi.get_scores(["often", "v3"])[nodes], rtol=1e-5)


@pytest.mark.parametrize("query", [*QUERIES, "w1 graph w2 protein w3 w4"])
def test_term_scores_sum_to_score_nodes_for_the_query_and_its_sub_queries(
    index: BM25Index, query: str
) -> None:
    # every node, and a few (a list longer than them is read through its bitmap once seen)
    for nodes in (np.arange(index.num_docs), np.array([399, 3, 5, 3, 0, 17])):
        table = index.term_scores(query, nodes)
        np.testing.assert_array_equal(table.whole(nodes), index.score_nodes(query, nodes))
        words = query.split()
        for dropped in range(len(words)):
            sub = " ".join(words[:dropped] + words[dropped + 1 :])
            summed = table.total(index.query_terms(sub), nodes)
            assert summed is not None
            np.testing.assert_array_equal(summed, index.score_nodes(sub, nodes))
    assert table.total(index.query_terms("w38"), nodes) is None or "w38" in query
    with pytest.raises(GraphError, match="not scored"):
        table.whole(np.array([1]))  # a node the table was not built for
    with pytest.raises(GraphError, match="node ids must lie"):
        index.term_scores(query, np.array([index.num_docs]))
