"""STaRK document rendering: hand-written expectations of STaRK's get_doc_info(add_rel=False)."""

from __future__ import annotations

import math

import pytest

from graphs.importers.stark_text import (
    StarkTextConfig,
    clean_dict,
    compact_text,
    node_name,
    render_amazon,
    render_document,
    render_mag,
    render_prime,
)

NAN = math.nan


def test_prime_gene_protein_uses_explained_keys_and_special_formats() -> None:
    info = {
        "id": 7157,
        "type": "gene/protein",
        "name": "TP53",
        "source": "NCBI",
        "details": {
            "name": "TP53",
            "type_of_gene": "protein-coding",
            "alias": ["p53", "LFS1"],
            "genomic_pos": {"chr": "17", "start": 7661779, "end": NAN},
            "generif": [{"pubmed": 1, "text": "binds DNA"}, {"pubmed": 2, "text": "suppresses"}],
            "interpro": {"desc": "p53 DNA-binding", "id": "IPR1"},
            "summary": "Encodes a tumor suppressor.",
            "_score": 5.1,
            "entrez_id": "7157",
            "empty": "",
            "symbol": "TP53",
        },
    }
    assert render_prime(info) == (
        "- name: TP53\n"
        "- type: gene/protein\n"
        "- source: NCBI\n"
        "- details:\n"
        "  - name (gene name): TP53\n"
        "  - type_of_gene (gene types): protein-coding\n"
        "  - alias (other gene names): ['p53', 'LFS1']\n"
        "  - genomic_pos (genomic position): {'chr': '17', 'start': 7661779}\n"
        "  - generif (PubMed text): binds DNA; suppresses\n"
        "  - interpro (protein family and classification information): ['p53 DNA-binding']\n"
        "  - summary (protein summary text): Encodes a tumor suppressor.\n"
        "  - symbol: TP53\n"
    )


def test_prime_genomic_pos_list_shows_first_and_interpro_list() -> None:
    info = {
        "type": "gene/protein",
        "name": "G",
        "source": "NCBI",
        "details": {
            "genomic_pos": [{"chr": "1"}, {"chr": "2"}],
            "interpro": [{"desc": "a"}, {"desc": "b"}],
        },
    }
    assert render_prime(info).endswith(
        "  - genomic_pos (genomic position): {'chr': '1'}\n"
        "  - interpro (protein family and classification information): ['a', 'b']\n"
    )


def test_prime_other_types_print_keys_plainly_and_skip_empty_details() -> None:
    disease = {
        "type": "disease",
        "name": "lung cancer",
        "source": "MONDO",
        "details": {"mondo_definition": "A cancer.", "umls_description": NAN, "name": "x"},
    }
    assert render_prime(disease) == (
        "- name: lung cancer\n- type: disease\n- source: MONDO\n"
        "- details:\n  - mondo_definition: A cancer.\n  - name: x\n"
    )
    only_hidden = {"type": "anatomy", "name": "lung", "source": "UBERON", "details": {"_a": 1}}
    assert render_prime(only_hidden) == "- name: lung\n- type: anatomy\n- source: UBERON\n"


def test_prime_missing_source_omits_the_line_instead_of_crashing() -> None:
    assert render_prime({"type": "drug", "name": "aspirin", "source": NAN}) == (
        "- name: aspirin\n- type: drug\n"
    )


def test_clean_dict_recurses_into_dicts_only() -> None:
    cleaned = clean_dict({"a": "", "b": NAN, "c": {"d": "nan", "e": 1}, "f": [NAN]})
    assert list(cleaned) == ["c", "f"]
    assert cleaned["c"] == {"e": 1}
    assert math.isnan(cleaned["f"][0])


def test_mag_author_replaces_minus_one_everywhere() -> None:
    info = {"type": "author", "DisplayName": "Unit-1", "PaperCount": -1, "CitationCount": 300}
    assert (
        render_mag(info, "author") == "- author name: UnitUnknown\n- author citation count: 300\n"
    )


def test_mag_institution_and_field_lines() -> None:
    institution = {"type": "institution", "DisplayName": "Stanford", "PaperCount": 50}
    institution["CitationCount"] = 90
    assert render_mag(institution, "institution") == (
        " - institution: Stanford\n- institution paper count: 50\n"
        "- institution citation count: 90\n"
    )
    field = {"type": "field_of_study", "DisplayName": "Graphs", "PaperCount": -1}
    field["CitationCount"] = -1
    assert render_mag(field, "field_of_study") == " - field of study: Graphs\n"


def test_mag_paper_title_abstract_date_and_first_known_venue() -> None:
    paper = {
        "type": "paper",
        "title": "Knowledge graphs",
        "abstract": "We study graphs.\r\n\n",
        "Date": "2020-01-01",
        "OriginalVenue": -1,
        "JournalDisplayName": "JMLR",
        "ConferenceSeriesDisplayName": "NeurIPS",
        "ConferenceInstancesDisplayName": -1,
    }
    assert render_mag(paper, "paper") == (
        " - paper title: Knowledge graphs\n - abstract: We study graphs.\n"
        " - publication date: 2020-01-01\n - journal: JMLR\n"
    )
    paper.update(Date=-1, JournalDisplayName=-1, ConferenceSeriesDisplayName=-1)
    paper["ConferenceInstancesDisplayName"] = "KDD 2020"
    assert render_mag(paper, "paper").endswith(
        " - abstract: We study graphs.\n - conference: KDD 2020\n"
    )


