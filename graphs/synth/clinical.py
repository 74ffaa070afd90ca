"""Word lists of the biomedical domain: gene, drug, disease, phenotype, pathway and body parts."""

from __future__ import annotations

from graphs.synth.vocab import entries, words

GENE_ROOTS = words(
    "KRT ZNF SLC TMX CDK MAPK FOXR SOXL PAXL HOXR TNFL COLQ MYOR NRX PLX ORAP VRK ABCG"
    " ATPB GPRL KCNR SCNL TRPM WDRL ANKR LRRC CCDC FBXL RNFQ USPL"
)
# protein class -> (trait keyword, phrase with article)
GENE_CLASSES: dict[str, tuple[str, str]] = {
    "kinase": ("kinase", "a kinase"),
    "transporter": ("transporter", "a transporter"),
    "receptor": ("receptor", "a receptor"),
    "phosphatase": ("phosphatase", "a phosphatase"),
    "protease": ("protease", "a protease"),
    "ligase": ("ligase", "a ligase"),
    "ion channel": ("channel", "an ion channel"),
    "transcription factor": ("transcription", "a transcription factor"),
}
CHROMOSOMES = (*[str(c) for c in range(1, 23)], "X")

# class -> name stem
DRUG_CLASSES: dict[str, str] = {
    "kinase inhibitor": "tinib",
    "monoclonal antibody": "mab",
    "ACE inhibitor": "pril",
    "statin": "vastatin",
    "beta blocker": "olol",
    "antiviral": "vir",
    "antibiotic": "cillin",
    "antifungal": "conazole",
    "proton pump inhibitor": "prazole",
    "anticoagulant": "xaban",
}
ROUTES = words("orally intravenously topically subcutaneously")

INHERITANCE = entries("autosomal dominant | autosomal recessive | X-linked | multifactorial")
INHERITANCE_KEYS = words("dominant recessive linked multifactorial")
SYSTEMS = words(
    "nervous cardiovascular respiratory digestive renal endocrine immune musculoskeletal"
    " integumentary reproductive"
)
ONSETS = words("infancy childhood adolescence adulthood")
DISEASE_ADJ = words("progressive hereditary juvenile familial idiopathic benign")
ORGAN_ADJ = words(
    "renal hepatic cardiac pulmonary retinal cerebellar pancreatic cutaneous skeletal neuromuscular"
)
CONDITIONS = words("fibrosis dysplasia dystrophy atrophy sclerosis neuropathy cystosis myopathy")
EPONYM_KINDS = words("syndrome disease")

PHENO_MODIFIERS = words("Recurrent Abnormal Elevated Chronic Mild Severe Bilateral Asymmetric")
FINDINGS = words(
    "cysts inflammation calcification hypoplasia pain hemorrhage lesions enlargement weakness"
    " scarring"
)
SIGN_KINDS = words("sign phenomenon reflex")
PHENO_TRAITS = words("progressive congenital episodic")

PATHWAY_KINDS = words("signaling metabolic regulatory")
PROCESSES = entries(
    "cell migration | apoptosis | autophagy | lipid storage | DNA repair | glucose uptake"
    " | angiogenesis | synaptic plasticity | mitochondrial fission | cilium assembly"
)
COMPOUND_ENDS = words("ose ine ate ol ide")

ANATOMY: dict[str, str] = {
    "liver": "digestive",
    "kidney cortex": "renal",
    "heart muscle": "cardiovascular",
    "lung": "respiratory",
    "skin": "integumentary",
    "cerebral cortex": "nervous",
    "cerebellum": "nervous",
    "retina": "nervous",
    "pancreas": "endocrine",
    "spleen": "immune",
    "thyroid gland": "endocrine",
    "adrenal gland": "endocrine",
    "bone marrow": "immune",
    "skeletal muscle": "musculoskeletal",
    "stomach": "digestive",
    "colon": "digestive",
    "small intestine": "digestive",
    "esophagus": "digestive",
    "bladder": "renal",
    "prostate": "reproductive",
    "ovary": "reproductive",
    "testis": "reproductive",
    "uterus": "reproductive",
    "placenta": "reproductive",
    "aorta": "cardiovascular",
    "hippocampus": "nervous",
    "spinal cord": "nervous",
    "lymph node": "immune",
    "thymus": "immune",
    "cartilage": "musculoskeletal",
    "bone": "musculoskeletal",
    "adipose tissue": "endocrine",
    "tongue": "digestive",
    "trachea": "respiratory",
    "bronchus": "respiratory",
    "cornea": "nervous",
    "hair follicle": "integumentary",
}
