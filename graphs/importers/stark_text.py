"""Node documents and names for STaRK SKBs, rendered the way STaRK's `get_doc_info` renders them.

The rules reproduce the non-relational part (`add_rel=False`) of `get_doc_info` in
snap-stanford/stark:

* `stark_qa/skb/prime.py` (`PrimeSKB.get_doc_info`, with `clean_dict` from
  `stark_qa/tools/process_text.py` applied to `node_info` as `PrimeSKB.__init__` does);
* `stark_qa/skb/mag.py` (`MagSKB.get_doc_info`);
* `stark_qa/skb/amazon.py` (`AmazonSKB.get_doc_info`, `max_entries=25`);
* `compact_text` from `stark_qa/tools/process_text.py` for `compact=True`.

Where STaRK would raise on a malformed record (a missing attribute, a non-string abstract),
the renderer degrades instead of crashing; each such place is noted in the function that
handles it. Every quirk of the original output (leading spaces, `-1` replaced by `Unknown`
anywhere in MAG author/field/institution documents, review numbers that keep the original
position) is kept on purpose, so that BM25 over these documents matches STaRK's baselines.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

STARK_DATASETS = ("prime", "mag", "amazon")

_GENE_PROTEIN_FIELDS = MappingProxyType(
    {
        "name": "gene name",
        "type_of_gene": "gene types",
        "alias": "other gene names",
        "other_names": "extended other gene names",
        "genomic_pos": "genomic position",
        "generif": "PubMed text",
        "interpro": "protein family and classification information",
        "summary": "protein summary text",
    }
)
_GENERIF_MAX_WORDS = 50000
_AMAZON_META_TYPES = MappingProxyType(
    {"brand": "brand_name", "category": "category_name", "color": "color_name"}
)
_MAG_VENUE_FIELDS = (
    ("OriginalVenue", "venue"),
    ("JournalDisplayName", "journal"),
    ("ConferenceSeriesDisplayName", "conference"),
    ("ConferenceInstancesDisplayName", "conference"),
)


@dataclass(frozen=True, kw_only=True)
class StarkTextConfig:
    """How node documents are rendered.

    Attributes:
        compact: apply STaRK's `compact_text` (as `get_doc_info(compact=True)` does).
        max_entries: AmazonSKB's `max_entries`; the loops break after entry index
            `max_entries + 1`, so up to `max_entries + 2` reviews and Q&A pairs are shown.
    """

    compact: bool = False
    max_entries: int = 25


def is_missing(value: object) -> bool:
    """Whether a scalar is None or NaN (pandas' `isnull` for the scalars STaRK stores)."""
    if value is None:
        return True
    return isinstance(value, float | np.floating) and math.isnan(value)


def clean_dict(record: Mapping[str, Any]) -> dict[str, Any]:
    """Drop entries whose `str()` is '' or 'nan', recursing into nested dicts (STaRK's rule)."""
    cleaned: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, Mapping):
            cleaned[key] = clean_dict(value)
        elif str(value) not in ("", "nan"):
            cleaned[key] = value
    return cleaned


def compact_text(text: str) -> str:
    """STaRK's `compact_text`: newlines to '. ', drop '- ' bullets, squeeze whitespace."""
    text = text.replace("\n", ". ").replace("\r", "")
    text = text.replace("- ", "")
    text = text.replace(": .", ":").replace(":.", ":")
    text = re.sub(r"\s{2,}", " ", text)
    return text.replace(".. ", ". ")


def render_document(
    dataset: str, info: Mapping[str, Any], type_name: str, config: StarkTextConfig
) -> str:
    """Render one node's document as `get_doc_info(idx, add_rel=False, compact=...)` does.

    Args:
        dataset: "prime", "mag" or "amazon".
        info: the node's entry of `node_info.pkl`.
        type_name: the node's type from `node_types.pt` and the type dictionary.
        config: rendering options.

    Returns:
        The document text.
    """
    if dataset == "prime":
        doc = render_prime(info)
    elif dataset == "mag":
        doc = render_mag(info, type_name)
    elif dataset == "amazon":
        doc = render_amazon(info, type_name, max_entries=config.max_entries)
        if type_name in _AMAZON_META_TYPES:
            return doc  # AmazonSKB returns these before compacting
    else:
        raise ValueError(f"unknown STaRK dataset {dataset!r}; expected one of {STARK_DATASETS}")
    return compact_text(doc) if config.compact else doc