def test_mag_paper_without_abstract_renders_empty_abstract() -> None:
    paper = {"type": "paper", "title": "T", "abstract": NAN}
    assert render_mag(paper, "paper") == " - paper title: T\n - abstract: \n"


def _product(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "title": "Mug",
        "description": [],
        "feature": [],
        "review": [],
        "qa": [],
    }
    base.update(extra)
    return base


def test_amazon_product_full_document() -> None:
    info = _product(
        title="Trail Running Shoe",
        brand="Acme",
        description=["Light shoe.", " Great grip. "],
        feature=["Breathable mesh", "", "ASIN: B001", "Rubber sole"],
        review=[
            {"summary": "ok", "reviewText": "fine", "vote": NAN},
            {"summary": "great", "reviewText": "love it", "vote": "1,204"},
            {"summary": "good", "reviewText": "nice", "vote": "3"},
        ],
        qa=[{"question": "Waterproof?", "answer": "No"}],
        details={"product_dimensions": "10 x 4 x 3 inches ; 1 pounds"},
    )
    assert render_amazon(info, "product") == (
        "- product: Trail Running Shoe\n"
        "- brand: Acme\n"
        "- dimensions: 10 x 4 x 3 inches\n"
        "- weight: 1 pounds\n"
        "- description: Light shoe.  Great grip.\n"
        "- features: \n#1: Breathable mesh\n#4: Rubber sole\n"
        '- reviews: \n#2:\nsummary: great\ntext: "love it"\n'
        '#3:\nsummary: good\ntext: "nice"\n'
        '#1:\nsummary: ok\ntext: "fine"\n'
        '- Q&A: \n#1:\nquestion: "Waterproof?"\nanswer: "No"\n'
    )


@pytest.mark.parametrize(
    "details",
    [
        {"product_dimensions": "3 x 3 in ; 8 ounces"},  # what STaRK's register_node makes
        {"dictionary": {"product_dimensions": "3 x 3 in ; 8 ounces"}},
    ],
)
def test_amazon_dimensions_and_weight_from_details(details: dict[str, object]) -> None:
    assert render_amazon(_product(details=details), "product") == (
        "- product: Mug\n- dimensions: 3 x 3 in\n- weight: 8 ounces\n"
    )


@pytest.mark.parametrize(
    "details",
    [
        {"product_dimensions": "3 x 3 in"},  # no " ; ": not dimensions and weight
        {"product_dimensions": "3 in ; 8 oz ; 2 lb"},
        {"product_dimensions": NAN},
        {},
        "3 x 3 in ; 8 ounces",
    ],
)
def test_amazon_dimensions_need_exactly_one_separator(details: object) -> None:
    assert render_amazon(_product(details=details), "product") == "- product: Mug\n"
    assert render_amazon(_product(description=["  "]), "product") == "- product: Mug\n"


def test_amazon_entries_stop_after_max_entries_plus_two() -> None:
    pairs = [{"question": f"q{i}", "answer": f"a{i}"} for i in range(5)]
    text = render_amazon(_product(qa=pairs), "product", max_entries=1)
    assert '"q2"' in text
    assert '"q3"' not in text
    reviews = [{"summary": f"s{i}", "reviewText": "t", "vote": str(i)} for i in range(5)]
    text = render_amazon(_product(review=reviews), "product", max_entries=1)
    assert [line for line in text.splitlines() if line.startswith("#")] == ["#5:", "#4:", "#3:"]


@pytest.mark.parametrize(
    ("type_name", "info", "expected"),
    [
        ("brand", {"brand_name": "Acme"}, "brand name: Acme"),
        ("category", {"category_name": "running"}, "category name: running"),
        ("color", {"color_name": "red"}, "color name: red"),
    ],
)
def test_amazon_meta_nodes_are_one_line(type_name: str, info: dict, expected: str) -> None:
    assert render_amazon(info, type_name) == expected
    assert node_name("amazon", info, type_name) == expected.split(": ")[1]


def test_compact_text_matches_stark() -> None:
    assert (
        compact_text("- name: TP53\n- type: gene/protein\n") == "name: TP53. type: gene/protein. "
    )
    assert compact_text("- details:\n  - a: b\n") == "details: a: b. "
    doc = render_document(
        "prime",
        {"type": "drug", "name": "x", "source": "DB"},
        "drug",
        StarkTextConfig(compact=True),
    )
    assert doc == "name: x. type: drug. source: DB. "


def test_names_per_dataset() -> None:
    assert node_name("prime", {"name": "TP53"}, "gene/protein") == "TP53"
    assert node_name("mag", {"title": "KG", "DisplayName": "no"}, "paper") == "KG"
    assert node_name("mag", {"DisplayName": -1}, "author") == ""
    assert node_name("amazon", {"title": NAN}, "product") == ""


def test_unknown_dataset_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown STaRK dataset 'wiki'"):
        render_document("wiki", {}, "x", StarkTextConfig())


def test_amazon_meta_nodes_are_never_compacted() -> None:
    config = StarkTextConfig(compact=True)
    assert render_document("amazon", {"brand_name": "a\nb"}, "brand", config) == "brand name: a\nb"
    product = render_document("amazon", _product(title="a\nb"), "product", config)
    assert product == "product: a. b. "


def test_prime_gene_entries_without_desc_or_text_are_left_out() -> None:
    info = {
        "type": "gene/protein",
        "name": "G",
        "source": "NCBI",
        "details": {"interpro": [{"desc": "kept"}, {"id": "no desc"}], "generif": [{"x": 1}]},
    }
    assert render_prime(info).endswith(
        "  - interpro (protein family and classification information): ['kept']\n"
        "  - generif (PubMed text): \n"
    )
