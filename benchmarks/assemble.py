"""Assemble BENCHMARKS.md from the summary and the per-area results in benchmarks/results/.

.venv/bin/python benchmarks/assemble.py
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent
ORDER = [
    "graph",
    "search_relevance",
    "search_questions",
    "search",
    "tools",
    "agent",
    "eval",
    "synth",
    "stark",
    "distill",
    "mcp",
    "models",
    "fusion",
    "fusion_ablation",
    "dense",
]


def demote(markdown: str) -> str:
    """Push every heading one level down so each results file nests under BENCHMARKS.md."""
    lines = []
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        lines.append("#" + line if line.startswith("#") and not in_code else line)
    return "\n".join(lines).strip() + "\n"


def main() -> None:
    parts = [(ROOT / "summary.md").read_text().strip() + "\n"]
    for name in ORDER:
        path = ROOT / "results" / f"{name}.md"
        if path.exists():
            parts.append(demote(path.read_text()))
    (ROOT.parent / "BENCHMARKS.md").write_text("\n\n".join(parts))


if __name__ == "__main__":
    main()
