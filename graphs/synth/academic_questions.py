"""Question recipes and description facets of the academic domain."""

from __future__ import annotations

import numpy as np

from graphs.synth import scholarly
from graphs.synth.model import SynthGraph
from graphs.synth.recipes import Facet, Multi, OneHop, Step, TextOnly, TwoHop

TRAITS = tuple(scholarly.TRAITS)
AUTHORED = Step("writes", "out", "paper")
CITED_BY = Step("cites", "in", "paper")
REFERENCES = Step("cites", "out", "paper")
ON_FIELD = Step("has_topic", "out", "field")

ONE_HOP = (
    OneHop(
        "author",
        AUTHORED,
        TRAITS,
        (
            "Which of {anchor}'s papers are {pred}?",
            "Find {adj} papers written by {anchor}.",
            "{anchor} has written a number of papers; which ones are {pred}?",
            "I'm after papers by {anchor} {rel}.",
        ),
    ),
    OneHop(
        "paper",
        CITED_BY,
        TRAITS,
        (
            'Which {adj} papers cite "{anchor}"?',
            'List papers {rel} that reference "{anchor}".',
            'Among the works citing "{anchor}", which are {pred}?',
        ),
    ),
    OneHop(
        "paper",
        REFERENCES,
        TRAITS,
        (
            'Which {adj} papers are cited by "{anchor}"?',
            'Among the references of "{anchor}", which are {pred}?',
            'What does the paper "{anchor}" cite that is {pred}?',
        ),
    ),
)

TWO_HOP = (
    TwoHop(
        "institution",
        Step("affiliated_with", "in", "author"),
        AUTHORED,
        (
            "Which papers on {filter} were written by researchers at {anchor}?",
            "Find {filter} papers by authors affiliated with {anchor}.",
            "What has {anchor} published in {filter}, through any of its researchers?",
            "Show me papers about {filter} from people at {anchor}.",
        ),
        constraint=ON_FIELD,
    ),
    TwoHop(
        "author",
        AUTHORED,
        CITED_BY,
        (
            "Which papers cite work by {anchor}?",
            "Who builds on {anchor}'s research? List the citing papers.",
            "Find papers that reference any paper written by {anchor}.",
        ),
    ),
    TwoHop(
        "author",
        AUTHORED,
        REFERENCES,
        (
            "Which {filter} papers does {anchor} cite in their own work?",
            "What {filter} papers are referenced by papers of {anchor}?",
        ),
        constraint=ON_FIELD,
    ),
)

MULTI = (
    Multi(
        "author",
        AUTHORED,
        (
            "List all papers written by {anchor}.",
            "What has {anchor} published?",
            "Show me every paper authored by {anchor}.",
            "papers by {anchor}",
        ),
    ),
    Multi(
        "author",
        AUTHORED,
        (
            "Which {filter} papers has {anchor} written?",
            "List {anchor}'s publications in {filter}.",
        ),
        constraint=ON_FIELD,
    ),
    Multi(
        "paper",
        REFERENCES,
        (
            'What papers does "{anchor}" cite?',
            'List the references of "{anchor}".',
        ),
    ),
    Multi(
        "paper",
        CITED_BY,
        (
            'Which papers cite "{anchor}"?',
            'Who cites the paper "{anchor}"?',
        ),
    ),
)

DESCRIBED: dict[str, tuple[str, ...]] = {
    "reproducible": ("with reproducible experiments", "whose experiments are reproducible"),
    "theoretical": ("with a theoretical analysis", "that includes theoretical guarantees"),
    "multimodal": ("that is multimodal", "combining several modalities"),
    "interpretable": ("that yields interpretable models", "focused on interpretable models"),
    "scalable": ("that scales to millions of examples", "that is scalable"),
    "unsupervised": ("trained without labels", "that is unsupervised"),
    "privacy": ("that preserves privacy", "with a privacy-preserving design"),
    "robust": ("that is robust to noise", "that holds up under distribution shift"),
    "efficient": ("that is compute-efficient", "that halves the compute"),
}
"""Singular phrasings of each trait for description questions (some without the keyword)."""

TEXT_TEMPLATES = (
    "I'm looking for {head} {details}.",
    "Which paper is {head} {details}?",
    "Find {head} {details}.",
    "There was {head} {details} - do you know which one?",
    "I remember reading {head} {details}. What was it?",
)


def text_only(graph: SynthGraph, papers: np.ndarray, attrs: dict[str, np.ndarray]) -> TextOnly:
    """The description recipe: a paper told apart by task, method, data set, year, venue, traits."""
    n = graph.num_nodes
    head = Facet.spread(
        n, papers, np.zeros(papers.size, dtype=np.int64), [("a paper", "an article", "a study")]
    )
    all_tasks = [t for tasks in scholarly.FIELDS.values() for t in tasks]
    offsets = np.cumsum([0] + [len(t) for t in scholarly.FIELDS.values()])[:-1]
    task_code = offsets[attrs["field"]] + attrs["task"]
    task = Facet.spread(
        n, papers, task_code, [(f"on {t}", f"about {t}", f"tackling {t}") for t in all_tasks]
    )
    method = Facet.spread(
        n,
        papers,
        attrs["method"],
        [(f"that uses {m}", f"based on {alt}", f"built on {m}") for m, alt in scholarly.METHODS],
    )
    data_code = task_code * 10 + attrs["dataset"]
    names_by_code = {int(c): scholarly.dataset_name(attrs, i) for i, c in enumerate(data_code)}
    uniq, data_inverse = np.unique(data_code, return_inverse=True)
    dataset = Facet.spread(
        n,
        papers,
        data_inverse,
        [
            (
                f"evaluated on {names_by_code[int(c)]}",
                f"with experiments on {names_by_code[int(c)]}",
            )
            for c in uniq
        ],
    )
    year = Facet.spread(
        n,
        papers,
        attrs["year"] - 1990,
        [(f"published in {y}", f"from {y}", f"that came out in {y}") for y in range(1990, 2025)],
    )
    venue = Facet.spread(
        n,
        papers,
        attrs["venue"],
        [(f"that appeared at the {v}", f"published by the {v}") for v in scholarly.VENUES],
    )
    score_code = attrs["metric"] * 1000 + attrs["score"]
    uniq_score, score_inverse = np.unique(score_code, return_inverse=True)
    score = Facet.spread(
        n,
        papers,
        score_inverse,
        [
            (
                f"reporting {scholarly.METRICS[int(c // 1000)]} of {c % 1000 / 10:.1f}",
                f"with {c % 1000 / 10:.1f} {scholarly.METRICS[int(c // 1000)]}",
            )
            for c in uniq_score.tolist()
        ],
    )
    traits = [
        Facet.spread(
            n,
            papers,
            (attrs["traits"] >> bit) & 1,
            [(), DESCRIBED[key]],
        )
        for bit, key in enumerate(TRAITS)
    ]
    return TextOnly(
        "paper",
        head,
        (task, method, dataset, year, venue, score, *traits),
        TEXT_TEMPLATES,
        min_facets=3,
    )
