"""A tiny product graph with a JSONL question set, shared by the evals tests (not a test file)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from graphs.build.memory import build_snapshot

COLORS = ("red", "blue", "green")
BRANDS = ("Acme", "Globex", "Initech")


def product_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for index in range(18):
        color = COLORS[index % 3]
        brand = BRANDS[(index // 3) % 3]
        kind = ("kettle", "lamp")[index % 2]
        rows.append(
            (
                f"p{index}",
                "product",
                f"{brand} {color} {kind} {index}",
                f"A {color} electric {kind} made by {brand}, model number {index}.",
            )
        )
    return rows


def build_tiny(root: Path) -> tuple[Path, Path]:
    """Write the snapshot at root/snap and its questions at root/snap/qa/test.jsonl."""
    nodes = product_rows()
    nodes += [
        (f"b{i}", "brand", name, f"{name} is a maker of home appliances.")
        for i, name in enumerate(BRANDS)
    ]
    nodes += [
        ("c0", "category", "Kitchen", "Kitchen appliances."),
        ("c1", "category", "Lighting", "Lamps and lights."),
    ]
    edges = [(f"p{i}", f"b{(i // 3) % 3}", "has_brand") for i in range(18)]
    edges += [(f"p{i}", f"c{i % 2}", "has_category") for i in range(18)]
    edges += [(f"p{i}", f"p{(i + 1) % 18}", "also_buy") for i in range(18)]
    snapshot = root / "snap"
    build_snapshot(
        pa.table({k: [n[j] for n in nodes] for j, k in enumerate(("id", "type", "name", "text"))}),
        pa.table({k: [e[j] for e in edges] for j, k in enumerate(("src", "dst", "relation"))}),
        snapshot,
        name="tiny-products",
        candidate_types=["product"],
    )
    questions = []
    for index in range(18):
        color, brand = COLORS[index % 3], BRANDS[(index // 3) % 3]
        kind = ("kettle", "lamp")[index % 2]
        questions.append(
            {
                "id": f"t{index}",
                "query": f"electric {kind} model number {index}",
                "answer_ids": [f"p{index}"],
                "family": "text_only",
            }
        )
        if index % 3 == 0:
            gold = [
                f"p{i}"
                for i in range(18)
                if (i // 3) % 3 == (index // 3) % 3 and COLORS[i % 3] == color
            ]
            questions.append(
                {
                    "id": f"r{index}",
                    "query": f"Which {color} products does {brand} make?",
                    "answer_ids": gold,
                    "family": "one_hop",
                }
            )
    qa = snapshot / "qa" / "test.jsonl"
    qa.parent.mkdir(parents=True, exist_ok=True)
    qa.write_text("".join(json.dumps(q) + "\n" for q in questions))
    return snapshot, qa
