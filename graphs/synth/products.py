"""The product-catalogue domain (like STaRK-Amazon): products, brands, categories, colours."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphs.errors import GraphError
from graphs.synth import catalog, names, products_questions, sampling
from graphs.synth.model import GraphBuilder, SynthGraph
from graphs.synth.phrasing import article, choose
from graphs.synth.recipes import Domain, Trait

DEFAULT_NODES = 6000
MIN_NODES = 400


def _departments() -> tuple[list[str], list[tuple[int, str, str]]]:
    departments = list(catalog.DEPARTMENTS)
    categories = [
        (d, category, kind)
        for d, spec in enumerate(catalog.DEPARTMENTS.values())
        for category, kind in spec[4]
    ]
    return departments, categories


def _product_text(
    name: str,
    kind: str,
    material: str,
    shade: str,
    color: str,
    features: Sequence[str],
    spec: str,
    price: str,
    rating: float,
    reviews: int,
    filler: str,
    style: int,
) -> str:
    first, second = features
    intro = (
        f"The {name} is {article(first)} {kind} made from {material}.",
        f"{name}: {article(first)} {kind} crafted from {material}.",
        f"Built from {material}, the {name} is {article(first)} {kind}.",
    )[style % 3]
    colour = (
        f"It comes in {shade} {color}.",
        f"Colour: {shade} {color}.",
        f"Available in a {shade} {color} finish.",
    )[style // 3 % 3]
    extra = (f"It is also {second}.", f"Designed to be {second}.", f"Also {second}.")[
        style // 9 % 3
    ]
    score = (
        f"Rated {rating:.1f} out of 5 by {reviews} customers.",
        f"Average rating {rating:.1f}/5 from {reviews} reviews.",
    )[style // 27 % 2]
    money = (f"Priced at ${price}.", f"Sells for ${price}.")[style // 54 % 2]
    middle = [colour, spec, extra, money]
    if style % 2:
        middle.reverse()
    return " ".join([intro, *middle, score, filler])


def build(rng: np.random.Generator, nodes: int | None = None) -> Domain:
    """Generate the product catalogue with about `nodes` nodes (default :data:`DEFAULT_NODES`)."""
    total = DEFAULT_NODES if nodes is None else nodes
    if total < MIN_NODES:
        raise GraphError(f"products needs --nodes of at least {MIN_NODES}, got {total}")
    departments, categories = _departments()
    colors = list(catalog.COLORS)
    n_brands = max(12, total // 25)
    n_products = total - n_brands - len(categories) - len(colors)
    builder = GraphBuilder()

    brand_names = names.unique_names(rng, n_brands, _brand_names, builder.taken_names)
    brand_home = rng.integers(0, len(departments), size=n_brands)
    founded = rng.integers(1950, 2022, size=n_brands)
    brand_kind = choose(rng, catalog.BRAND_KINDS, n_brands)
    places = names.place_names(rng, n_brands)
    brand_text = [
        f"{n} is {article(k)} brand founded in {y} in {p}, "
        f"known for {departments[h].lower()} goods."
        for n, k, y, p, h in zip(brand_names, brand_kind, founded, places, brand_home, strict=True)
    ]
    brands = builder.add_nodes("brand", "brand", brand_names, brand_text)
    category_text = [
        f"{c} is a category of the {departments[d]} department: every {k} in the catalogue."
        for d, c, k in categories
    ]
    category_nodes = builder.add_nodes(
        "category", "cat", [c for _, c, _ in categories], category_text
    )
    color_text = [
        f"{c.capitalize()} is a colour family with {', '.join(s)} shades."
        for c, s in catalog.COLORS.items()
    ]
    color_nodes = builder.add_nodes("color", "color", [c.capitalize() for c in colors], color_text)
    builder.taken_names.update(c.lower() for c in colors)

    attrs = _product_attributes(rng, n_products, categories)
    kinds = [categories[c][2] for c in attrs["category"]]
    taken_lines = {n.lower() for n in brand_names}
    product_names = names.unique_names(
        rng, n_products, lambda r, k: _product_names(r, k, taken_lines), builder.taken_names
    )
    product_names = [f"{n} {kind.title()}" for n, kind in zip(product_names, kinds, strict=True)]
    texts = _product_texts(rng, attrs, product_names, kinds, colors)
    products = builder.add_nodes("product", "prod", product_names, texts)

    _product_edges(rng, builder, products, attrs, brands, brand_home, category_nodes, color_nodes)
    graph = builder.finish(candidate_types=("product",))
    return Domain(
        name="products",
        graph=graph,
        traits=_traits(graph, products, attrs, colors),
        text_only=(products_questions.text_only(graph, products, attrs, categories, colors),),
        one_hop=products_questions.ONE_HOP,
        two_hop=products_questions.TWO_HOP,
        multi=products_questions.MULTI,
    )


def _brand_names(rng: np.random.Generator, n: int) -> list[str]:
    base = names.coined(rng, n)
    suffix = choose(rng, ("Co.", "Labs", "Goods", "Works", "Supply", "Outfitters"), n)
    plain = rng.random(n) < 0.6
    return [b if p else f"{b} {s}" for b, s, p in zip(base, suffix, plain, strict=True)]


def _product_names(rng: np.random.Generator, n: int, avoid: set[str]) -> list[str]:
    lines = names.coined(rng, n, min_syllables=2, max_syllables=2)
    spare = names.coined(rng, n, min_syllables=3, max_syllables=3)
    series = choose(rng, catalog.SERIES, n)
    letters = rng.integers(0, 26, size=n)
    digits = rng.integers(1, 100, size=n)
    return [
        f"{s if line.lower() in avoid else line} {se} {chr(65 + int(le))}{d}"
        for line, s, se, le, d in zip(lines, spare, series, letters, digits, strict=True)
    ]


def _product_attributes(
    rng: np.random.Generator, n: int, categories: list[tuple[int, str, str]]
) -> dict[str, np.ndarray]:
    specs = list(catalog.DEPARTMENTS.values())
    category = sampling.draw_weighted(rng, sampling.popularity(rng, len(categories), shape=2.5), n)
    department = np.asarray([categories[c][0] for c in category])
    low = np.asarray([specs[d][1][0] for d in department])
    high = np.asarray([specs[d][1][1] for d in department])
    first = rng.integers(0, 6, size=n)
    second = (first + rng.integers(1, 6, size=n)) % 6
    keys = list(catalog.FEATURES)
    feature_of = np.asarray([[keys.index(f) for f in spec[3]] for spec in specs])
    return {
        "category": category,
        "department": department,
        "color": rng.integers(0, len(catalog.COLORS), size=n),
        "shade": rng.integers(0, 3, size=n),
        "material": rng.integers(0, 1 << 30, size=n)
        % np.asarray([len(specs[d][2]) for d in department]),
        "feature1": feature_of[department, first],  # index into catalog.FEATURES
        "feature2": feature_of[department, second],
        "spec": rng.integers(low, high + 1),
        "price_cents": np.maximum(np.rint(rng.lognormal(3.6, 0.7, size=n)), 5).astype(np.int64)
        * 100
        - 1,
        "rating": rng.integers(28, 51, size=n),
        "reviews": np.rint(rng.lognormal(4.0, 1.2, size=n)).astype(np.int64) + 1,
    }


def _product_texts(
    rng: np.random.Generator,
    attrs: dict[str, np.ndarray],
    product_names: list[str],
    kinds: list[str],
    colors: list[str],
) -> list[str]:
    specs = list(catalog.DEPARTMENTS.values())
    n = len(product_names)
    style = rng.integers(0, 108, size=n)
    spec_style = rng.integers(0, 3, size=n)
    fillers = choose(rng, catalog.FILLERS, n)
    feature_words = [word for word, _ in catalog.FEATURES.values()]
    out = []
    for i in range(n):
        d = int(attrs["department"][i])
        unit, _, materials, _, _ = specs[d]
        color = colors[int(attrs["color"][i])]
        feats = [feature_words[int(attrs[k][i])] for k in ("feature1", "feature2")]
        spec = catalog.UNITS[unit][0][int(spec_style[i])].format(v=int(attrs["spec"][i]))
        out.append(
            _product_text(
                product_names[i],
                kinds[i],
                materials[int(attrs["material"][i])],
                catalog.COLORS[color][int(attrs["shade"][i])],
                color,
                feats,
                spec,
                f"{attrs['price_cents'][i] / 100:.2f}",
                attrs["rating"][i] / 10,
                int(attrs["reviews"][i]),
                fillers[i],
                int(style[i]),
            )
        )
    return out


def _product_edges(
    rng: np.random.Generator,
    builder: GraphBuilder,
    products: np.ndarray,
    attrs: dict[str, np.ndarray],
    brands: np.ndarray,
    brand_home: np.ndarray,
    category_nodes: np.ndarray,
    color_nodes: np.ndarray,
) -> None:
    n = products.size
    brand_weight = sampling.popularity(rng, brands.size)
    home = sampling.draw_in_groups(rng, brand_home, brand_weight, attrs["department"])
    anywhere = sampling.draw_weighted(rng, brand_weight, n)
    stray = (home < 0) | (rng.random(n) < 0.15)
    builder.add_edges("has_brand", products, brands[np.where(stray, anywhere, home)])
    builder.add_edges("has_category", products, category_nodes[attrs["category"]])
    builder.add_edges("has_color", products, color_nodes[attrs["color"]])
    weight = sampling.popularity(rng, n)
    for relation, mean, same in (("also_buy", 2.5, 0.35), ("also_view", 3.0, 0.7)):
        counts = sampling.fan_out(rng, n, mean=mean, low=1, high=15)
        src, dst = sampling.grouped(
            rng,
            products,
            attrs["category"],
            products,
            attrs["category"],
            counts,
            same_group=same,
            target_weights=weight,
        )
        near = sampling.fan_out(rng, n, mean=1.0, low=0, high=6)
        src2, dst2 = sampling.grouped(
            rng,
            products,
            attrs["department"],
            products,
            attrs["department"],
            near,
            same_group=0.9,
            target_weights=weight,
        )
        builder.add_edges(
            relation, np.concatenate([src, src2]), np.concatenate([dst, dst2]), symmetric=True
        )


def _traits(
    graph: SynthGraph, products: np.ndarray, attrs: dict[str, np.ndarray], colors: list[str]
) -> dict[str, Trait]:
    traits: dict[str, Trait] = {}
    for code, (key, (word, _)) in enumerate(catalog.FEATURES.items()):
        has = np.zeros(graph.num_nodes, dtype=bool)
        has[products[(attrs["feature1"] == code) | (attrs["feature2"] == code)]] = True
        traits[key] = Trait(key, has, (word,), (f"that are {word}",), (word,))
    for code, color in enumerate(colors):
        has = np.zeros(graph.num_nodes, dtype=bool)
        has[products[attrs["color"] == code]] = True
        traits[color] = Trait(
            color, has, (color,), (f"in {color}", f"that come in {color}"), (color,)
        )
    return traits
