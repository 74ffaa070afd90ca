"""Question recipes and description facets of the product-catalogue domain."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphs.synth import catalog
from graphs.synth.model import SynthGraph
from graphs.synth.phrasing import article
from graphs.synth.recipes import Facet, Multi, OneHop, Step, TextOnly, TwoHop

FEATURE_TRAITS = tuple(catalog.FEATURES)
COLOR_TRAITS = tuple(catalog.COLORS)

ALSO_BUY = Step("also_buy", "both", "product")
ALSO_VIEW = Step("also_view", "both", "product")
BRAND_PRODUCTS = Step("has_brand", "in", "product")
IN_CATEGORY = Step("has_category", "out", "category")
IN_COLOR = Step("has_color", "out", "color")

ONE_HOP = (
    OneHop(
        "product",
        ALSO_BUY,
        FEATURE_TRAITS + COLOR_TRAITS,
        (
            "Which {adj} products are often bought together with the {anchor}?",
            "I just got the {anchor}. What {adj} items do people usually buy with it?",
            "Show me products {rel} that customers also bought with the {anchor}.",
            "Among the items frequently purchased alongside the {anchor}, which ones are {pred}?",
            "what {adj} stuff do shoppers pick up together with the {anchor}",
        ),
    ),
    OneHop(
        "product",
        ALSO_VIEW,
        FEATURE_TRAITS + COLOR_TRAITS,
        (
            "Which {adj} products do people also look at when viewing the {anchor}?",
            "Customers browsing the {anchor} also view which {adj} items?",
            "List items {rel} that are often viewed together with the {anchor}.",
            "I'm comparing options to the {anchor}. Which similar products are {pred}?",
        ),
    ),
    OneHop(
        "brand",
        BRAND_PRODUCTS,
        FEATURE_TRAITS + COLOR_TRAITS,
        (
            "Which {adj} products does {anchor} make?",
            "Show me {adj} items from {anchor}.",
            "I like {anchor}. Which of their products are {pred}?",
            "What does {anchor} sell that is {pred}?",
        ),
    ),
)

TWO_HOP = (
    TwoHop(
        "brand",
        BRAND_PRODUCTS,
        ALSO_BUY,
        (
            "Which {filter} are frequently bought together with products from {anchor}?",
            "People who buy {anchor} gear also buy which {filter}?",
            "Show me {filter} that are often purchased alongside items made by {anchor}.",
            "I own a few {anchor} products; what {filter} do other buyers of that brand pick up?",
        ),
        constraint=IN_CATEGORY,
    ),
    TwoHop(
        "product",
        ALSO_BUY,
        ALSO_VIEW,
        (
            "Shoppers who buy the {anchor} also buy other items; "
            "which {filter} products do people view next to those?",
            "Find {filter} products viewed alongside things bought together with the {anchor}.",
            "Which {filter} items show up in views of products often bought with the {anchor}?",
        ),
        constraint=Step("has_brand", "out", "brand"),
    ),
)

MULTI = (
    Multi(
        "brand",
        BRAND_PRODUCTS,
        (
            "Show me all {filter} from {anchor}.",
            "Which {filter} does {anchor} sell?",
            "List every {anchor} product in the {filter} category.",
            "what {filter} are made by {anchor}",
        ),
        constraint=IN_CATEGORY,
    ),
    Multi(
        "product",
        ALSO_BUY,
        (
            "What products are frequently bought together with the {anchor}?",
            "List everything customers usually buy along with the {anchor}.",
            "I'm getting the {anchor} - what else do people buy with it?",
        ),
    ),
    Multi(
        "brand",
        BRAND_PRODUCTS,
        (
            "Which {anchor} products come in {filter_lc}?",
            "List all {filter_lc} items made by {anchor}.",
            "Show me every product from {anchor} in {filter_lc}.",
        ),
        constraint=IN_COLOR,
    ),
)

TEXT_TEMPLATES = (
    "I'm looking for {head} {details}.",
    "Which product is {head} {details}?",
    "Can you find {head} {details}?",
    "Searching for {head}: {details}.",
    "I need {head} {details}. Which one fits?",
    "Looking to buy {head} {details} - what matches?",
)


def _by_value(
    n: int,
    nodes: np.ndarray,
    values: np.ndarray,
    phrases: tuple[str, ...],
    show: Callable[[int], str] = str,
) -> Facet:
    unique, codes = np.unique(values, return_inverse=True)
    clauses = [tuple(p.format(v=show(int(v))) for p in phrases) for v in unique.tolist()]
    return Facet.spread(n, nodes, codes, clauses)


def text_only(
    graph: SynthGraph,
    products: np.ndarray,
    attrs: dict[str, np.ndarray],
    categories: list[tuple[int, str, str]],
    colors: list[str],
) -> TextOnly:
    """The description recipe: a product told apart by kind, colour, material, numbers, features."""
    n = graph.num_nodes
    specs = list(catalog.DEPARTMENTS.values())
    department = attrs["department"]
    head = Facet.spread(n, products, attrs["category"], [(article(k),) for _, _, k in categories])
    shade = Facet.spread(
        n,
        products,
        attrs["color"] * 3 + attrs["shade"],
        [
            (f"in {s} {c}", f"in a {s} {c} shade", f"in {s}")
            for c in colors
            for s in catalog.COLORS[c]
        ],
    )
    material_names = sorted({m for spec in specs for m in spec[2]})
    material_codes = np.asarray(
        [
            material_names.index(specs[d][2][m])
            for d, m in zip(department, attrs["material"], strict=True)
        ]
    )
    material = Facet.spread(
        n,
        products,
        material_codes,
        [(f"made of {m}", f"built from {m}", f"with {m} construction") for m in material_names],
    )
    units = list(catalog.UNITS)
    unit = np.asarray([units.index(specs[d][0]) for d in department])
    spec_codes = unit * 100_000 + attrs["spec"]
    uniq, spec_inverse = np.unique(spec_codes, return_inverse=True)
    spec = Facet.spread(
        n,
        products,
        spec_inverse,
        [
            tuple(
                p.format(v=int(code % 100_000))
                for p in catalog.UNITS[units[int(code // 100_000)]][1]
            )
            for code in uniq
        ],
    )
    price = _by_value(
        n,
        products,
        attrs["price_cents"],
        ("priced at ${v}", "for ${v}", "that costs ${v}"),
        lambda cents: f"{cents / 100:.2f}",
    )
    rating = _by_value(
        n,
        products,
        attrs["rating"],
        ("rated {v} stars", "with a {v}-star rating", "with an average rating of {v}"),
        lambda tenths: f"{tenths / 10:.1f}",
    )
    features = []
    for code, (_, phrases) in enumerate(catalog.FEATURES.values()):
        present = (attrs["feature1"] == code) | (attrs["feature2"] == code)
        features.append(Facet.spread(n, products, present.astype(np.int64), [(), phrases]))
    return TextOnly(
        "product", head, (shade, material, spec, price, rating, *features), TEXT_TEMPLATES
    )
