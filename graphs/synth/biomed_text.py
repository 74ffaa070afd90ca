"""Node text and textual traits of the biomedical domain, rendered from node attributes."""

from __future__ import annotations

from graphs.synth import clinical
from graphs.synth.phrasing import article

Phrases = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]  # adj, rel, pred

GENE_KEYS = tuple(keyword for keyword, _ in clinical.GENE_CLASSES.values())
DRUG_STATUS = ("approved", "investigational")
RARITY = ("common", "rare")

TRAIT_SOURCES: tuple[tuple[str, str, tuple[str, ...], tuple[Phrases, ...]], ...] = (
    (
        "gene",
        "cls",
        GENE_KEYS,
        tuple(
            ((name,), (f"that encode {phrase}",), (f"{name} genes",))
            for name, (_, phrase) in clinical.GENE_CLASSES.items()
        ),
    ),
    (
        "drug",
        "route",
        clinical.ROUTES,
        tuple(((f"{r} administered",), (f"given {r}",), (f"given {r}",)) for r in clinical.ROUTES),
    ),
    (
        "drug",
        "status",
        DRUG_STATUS,
        (
            (("approved",), ("that are approved",), ("approved",)),
            (("investigational",), ("that are still investigational",), ("investigational",)),
        ),
    ),
    (
        "disease",
        "inherit",
        clinical.INHERITANCE_KEYS,
        tuple(
            ((i,), (f"with {i} inheritance",), (f"inherited in {article(i)} way",))
            for i in clinical.INHERITANCE
        ),
    ),
    (
        "disease",
        "onset",
        clinical.ONSETS,
        tuple(
            ((f"{o}-onset",), (f"that begin in {o}",), (f"starting in {o}",))
            for o in clinical.ONSETS
        ),
    ),
    (
        "disease",
        "rare",
        RARITY,
        (
            (("common",), ("that are common",), ("common",)),
            (("rare",), ("that are rare",), ("rare",)),
        ),
    ),
    (
        "phenotype",
        "trait",
        clinical.PHENO_TRAITS,
        tuple(((t,), (f"that are {t}",), (t,)) for t in clinical.PHENO_TRAITS),
    ),
)
DISEASE_TRAITS = clinical.INHERITANCE_KEYS + clinical.ONSETS + RARITY
DRUG_TRAITS = clinical.ROUTES + DRUG_STATUS


def describe(node_type: str, name: str, a: dict[str, int], style: int) -> str:
    """Node text of one biomedical node from its attributes, in one of two styles."""
    if node_type == "gene":
        chrom, cls = (
            clinical.CHROMOSOMES[a["chrom"]],
            list(clinical.GENE_CLASSES.values())[a["cls"]][1],
        )
        return (
            f"{name} is a protein-coding gene on chromosome {chrom}. "
            f"It encodes {cls} of {a['number']} amino acids.",
            f"{name} encodes {cls} ({a['number']} amino acids) and maps to chromosome {chrom}.",
        )[style]
    if node_type == "drug":
        cls, route, hours = (
            list(clinical.DRUG_CLASSES)[a["cls"]],
            clinical.ROUTES[a["route"]],
            a["number"] % 72 + 1,
        )
        status = (
            f"It was approved in {a['year']}.",
            f"It is investigational, in phase {2 + a['year'] % 2} trials.",
        )[a["status"]]
        return (
            f"{name} is {article(cls)} given {route}. {status} "
            f"Its half-life is about {hours} hours.",
            f"{name}, {article(cls)}, is administered {route}. {status} "
            f"Half-life: roughly {hours} hours.",
        )[style]
    if node_type == "disease":
        inherit, system = clinical.INHERITANCE[a["inherit"]], clinical.SYSTEMS[a["system"]]
        onset, rarity, prevalence = (
            clinical.ONSETS[a["onset"]],
            RARITY[a["rare"]],
            a["number"] % 500 + 1,
        )
        return (
            f"{name} is a {rarity} {inherit} disorder of the {system} system that usually begins "
            f"in {onset}. It affects about {prevalence} in 100,000 people.",
            f"{name}: a {rarity}, {inherit} condition of the {system} system, with onset in "
            f"{onset}. Prevalence is roughly {prevalence} per 100,000.",
        )[style]
    if node_type == "phenotype":
        trait, share = clinical.PHENO_TRAITS[a["trait"]], a["share"] + 5
        return (
            f"{name} is a clinical finding that is {trait}, "
            f"reported in about {share}% of patients.",
            f"{name}: {article(trait)} clinical feature "
            f"seen in roughly {share}% of affected individuals.",
        )[style]
    kind = clinical.PATHWAY_KINDS[a["kind"]]
    return f"The {name} is a {kind} pathway with about {a['number'] % 200 + 5} annotated reactions."
