"""Node descriptions, traits, question recipes and description facets of the biomedical domain."""

from __future__ import annotations

import numpy as np

from graphs.synth import biomed_text, clinical
from graphs.synth.model import SynthGraph
from graphs.synth.phrasing import article
from graphs.synth.recipes import Facet, Multi, OneHop, Step, TextOnly, TwoHop

GENE_KEYS = biomed_text.GENE_KEYS
DRUG_STATUS = biomed_text.DRUG_STATUS
RARITY = biomed_text.RARITY
DISEASE_TRAITS = biomed_text.DISEASE_TRAITS
DRUG_TRAITS = biomed_text.DRUG_TRAITS

ASSOCIATED_GENES = Step("associated_with", "in", "gene")
GENE_DISEASES = Step("associated_with", "out", "disease")
TREATS = Step("indication", "in", "drug")
TARGETING = Step("targets", "in", "drug")
TARGETS = Step("targets", "out", "gene")
SYMPTOMS = Step("phenotype_of", "in", "phenotype")
SIDE_EFFECTS = Step("side_effect", "out", "phenotype")
PATHWAY_GENES = Step("participates_in", "in", "gene")

ONE_HOP = (
    OneHop(
        "disease",
        TREATS,
        DRUG_TRAITS,
        (
            "Which {adj} drugs are indicated for {anchor}?",
            "What medications {rel} are used to treat {anchor}?",
            "Among the treatments for {anchor}, which are {pred}?",
        ),
    ),
    OneHop(
        "disease",
        ASSOCIATED_GENES,
        GENE_KEYS,
        (
            "Which {adj} genes are associated with {anchor}?",
            "List genes {rel} that are linked to {anchor}.",
            "Among genes implicated in {anchor}, which are {pred}?",
        ),
    ),
    OneHop(
        "disease",
        SYMPTOMS,
        clinical.PHENO_TRAITS,
        (
            "Which {adj} symptoms are seen in {anchor}?",
            "What phenotypes of {anchor} are {pred}?",
        ),
    ),
    OneHop(
        "pathway",
        PATHWAY_GENES,
        GENE_KEYS,
        (
            "Which {adj} genes take part in the {anchor}?",
            "Find genes {rel} that participate in the {anchor}.",
        ),
    ),
    OneHop(
        "gene",
        GENE_DISEASES,
        DISEASE_TRAITS,
        (
            "Which {adj} diseases is {anchor} associated with?",
            "List diseases {rel} linked to the gene {anchor}.",
            "{anchor} is implicated in several conditions; which of them are {pred}?",
        ),
    ),
)

TWO_HOP = (
    TwoHop(
        "disease",
        ASSOCIATED_GENES,
        TARGETING,
        (
            "Which drugs target genes associated with {anchor}?",
            "Find medications acting on genes that are linked to {anchor}.",
            "What compounds hit the genes implicated in {anchor}?",
        ),
    ),
    TwoHop(
        "drug",
        TARGETS,
        GENE_DISEASES,
        (
            "Which diseases are linked to the genes that {anchor} targets?",
            "{anchor} acts on some genes; what diseases are those genes associated with?",
        ),
    ),
    TwoHop(
        "pathway",
        PATHWAY_GENES,
        GENE_DISEASES,
        (
            "Which diseases involve genes from the {anchor}?",
            "List diseases associated with any gene in the {anchor}.",
        ),
    ),
    TwoHop(
        "disease",
        TREATS,
        SIDE_EFFECTS,
        (
            "What side effects can the drugs used for {anchor} cause?",
            "Patients treated for {anchor} may get which side effects from their medication?",
        ),
    ),
)

MULTI = (
    Multi(
        "drug",
        SIDE_EFFECTS,
        (
            "List the side effects of {anchor}.",
            "What adverse effects does {anchor} have?",
        ),
    ),
    Multi(
        "disease",
        SYMPTOMS,
        (
            "What are the symptoms of {anchor}?",
            "Which phenotypes are typical of {anchor}?",
        ),
    ),
    Multi(
        "pathway",
        PATHWAY_GENES,
        (
            "Which genes take part in the {anchor}?",
            "List every gene in the {anchor}.",
        ),
    ),
    Multi(
        "gene",
        Step("expressed_in", "out", "anatomy"),
        (
            "Where in the body is {anchor} expressed?",
            "In which tissues is {anchor} expressed?",
        ),
    ),
    Multi(
        "drug",
        Step("interacts_with", "both", "drug"),
        (
            "Which drugs interact with {anchor}?",
            "What should not be combined with {anchor}?",
        ),
    ),
)


