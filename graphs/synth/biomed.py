"""The biomedical domain (like STaRK-PrimeKG): diseases, genes, drugs, phenotypes, pathways."""

from __future__ import annotations

import functools

import numpy as np

from graphs.errors import GraphError
from graphs.synth import biomed_questions as bq
from graphs.synth import biomed_text, clinical, names, sampling
from graphs.synth.model import GraphBuilder
from graphs.synth.phrasing import choose
from graphs.synth.recipes import Domain, Trait

DEFAULT_NODES = 6000
MIN_NODES = 400
SHARES = {"gene": 0.38, "disease": 0.16, "drug": 0.16, "phenotype": 0.2, "pathway": 0.1}


def build(rng: np.random.Generator, nodes: int | None = None) -> Domain:
    """Generate the biomedical graph with about `nodes` nodes (default :data:`DEFAULT_NODES`)."""
    total = DEFAULT_NODES if nodes is None else nodes
    if total < MIN_NODES:
        raise GraphError(f"biomed needs --nodes of at least {MIN_NODES}, got {total}")
    size = {t: int((total - len(clinical.ANATOMY)) * share) for t, share in SHARES.items()}
    builder = GraphBuilder()
    anatomy = builder.add_nodes(
        "anatomy",
        "anat",
        list(clinical.ANATOMY),
        [f"The {a} is part of the {s} system." for a, s in clinical.ANATOMY.items()],
    )
    builder.taken_names.update(clinical.ANATOMY)
    attrs = {t: _attributes(rng, t, size[t]) for t in SHARES}
    made = {}
    for node_type, prefix in (
        ("gene", "gene"),
        ("disease", "dis"),
        ("drug", "drug"),
        ("phenotype", "pheno"),
        ("pathway", "path"),
    ):
        a = attrs[node_type]
        label = names.unique_names_for(
            rng,
            size[node_type],
            functools.partial(
                _names, node_type=node_type, attrs=a, span=max(60, size[node_type] // 8)
            ),
            builder.taken_names,
        )
        made[node_type] = builder.add_nodes(
            node_type, prefix, label, _texts(rng, node_type, label, a)
        )
    _edges(rng, builder, made, anatomy)
    graph = builder.finish(candidate_types=())
    traits = {}
    for node_type, column, keys, phrases in biomed_text.TRAIT_SOURCES:
        for code, key in enumerate(keys):
            mask = np.zeros(graph.num_nodes, dtype=bool)
            mask[made[node_type][attrs[node_type][column] == code]] = True
            traits[key] = Trait(key, mask, *phrases[code])
    return Domain(
        name="biomed",
        graph=graph,
        traits=traits,
        text_only=bq.text_only(graph, made, attrs),
        one_hop=bq.ONE_HOP,
        two_hop=bq.TWO_HOP,
        multi=bq.MULTI,
    )


def _attributes(rng: np.random.Generator, node_type: str, n: int) -> dict[str, np.ndarray]:
    draw = {
        "gene": {"cls": len(clinical.GENE_CLASSES), "chrom": len(clinical.CHROMOSOMES)},
        "drug": {"cls": len(clinical.DRUG_CLASSES), "route": len(clinical.ROUTES), "status": 2},
        "disease": {"inherit": 4, "system": len(clinical.SYSTEMS), "onset": 4, "rare": 2},
        "phenotype": {"trait": len(clinical.PHENO_TRAITS), "share": 90},
        "pathway": {"kind": 3, "process": len(clinical.PROCESSES)},
    }[node_type]
    out = {key: rng.integers(0, high, size=n) for key, high in draw.items()}
    out["number"] = rng.integers(1, 3000, size=n)
    out["year"] = rng.integers(1975, 2024, size=n)
    return out


def _names(
    rng: np.random.Generator,
    which: np.ndarray,
    *,
    node_type: str,
    attrs: dict[str, np.ndarray],
    span: int,
) -> list[str]:
    """Draw names for nodes `which` of one type; numbers in names run up to `span`."""
    k = which.size
    coined = names.coined(rng, k)
    nums = rng.integers(1, span, size=k)
    if node_type == "gene":
        roots = choose(rng, clinical.GENE_ROOTS, k)
        tails = choose(rng, ("", "", "A", "B", "L"), k)
        return [f"{r}{n}{t}" for r, n, t in zip(roots, nums, tails, strict=True)]
    if node_type == "drug":
        stems = list(clinical.DRUG_CLASSES.values())
        return [c + stems[int(attrs["cls"][i])] for c, i in zip(coined, which, strict=True)]
    if node_type == "disease":
        eponyms = names.surnames(rng, k)
        kinds = choose(rng, clinical.EPONYM_KINDS, k)
        parts = [
            choose(rng, v, k)
            for v in (clinical.DISEASE_ADJ, clinical.ORGAN_ADJ, clinical.CONDITIONS)
        ]
        # Never both "X fibrosis" and "X fibrosis type 2": one name would contain the other.
        form = rng.integers(0, 2, size=k)
        return [
            (f"{e} {kd}", f"{a.capitalize()} {o} {c} type {n}")[int(f)]
            for e, kd, a, o, c, n, f in zip(eponyms, kinds, *parts, nums, form, strict=True)
        ]
    if node_type == "phenotype":
        eponyms = names.coined(rng, k)
        parts = [
            choose(rng, v, k)
            for v in (clinical.PHENO_MODIFIERS, clinical.ORGAN_ADJ, clinical.FINDINGS)
        ]
        signs = choose(rng, clinical.SIGN_KINDS, k)
        sign = rng.random(k) < 0.3
        return [
            f"{e} {s}" if use else f"{m} {o} {f}"
            for e, s, m, o, f, use in zip(eponyms, signs, *parts, sign, strict=True)
        ]
    compounds = [c + e for c, e in zip(coined, choose(rng, clinical.COMPOUND_ENDS, k), strict=True)]
    out = []
    for i, word, compound, n in zip(which, coined, compounds, nums, strict=True):
        kind, process = int(attrs["kind"][i]), clinical.PROCESSES[int(attrs["process"][i])]
        out.append(
            (
                f"{word.upper()[:4]}{n} signaling pathway",
                f"Metabolism of {compound.lower()}",
                f"Regulation of {process} by {word.upper()[:4]}{n}",
            )[kind]
        )
    return out


def _texts(
    rng: np.random.Generator, node_type: str, label: list[str], attrs: dict[str, np.ndarray]
) -> list[str]:
    out = []
    for i, name in enumerate(label):
        a = {key: int(values[i]) for key, values in attrs.items()}
        out.append(biomed_text.describe(node_type, name, a, int(rng.integers(0, 2))))
    return out


def _edges(
    rng: np.random.Generator,
    builder: GraphBuilder,
    made: dict[str, np.ndarray],
    anatomy: np.ndarray,
) -> None:
    gene, disease, drug = made["gene"], made["disease"], made["drug"]
    phenotype, pathway = made["phenotype"], made["pathway"]
    gene_weight = sampling.popularity(rng, gene.size, shape=1.4)

    def link(
        relation: str,
        sources: np.ndarray,
        targets: np.ndarray,
        mean: float,
        low: int,
        high: int,
        weights: np.ndarray | None = None,
        *,
        symmetric: bool = False,
        reverse: bool = False,
    ) -> None:
        counts = sampling.fan_out(rng, sources.size, mean=mean, low=low, high=high)
        src, dst = sampling.bipartite(rng, sources, targets, counts, weights)
        if reverse:
            src, dst = dst, src
        builder.add_edges(relation, src, dst, symmetric=symmetric)

    link("associated_with", disease, gene, 6.0, 1, 30, gene_weight, reverse=True)
    link("interacts_with", gene, gene, 3.0, 1, 20, gene_weight, symmetric=True)
    link("participates_in", gene, pathway, 2.0, 1, 6, sampling.popularity(rng, pathway.size))
    link(
        "expressed_in", gene, anatomy, 3.0, 1, 8, sampling.popularity(rng, anatomy.size, shape=2.0)
    )
    link("targets", drug, gene, 2.5, 1, 8, gene_weight)
    link("indication", drug, disease, 1.8, 1, 6, sampling.popularity(rng, disease.size))
    link("contraindication", drug, disease, 1.2, 0, 5)
    link("side_effect", drug, phenotype, 6.0, 2, 20, sampling.popularity(rng, phenotype.size))
    link(
        "phenotype_of",
        disease,
        phenotype,
        6.0,
        2,
        20,
        sampling.popularity(rng, phenotype.size),
        reverse=True,
    )
    link("interacts_with", drug, drug, 2.0, 0, 10, symmetric=True)
    link("subtype_of", disease, disease, 0.3, 0, 2)
