"""STaRK importer throughput on a generated SKB in STaRK's processed format.

Writes a MAG-, prime- or amazon-shaped `processed/` directory (node_info.pkl, *.pt, type dicts)
with N nodes and E edges, then times, per run: reading the files, building the node/edge tables
(document rendering), and build_snapshot. Reports the median and p95 of each phase over
--repeat runs, and the rendering rate in nodes per second.

    .venv/bin/python -m benchmarks.speed.stark_import --dataset mag --nodes 200000 --edges 1000000
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.importers.stark import CANDIDATE_TYPES, stark_tables
from graphs.importers.stark_files import MAG_NODE_TYPES, load_stark_files
from graphs.importers.stark_text import StarkTextConfig

WORDS = np.array(
    [
        "graph",
        "retrieval",
        "agent",
        "protein",
        "gene",
        "drug",
        "paper",
        "shoe",
        "mug",
        "trail",
        "light",
    ]
)


def _sentence(rng: np.random.Generator, n: int) -> str:
    return " ".join(WORDS[rng.integers(0, len(WORDS), n)].tolist())


def _mag_node(rng: np.random.Generator, code: int) -> dict:
    if MAG_NODE_TYPES[code] == "paper":
        return {"type": "paper", "title": _sentence(rng, 8), "abstract": _sentence(rng, 120),
                "Date": "2020-01-01", "OriginalVenue": -1, "JournalDisplayName": "J",
                "ConferenceSeriesDisplayName": -1, "ConferenceInstancesDisplayName": -1,
                "mag_id": int(rng.integers(1_000_000_000))}  # fmt: skip
    return {"type": MAG_NODE_TYPES[code], "DisplayName": _sentence(rng, 2),
            "PaperCount": int(rng.integers(-1, 100)), "CitationCount": -1}  # fmt: skip


def _prime_node(rng: np.random.Generator, code: int) -> dict:
    details = {"summary": _sentence(rng, 60), "alias": ["a", "b"], "entrez_id": 1}
    return {"id": code, "type": "gene/protein" if code == 1 else "disease",
            "name": _sentence(rng, 2), "source": "NCBI", "details": details}  # fmt: skip


def _amazon_node(rng: np.random.Generator, code: int) -> dict:
    reviews = [{"summary": _sentence(rng, 4), "reviewText": _sentence(rng, 30), "vote": "2"}
               for _ in range(int(rng.integers(0, 30)))]  # fmt: skip
    return {"title": _sentence(rng, 6), "brand": "Acme", "description": [_sentence(rng, 40)],
            "feature": [_sentence(rng, 5)] * 3, "review": reviews, "qa": []}  # fmt: skip


def write_skb(directory: Path, dataset: str, nodes: int, edges: int, seed: int) -> None:
    """Write a random SKB of `dataset`'s shape in STaRK's processed format."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True)
    num_types = {"mag": 4, "prime": 2, "amazon": 1}[dataset]
    codes = rng.integers(0, num_types, nodes)
    make = {"mag": _mag_node, "prime": _prime_node, "amazon": _amazon_node}[dataset]
    node_info = {i: make(rng, int(code)) for i, code in enumerate(codes.tolist())}
    src = rng.zipf(1.5, edges) % nodes
    dst = rng.integers(0, nodes, edges)
    dst = np.where(dst == src, (dst + 1) % nodes, dst)
    pairs = np.unique(np.stack([src, dst]), axis=1)
    torch.save(torch.from_numpy(pairs.astype(np.int64)), directory / "edge_index.pt")
    torch.save(torch.from_numpy(rng.integers(0, 2, pairs.shape[1])), directory / "edge_types.pt")
    torch.save(torch.from_numpy(codes.astype(np.int64)), directory / "node_types.pt")
    dicts = {"node_info": node_info, "edge_type_dict": {0: "r0", 1: "r1"}}
    if dataset != "mag":
        dicts["node_type_dict"] = {0: "disease", 1: "gene/protein"} if dataset == "prime" else {
            0: "product"}  # fmt: skip
    for name, value in dicts.items():
        with (directory / f"{name}.pkl").open("wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)


def run_once(directory: Path, dataset: str, out: Path) -> dict[str, float]:
    """Time the three phases of one import."""
    started = time.perf_counter()
    files = load_stark_files(directory, dataset)
    loaded = time.perf_counter()
    nodes, edges = stark_tables(files, dataset, StarkTextConfig())
    tabled = time.perf_counter()
    build_snapshot(nodes, edges, out, name="bench", options=BuildOptions(overwrite=True),
                   candidate_types=CANDIDATE_TYPES.get(dataset, ()))  # fmt: skip
    built = time.perf_counter()
    return {"read": loaded - started, "tables": tabled - loaded, "build": built - tabled,
            "total": built - started}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("mag", "prime", "amazon"), default="mag")
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-stark-"))
    try:
        write_skb(work / "processed", args.dataset, args.nodes, args.edges, args.seed)
        runs = [run_once(work, args.dataset, work / "snap") for _ in range(args.repeat)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"dataset {args.dataset}: {args.nodes:,} nodes, ~{args.edges:,} edges, "
          f"{args.repeat} runs")  # fmt: skip
    for phase in ("read", "tables", "build", "total"):
        values = np.array([run[phase] for run in runs])
        print(f"  {phase:7s} median {np.median(values):7.2f} s   p95 "
              f"{np.percentile(values, 95):7.2f} s")  # fmt: skip
    rate = args.nodes / np.median([run["tables"] for run in runs])
    print(f"  node tables (rendering) {rate:,.0f} nodes/s")


if __name__ == "__main__":
    main()