_STATUS_CLAUSES = [
    (f"approved in {1900 + c}", f"that got approval in {1900 + c}")
    if c < 200
    else (f"still investigational, in phase {c - 200} trials",)
    if c >= 202
    else ()
    for c in range(204)
]


def _status_codes(drug: dict[str, np.ndarray]) -> np.ndarray:
    """Approval year (years since 1900) or, for investigational drugs, 200 + trial phase."""
    return np.where(drug["status"] == 0, drug["year"] - 1900, 200 + 2 + drug["year"] % 2)


def text_only(
    graph: SynthGraph, made: dict[str, np.ndarray], attrs: dict[str, dict[str, np.ndarray]]
) -> tuple[TextOnly, ...]:
    """Description recipes for drugs, genes and diseases."""
    n = graph.num_nodes
    drug, gene, disease = attrs["drug"], attrs["gene"], attrs["disease"]
    zeros = {t: np.zeros(made[t].size, dtype=np.int64) for t in made}
    drug_facets = (
        Facet.spread(
            n,
            made["drug"],
            drug["cls"],
            [(f"that is {article(c)}", f"from the {c} class") for c in clinical.DRUG_CLASSES],
        ),
        Facet.spread(
            n,
            made["drug"],
            drug["route"],
            [(f"given {r}", f"administered {r}") for r in clinical.ROUTES],
        ),
        Facet.spread(n, made["drug"], _status_codes(drug), _STATUS_CLAUSES),
        Facet.spread(
            n,
            made["drug"],
            drug["number"] % 72,
            [
                (
                    f"with a half-life of about {h + 1} hours",
                    f"lasting roughly {h + 1} hours in the body",
                )
                for h in range(72)
            ],
        ),
    )
    gene_facets = (
        Facet.spread(
            n,
            made["gene"],
            gene["cls"],
            [(f"encoding {p}", f"whose product is {p}") for _, p in clinical.GENE_CLASSES.values()],
        ),
        Facet.spread(
            n,
            made["gene"],
            gene["chrom"],
            [(f"on chromosome {c}", f"located on chromosome {c}") for c in clinical.CHROMOSOMES],
        ),
        Facet.spread(
            n,
            made["gene"],
            gene["number"],
            [
                (f"whose protein has {k} amino acids", f"coding for a {k}-residue protein")
                for k in range(3000)
            ],
        ),
    )
    disease_facets = (
        Facet.spread(
            n,
            made["disease"],
            disease["inherit"],
            [(f"with {i} inheritance",) for i in clinical.INHERITANCE],
        ),
        Facet.spread(
            n,
            made["disease"],
            disease["system"],
            [(f"affecting the {s} system", f"of the {s} system") for s in clinical.SYSTEMS],
        ),
        Facet.spread(
            n,
            made["disease"],
            disease["onset"],
            [(f"that starts in {o}", f"with onset in {o}") for o in clinical.ONSETS],
        ),
        Facet.spread(n, made["disease"], disease["rare"], [("that is common",), ("that is rare",)]),
        Facet.spread(
            n,
            made["disease"],
            disease["number"] % 500,
            [
                (
                    f"affecting about {p + 1} in 100,000 people",
                    f"with a prevalence near {p + 1} per 100,000",
                )
                for p in range(500)
            ],
        ),
    )
    return (
        TextOnly(
            "drug",
            Facet.spread(
                n, made["drug"], zeros["drug"], [("a drug", "a medication", "a medicine")]
            ),
            drug_facets,
            (
                "I'm looking for {head} {details}.",
                "Can you name {head} {details}?",
                "Name {head} {details}.",
            ),
        ),
        TextOnly(
            "gene",
            Facet.spread(n, made["gene"], zeros["gene"], [("a gene",)]),
            gene_facets,
            (
                "I'm looking for {head} {details}.",
                "Find {head} {details}.",
                "Name {head} {details}.",
            ),
        ),
        TextOnly(
            "disease",
            Facet.spread(
                n, made["disease"], zeros["disease"], [("a disease", "a disorder", "a condition")]
            ),
            disease_facets,
            (
                "Name {head} {details}.",
                "What is {head} {details} called?",
                "I'm trying to identify {head} {details}.",
            ),
        ),
    )
