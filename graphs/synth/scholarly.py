"""Word lists of the academic domain: fields and tasks, methods, venues, paper traits."""

from __future__ import annotations

import numpy as np

from graphs.synth.vocab import entries, words

FIELDS: dict[str, tuple[str, ...]] = {
    "Computer Vision": entries(
        "object detection | image segmentation | depth estimation | visual tracking"
    ),
    "Natural Language Processing": entries(
        "machine translation | question answering | text summarization | entity linking"
    ),
    "Robotics": entries("motion planning | grasp detection | legged locomotion | visual odometry"),
    "Computational Biology": entries(
        "protein structure prediction | gene regulatory inference | single-cell clustering"
    ),
    "Information Retrieval": entries("document ranking | query expansion | dense retrieval"),
    "Speech Processing": entries("speech recognition | speaker diarization | voice conversion"),
    "Databases": entries("query optimization | index tuning | transaction scheduling"),
    "Computer Networks": entries("congestion control | traffic classification | packet routing"),
    "Computer Security": entries("malware detection | intrusion detection | side-channel analysis"),
    "Recommender Systems": entries(
        "click-through prediction | session recommendation | cold-start recommendation"
    ),
    "Climate Informatics": entries(
        "precipitation nowcasting | sea ice forecasting | wildfire mapping"
    ),
    "Medical Imaging": entries("tumor segmentation | lesion detection | MRI reconstruction"),
    "Graph Mining": entries("link prediction | community detection | node classification"),
    "Operations Research": entries("vehicle routing | job-shop scheduling | facility location"),
    "Human-Computer Interaction": entries("gesture recognition | eye tracking | text entry"),
    "Quantum Computing": entries("circuit compilation | error mitigation | state tomography"),
}

METHODS: tuple[tuple[str, str], ...] = (
    ("graph neural networks", "GNNs"),
    ("contrastive learning", "contrastive pretraining"),
    ("diffusion models", "denoising diffusion"),
    ("sparse transformers", "sparse attention"),
    ("variational inference", "variational Bayes"),
    ("Bayesian optimization", "Bayesian search"),
    ("kernel methods", "kernel machines"),
    ("gradient boosting", "boosted trees"),
    ("spectral clustering", "spectral methods"),
    ("federated learning", "federated training"),
    ("knowledge distillation", "teacher-student training"),
    ("meta-learning", "learning to learn"),
    ("reinforcement learning", "RL"),
    ("mixture-of-experts", "expert mixtures"),
    ("neural ODEs", "ODE networks"),
    ("active learning", "active sampling"),
    ("curriculum learning", "curricula"),
    ("energy-based models", "EBMs"),
    ("normalizing flows", "flow models"),
    ("state-space models", "SSMs"),
    ("random projections", "sketching"),
    ("message passing", "message-passing networks"),
)

ADJECTIVES = words(
    "Sparse Hierarchical Adaptive Provable Continual Causal Structured Calibrated Few-Shot"
    " Zero-Shot Uncertainty-Aware Geometric Probabilistic Decentralized Compositional Streaming"
)
PROPERTIES = entries("Stability | Generalization | Sample Complexity | Limits | Calibration")
SOURCES = entries(
    "Weak Labels | Synthetic Data | Few Examples | Noisy Supervision | Unlabeled Streams"
)
TITLES = (
    "{adj} {method} for {task}",
    "{coined}: {adj} {method} for {task}",
    "Towards {adj} {task} with {method}",
    "On the {prop} of {method} in {task}",
    "Rethinking {task} through {method}",
    "{coined}: {method} Meets {task}",
    "Learning {task} from {source} with {method}",
)

VENUES = entries(
    "Conference on Neural Systems | Journal of Machine Perception | Symposium on Data Engineering"
    " | Transactions on Computational Intelligence | Workshop on Learning Theory"
    " | International Conference on Applied Learning | Journal of Scientific Computing Letters"
    " | Conference on Knowledge Systems | Annals of Computational Research"
    " | Symposium on Networked Systems | Journal of Biomedical Informatics Methods"
)
METRICS = words("accuracy F1 mAP BLEU NDCG AUC recall precision")
DATASET_SUFFIXES = words("Bench -1K Set QA -XL Corpus -2 Suite")

# trait keyword -> (abstract sentence, adjective, relative clause, predicate)
TRAITS: dict[str, tuple[str, str, str, str]] = {
    "reproducible": (
        "All experiments are reproducible with the released scripts.",
        "reproducible",
        "with reproducible experiments",
        "reproducible",
    ),
    "theoretical": (
        "We also give a theoretical analysis with convergence guarantees.",
        "theoretical",
        "with a theoretical analysis",
        "backed by theoretical analysis",
    ),
    "multimodal": (
        "The approach is multimodal, combining several input modalities.",
        "multimodal",
        "that are multimodal",
        "multimodal",
    ),
    "interpretable": (
        "The resulting models are interpretable by design.",
        "interpretable",
        "that produce interpretable models",
        "interpretable",
    ),
    "scalable": (
        "The method is scalable to millions of examples.",
        "scalable",
        "that are scalable to millions of examples",
        "scalable",
    ),
    "unsupervised": (
        "Training is fully unsupervised.",
        "unsupervised",
        "that train without labels (unsupervised)",
        "unsupervised",
    ),
    "privacy": (
        "The design is privacy-preserving.",
        "privacy-preserving",
        "that protect privacy",
        "privacy-preserving",
    ),
    "robust": (
        "The method stays robust under noise and distribution shift.",
        "robust",
        "that are robust to noise",
        "robust to noise",
    ),
    "efficient": (
        "The method is efficient, cutting compute roughly in half.",
        "efficient",
        "that are compute-efficient",
        "efficient",
    ),
}


TASKS = tuple(FIELDS.values())


def task_of(attrs: dict[str, np.ndarray], i: int) -> str:
    """The research task paper `i` addresses."""
    return TASKS[int(attrs["field"][i])][int(attrs["task"][i])]


def dataset_name(attrs: dict[str, np.ndarray], i: int) -> str:
    """The invented data set paper `i` reports on (five per task, fixed by the task's words)."""
    task = task_of(attrs, i)
    stem = "".join(word[:3].capitalize() for word in task.replace("-", " ").split())
    return stem + DATASET_SUFFIXES[int(attrs["dataset"][i])]
