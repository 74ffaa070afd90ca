"""The paper's toolset vs ARK's extended one, per family, with the rule policy (`ark eval`).

For each synthetic domain (`ark graph synth`, seed 0, default size) the test split is run by
the rule policy (3 agents, 20 steps: the paper's settings) once per setup, through the same
`evals.runs.runner.evaluate` that `ark eval` runs, and scored per family (STaRK protocol):

* ``extended``: today's default (search with a node_types filter, neighbors with k up to 50);
* ``paper``: Search(q, k) with no type filter, neighbors with a fixed budget of 20;
* with ``--ablations``, the paper's Table 2 ablations relative to the paper toolset
  (w/o Neighbors, Neighbors w/o q, Neighbors w/o F).

    .venv/bin/python -m benchmarks.quality.toolsets --out bench-out/toolsets [--ablations]
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from agent.config import AgentConfig
from evals.metrics import METRIC_NAMES, METRIC_TITLES, OVERALL, aggregate
from evals.runs.request import RunRequest
from evals.runs.runner import evaluate
from evals.runs.store import read_results
from graphs.build.options import BuildOptions
from graphs.synth.generate import DOMAINS, generate
from tools.config import ToolConfig

SETUPS: dict[str, ToolConfig] = {
    "extended": ToolConfig(toolset="extended"),
    "paper": ToolConfig(toolset="paper"),
}
ABLATIONS: dict[str, ToolConfig] = {
    "paper w/o Neighbors": ToolConfig(toolset="paper", enable_neighbors=False),
    "paper Neighbors w/o q": ToolConfig(toolset="paper", neighbor_query_ranking=False),
    "paper Neighbors w/o F": ToolConfig(toolset="paper", type_filters=False),
}


def run_setup(snapshot: Path, out: Path, tools: ToolConfig) -> dict[str, dict]:
    """Evaluate the rule policy with `tools` on the test split; per-family means."""
    if out.exists():
        shutil.rmtree(out)
    request = RunRequest(snapshot=snapshot, qa=snapshot / "qa" / "test.jsonl", out=out, split="all")
    evaluate(request, AgentConfig(model="rules", tools=tools))
    records = read_results(out)
    groups = aggregate((record.family, record.metrics) for record in records)
    return {name: group.means() | {"n": group.total} for name, group in groups.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out/toolsets"))
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--ablations", action="store_true")
    parser.add_argument("--protocol", default="stark", choices=("ark", "stark"))
    args = parser.parse_args()
    setups = SETUPS | (ABLATIONS if args.ablations else {})
    header = ["domain", "family", "n", "toolset", *(METRIC_TITLES[m] for m in METRIC_NAMES)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for domain in args.domains.split(","):
        snapshot = args.out / domain
        if not (snapshot / "manifest.json").is_file():
            generate(domain, 0, snapshot, options=BuildOptions(overwrite=True))
        results = {}
        for name, tools in setups.items():
            started = time.perf_counter()
            results[name] = run_setup(
                snapshot, args.out / "runs" / domain / name.replace(" ", "_"), tools
            )
            print(f"{domain} {name}: {time.perf_counter() - started:.1f}s", flush=True)
        families = [OVERALL, *sorted(f for f in results["paper"] if f != OVERALL)]
        for family in families:
            for name in setups:
                means = results[name][family]
                cells = [f"{means[args.protocol][m]:.3f}" for m in METRIC_NAMES]
                lines.append(
                    f"| {domain} | {family} | {means['n']} | {name} | " + " | ".join(cells) + " |"
                )
        print("\n".join(lines), flush=True)
    (args.out / f"toolsets-{args.protocol}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