def node_name(dataset: str, info: Mapping[str, Any], type_name: str) -> str:
    """The display name of a node: prime `name`, mag paper `title` or `DisplayName`, amazon title.

    Args:
        dataset: "prime", "mag" or "amazon".
        info: the node's entry of `node_info.pkl`.
        type_name: the node's type name.

    Returns:
        The name, or "" when the record has none.
    """
    if dataset == "prime":
        key = "name"
    elif dataset == "mag":
        key = "title" if type_name == "paper" else "DisplayName"
    else:
        key = _AMAZON_META_TYPES.get(type_name, "title")
    value = info.get(key)
    if is_missing(value) or (dataset == "mag" and str(value) == "-1"):
        return ""
    return str(value)


def render_prime(info: Mapping[str, Any]) -> str:
    """PrimeSKB.get_doc_info without relations.

    A `source` that `clean_dict` removed (NaN or empty) makes STaRK raise; its line is omitted.
    """
    node = clean_dict(info)
    node_type = node.get("type")
    doc = f"- name: {node.get('name')}\n- type: {node_type}\n"
    if "source" in node:
        doc += f"- source: {node['source']}\n"
    details = node.get("details")
    lines = []
    if isinstance(details, Mapping):
        for key, value in details.items():
            if str(value) in ("", "nan") or key.startswith("_") or "_id" in key:
                continue
            if node_type == "gene/protein" and key in _GENE_PROTEIN_FIELDS:
                shown = _gene_protein_value(key, value)
                lines.append(f"  - {key} ({_GENE_PROTEIN_FIELDS[key]}): {shown}\n")
            else:
                lines.append(f"  - {key}: {value}\n")
    if lines:
        doc += "- details:\n" + "".join(lines)
    return doc


def _gene_protein_value(key: str, value: Any) -> Any:
    """The special formatting PrimeSKB applies to interpro, generif and genomic_pos entries.

    Entries without `desc` (interpro) or `text` (generif), on which STaRK raises, are left out.
    """
    if "interpro" in key:
        entries = [value] if isinstance(value, Mapping) else value
        return [entry["desc"] for entry in _entries_with(entries, "desc")]
    if "generif" in key:
        joined = "; ".join(str(entry["text"]) for entry in _entries_with(value, "text"))
        return " ".join(joined.split(" ")[:_GENERIF_MAX_WORDS])
    if "genomic_pos" in key and isinstance(value, list):
        return value[0]
    return value


def _entries_with(entries: Any, key: str) -> list[Mapping[str, Any]]:
    if not isinstance(entries, list | tuple):
        return []
    return [entry for entry in entries if isinstance(entry, Mapping) and key in entry]


def render_mag(info: Mapping[str, Any], type_name: str) -> str:
    """MagSKB.get_doc_info without relations.

    Attributes absent from a record count as unknown (-1) where STaRK would raise; a
    missing or non-string abstract renders as empty where STaRK would raise.
    """
    node_type = info.get("type", type_name)
    if node_type == "paper":
        return _render_mag_paper(info)
    labels = {
        "author": ("- author name", "author"),
        "field_of_study": (" - field of study", "field"),
        "institution": (" - institution", "institution"),
    }
    if node_type not in labels:
        return ""
    heading, short = labels[node_type]
    doc = f"{heading}: {info.get('DisplayName', -1)}\n"
    if info.get("PaperCount", -1) != -1:
        doc += f"- {short} paper count: {info['PaperCount']}\n"
    if info.get("CitationCount", -1) != -1:
        doc += f"- {short} citation count: {info['CitationCount']}\n"
    return doc.replace("-1", "Unknown")


