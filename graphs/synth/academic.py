"""The academic domain (like STaRK-MAG): papers, authors, institutions, fields of study."""

from __future__ import annotations

import numpy as np

from graphs.errors import GraphError
from graphs.synth import academic_questions, names, sampling, scholarly
from graphs.synth.model import GraphBuilder
from graphs.synth.phrasing import article, choose, series
from graphs.synth.recipes import Domain, Trait

DEFAULT_NODES = 6000
MIN_NODES = 400
TRAIT_KEYS = tuple(scholarly.TRAITS)


def build(rng: np.random.Generator, nodes: int | None = None) -> Domain:
    """Generate the academic graph with about `nodes` nodes (default :data:`DEFAULT_NODES`)."""
    total = DEFAULT_NODES if nodes is None else nodes
    if total < MIN_NODES:
        raise GraphError(f"academic needs --nodes of at least {MIN_NODES}, got {total}")
    fields = list(scholarly.FIELDS)
    n_institutions = max(10, total // 80)
    n_authors = int(total * 0.33)
    n_papers = total - len(fields) - n_institutions - n_authors
    builder = GraphBuilder()

    field_text = [
        f"{f} is a field of study covering {series(list(tasks))}."
        for f, tasks in scholarly.FIELDS.items()
    ]
    field_nodes = builder.add_nodes("field", "field", fields, field_text)
    builder.taken_names.update(f.lower() for f in fields)
    inst_names = names.unique_names(rng, n_institutions, _institution_names, builder.taken_names)
    institutions = builder.add_nodes(
        "institution", "inst", inst_names, _institution_texts(rng, inst_names)
    )
    author_names = names.unique_names(rng, n_authors, names.person_names, builder.taken_names)
    authors = builder.add_nodes("author", "author", author_names, _author_texts(rng, author_names))

    attrs = _paper_attributes(rng, n_papers, fields)
    titles = names.unique_names_for(
        rng, n_papers, lambda r, which: _titles(r, attrs, which), builder.taken_names
    )
    papers = builder.add_nodes("paper", "paper", titles, _abstracts(rng, titles, attrs))

    _edges(rng, builder, papers, authors, institutions, field_nodes, attrs)
    graph = builder.finish(candidate_types=("paper",))
    traits = {}
    for bit, key in enumerate(TRAIT_KEYS):
        mask = np.zeros(graph.num_nodes, dtype=bool)
        mask[papers] = (attrs["traits"] >> bit) & 1 == 1
        _, adj, rel, pred = scholarly.TRAITS[key]
        traits[key] = Trait(key, mask, (adj,), (rel,), (pred,))
    return Domain(
        name="academic",
        graph=graph,
        traits=traits,
        text_only=(academic_questions.text_only(graph, papers, attrs),),
        one_hop=academic_questions.ONE_HOP,
        two_hop=academic_questions.TWO_HOP,
        multi=academic_questions.MULTI,
    )


def _institution_names(rng: np.random.Generator, n: int) -> list[str]:
    places = names.place_names(rng, n)
    people = names.surnames(rng, n)
    form = rng.integers(0, 5, size=n)
    return [
        (
            f"University of {p}",
            f"{p} Institute of Technology",
            f"{p} State University",
            f"{s} College",
            f"{p} Polytechnic",
        )[int(k)]
        for p, s, k in zip(places, people, form, strict=True)
    ]


def _institution_texts(rng: np.random.Generator, inst_names: list[str]) -> list[str]:
    n = len(inst_names)
    kind = choose(rng, ("public", "private"), n)
    founded = rng.integers(1820, 2005, size=n)
    students = rng.integers(2, 60, size=n) * 1000
    return [
        f"{name} is a {k} research institution founded in {y}, with about {s} students."
        for name, k, y, s in zip(inst_names, kind, founded, students, strict=True)
    ]


def _author_texts(rng: np.random.Generator, author_names: list[str]) -> list[str]:
    n = len(author_names)
    since = rng.integers(1985, 2021, size=n)
    h_index = np.rint(rng.lognormal(2.3, 0.6, size=n)).astype(int)
    return [
        f"{name} is a researcher publishing since {y}, with an h-index of {h}."
        for name, y, h in zip(author_names, since, h_index, strict=True)
    ]


def _paper_attributes(rng: np.random.Generator, n: int, fields: list[str]) -> dict[str, np.ndarray]:
    field = sampling.draw_weighted(rng, sampling.popularity(rng, len(fields), shape=3.0), n)
    n_tasks = np.asarray([len(scholarly.FIELDS[f]) for f in fields])
    bits = rng.integers(0, len(TRAIT_KEYS), size=(n, 2))
    traits = (1 << bits[:, 0]) | np.where(rng.random(n) < 0.5, 1 << bits[:, 1], 0)
    return {
        "field": field,
        "task": rng.integers(0, 1 << 30, size=n) % n_tasks[field],
        "method": rng.integers(0, len(scholarly.METHODS), size=n),
        "year": np.clip(np.rint(2024 - rng.exponential(7.0, size=n)), 1990, 2024).astype(np.int64),
        "venue": rng.integers(0, len(scholarly.VENUES), size=n),
        "dataset": rng.integers(0, 5, size=n),
        "metric": rng.integers(0, len(scholarly.METRICS), size=n),
        "score": rng.integers(500, 1000, size=n),
        "traits": traits.astype(np.int64),
    }


def _title_case(phrase: str) -> str:
    small = {"for", "with", "of", "in", "on", "from", "the", "and", "to", "through"}
    return " ".join(w if w in small else w[:1].upper() + w[1:] for w in phrase.split())


TASKS = scholarly.TASKS
TITLE_TASKS = tuple(tuple(_title_case(t) for t in tasks) for tasks in TASKS)
TITLE_METHODS = tuple(_title_case(m) for m, _ in scholarly.METHODS)


def _titles(rng: np.random.Generator, attrs: dict[str, np.ndarray], which: np.ndarray) -> list[str]:
    k = which.size
    coined = names.coined(rng, k)
    template = rng.integers(0, len(scholarly.TITLES), size=k)
    adjective = rng.integers(0, len(scholarly.ADJECTIVES), size=k)
    prop = rng.integers(0, len(scholarly.PROPERTIES), size=k)
    source = rng.integers(0, len(scholarly.SOURCES), size=k)
    fields, tasks, methods = (attrs[c][which].tolist() for c in ("field", "task", "method"))
    return [
        scholarly.TITLES[template[j]].format(
            adj=scholarly.ADJECTIVES[adjective[j]],
            method=TITLE_METHODS[methods[j]],
            task=TITLE_TASKS[fields[j]][tasks[j]],
            coined=coined[j],
            prop=scholarly.PROPERTIES[prop[j]],
            source=scholarly.SOURCES[source[j]],
        )
        for j in range(k)
    ]


def _abstracts(
    rng: np.random.Generator, titles: list[str], attrs: dict[str, np.ndarray]
) -> list[str]:
    out = []
    style = rng.integers(0, 4, size=len(titles))
    for i, title in enumerate(titles):
        task, method = scholarly.task_of(attrs, i), scholarly.METHODS[int(attrs["method"][i])][0]
        metric = scholarly.METRICS[int(attrs["metric"][i])]
        score = f"{attrs['score'][i] / 10:.1f}"
        opening = (
            f"{title}. We study {task} and propose an approach based on {method}.",
            f"{title}. This paper revisits {task} using {method}.",
            f"{title}. We present a new take on {task} built on {method}.",
            f"{title}. Existing work on {task} struggles; we address it with {method}.",
        )[int(style[i])]
        results = (
            f"Experiments on {scholarly.dataset_name(attrs, i)} show {article(metric)} of {score}.",
            f"On {scholarly.dataset_name(attrs, i)} it reaches {score} {metric}.",
        )[int(style[i]) % 2]
        traits = [
            scholarly.TRAITS[k][0] for b, k in enumerate(TRAIT_KEYS) if attrs["traits"][i] >> b & 1
        ]
        venue = scholarly.VENUES[int(attrs["venue"][i])]
        published = f"Published in {attrs['year'][i]} at the {venue}."
        out.append(" ".join([opening, results, *traits, published]))
    return out


def _edges(
    rng: np.random.Generator,
    builder: GraphBuilder,
    papers: np.ndarray,
    authors: np.ndarray,
    institutions: np.ndarray,
    field_nodes: np.ndarray,
    attrs: dict[str, np.ndarray],
) -> None:
    n_fields = field_nodes.size
    author_field = rng.integers(0, n_fields, size=authors.size)
    productivity = sampling.popularity(rng, authors.size, shape=1.6)
    counts = sampling.fan_out(rng, papers.size, mean=2.6, low=1, high=8)
    writers, written = sampling.grouped(
        rng,
        papers,
        attrs["field"],
        authors,
        author_field,
        counts,
        same_group=0.85,
        target_weights=productivity,
    )
    builder.add_edges("writes", written, writers)
    weights = sampling.popularity(rng, institutions.size, shape=1.5)
    src, dst = sampling.bipartite(
        rng, authors, institutions, 1 + (rng.random(authors.size) < 0.1), weights
    )
    builder.add_edges("affiliated_with", src, dst)
    second = rng.integers(0, n_fields, size=papers.size)
    has_second = rng.random(papers.size) < 0.3
    builder.add_edges(
        "has_topic",
        np.concatenate([papers, papers[has_second]]),
        field_nodes[np.concatenate([attrs["field"], second[has_second]])],
    )
    citation_weight = sampling.popularity(rng, papers.size, shape=1.2)
    counts = sampling.fan_out(rng, papers.size, mean=9.0, low=1, high=40)
    citing, cited = sampling.grouped(
        rng,
        papers,
        attrs["field"],
        papers,
        attrs["field"],
        counts,
        same_group=0.75,
        target_weights=citation_weight,
    )
    position = np.empty(int(papers.max()) + 1, dtype=np.int64)
    position[papers] = np.arange(papers.size)
    older = attrs["year"][position[cited]] <= attrs["year"][position[citing]]
    builder.add_edges("cites", citing[older], cited[older])