def _render_mag_paper(info: Mapping[str, Any]) -> str:
    abstract = info.get("abstract")
    abstract_text = abstract if isinstance(abstract, str) else ""
    doc = f" - paper title: {info.get('title', -1)}\n"
    doc += " - abstract: " + abstract_text.replace("\r", "").rstrip("\n") + "\n"
    if str(info.get("Date", -1)) != "-1":
        doc += f" - publication date: {info['Date']}\n"
    for field, label in _MAG_VENUE_FIELDS:
        if str(info.get(field, -1)) != "-1":
            doc += f" - {label}: {info[field]}\n"
            break
    return doc


def render_amazon(info: Mapping[str, Any], type_name: str, *, max_entries: int = 25) -> str:
    """AmazonSKB.get_doc_info without relations.

    Brand, category and color nodes render as one line. For products, STaRK orders reviews
    by helpful votes with NumPy's default (unstable) argsort, so reviews with equal votes
    come out in a platform-dependent order there; here ties keep their stored order.
    Dimensions and weight are shown whenever `details` holds `product_dimensions` with exactly
    one " ; ": STaRK's `register_node` makes every key of a dict attribute a sub-attribute, so
    its `node.details.product_dimensions` reads `details["product_dimensions"]`. The nested
    `details["dictionary"]["product_dimensions"]` that its condition names literally is read
    too.
    """
    if type_name in _AMAZON_META_TYPES:
        attribute = _AMAZON_META_TYPES[type_name]
        return f"{type_name} name: {info.get(attribute)}"
    doc = f"- product: {info.get('title')}\n"
    if "brand" in info:
        doc += f"- brand: {info['brand']}\n"
    doc += _amazon_dimensions(info.get("details"))
    description = info.get("description")
    if description and not is_missing(description):
        parts = [description] if isinstance(description, str) else description
        text = " ".join(parts).strip(" ")
        if text:
            doc += f"- description: {text}\n"
    return (
        doc
        + _amazon_features(info.get("feature"))
        + _amazon_reviews(info.get("review"), max_entries)
        + _amazon_qa(info.get("qa"), max_entries)
    )


def _amazon_dimensions(details: Any) -> str:
    if not isinstance(details, Mapping):
        return ""
    value = details.get("product_dimensions")
    nested = details.get("dictionary")
    if value is None and isinstance(nested, Mapping):
        value = nested.get("product_dimensions")
    parts = value.split(" ; ") if isinstance(value, str) else []
    if len(parts) != 2:
        return ""
    return f"- dimensions: {parts[0]}\n- weight: {parts[1]}\n"


def _amazon_features(features: Any) -> str:
    if not features or is_missing(features):
        return ""
    text = "- features: \n"
    for position, feature in enumerate(features):
        if feature and "asin" not in feature.lower():
            text += f"#{position + 1}: {feature}\n"
    return text


def _review_votes(vote: Any) -> int:
    if is_missing(vote):
        return 0
    try:
        return int(str(vote).replace(",", ""))
    except ValueError:
        return 0


def _amazon_reviews(reviews: Sequence[Mapping[str, Any]] | None, max_entries: int) -> str:
    if not reviews or is_missing(reviews):
        return ""
    votes = np.array([_review_votes(review.get("vote")) for review in reviews], dtype=np.int64)
    text = "- reviews: \n"
    for rank, position in enumerate(np.argsort(-votes, kind="stable").tolist()):
        review = reviews[position]
        text += (
            f"#{position + 1}:\nsummary: {review.get('summary')}\n"
            f'text: "{review.get("reviewText")}"\n'
        )
        if rank > max_entries:
            break
    return text


def _amazon_qa(pairs: Sequence[Mapping[str, Any]] | None, max_entries: int) -> str:
    if not pairs or is_missing(pairs):
        return ""
    text = "- Q&A: \n"
    for position, pair in enumerate(pairs):
        question, answer = pair.get("question"), pair.get("answer")
        text += f'#{position + 1}:\nquestion: "{question}"\nanswer: "{answer}"\n'
        if position > max_entries:
            break
    return text
