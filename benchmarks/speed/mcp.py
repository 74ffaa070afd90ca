"""Latency of ARK's tools through `ark mcp` over stdio vs a direct `Toolset.call`, same process.

Run: .venv/bin/python -m benchmarks.speed.mcp [--questions 150] [--rounds 3] [--workdir DIR]

For each synthetic domain (products, academic, biomed; `ark graph synth --seed 0`, default
size) the workload is its test questions, sent whole as the search query (what an agent's first
call looks like), then `neighbors` of the top hit ranked by the same question. Each round times
every call directly (`Toolset.call` on a snapshot opened in this process) and then through an
MCP client (the SDK's `Client` over stdio to a child `ark mcp`), for both protocol eras the SDK
speaks: `legacy` (the initialize handshake, what today's clients use) and `auto` (2026-07-28).
Every MCP result is checked to be the direct observation's text. Writes
bench-out/mcp.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from cli.mcp.server import ArkMcpCatalog, ServedSnapshot, build_server
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate
from tools.config import ToolConfig
from tools.toolset import Toolset

ROOT = Path(__file__).resolve().parents[2]

DOMAINS = ("products", "academic", "biomed")
PATHS = ("direct", "inproc-legacy", "stdio-legacy", "stdio-auto")
ARK = "import sys; from cli.app import main; sys.argv[0] = 'ark'; main()"


@dataclass
class Timings:
    """Per-call wall times in milliseconds, by (tool, path)."""

    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def add(self, tool: str, path: str, seconds: float) -> None:
        self.samples.setdefault((tool, path), []).append(seconds * 1000)

    def quantile(self, tool: str, path: str, q: float) -> float:
        values = sorted(self.samples[(tool, path)])
        return values[min(len(values) - 1, int(q * len(values)))]


def calls_for(toolset: Toolset, questions: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """search(question) then neighbors(top hit, ranked by the question), per question."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for question in questions:
        calls.append(("search", {"query": question}))
        hits = toolset.call("search", {"query": question}).node_ids
        if hits:
            calls.append(("neighbors", {"node_id": hits[0], "query": question}))
    return calls


async def mcp_round(
    server: Any,
    path: str,
    calls: list[tuple[str, dict[str, Any]]],
    expected: list[str],
    timings: Timings,
) -> tuple[float, float]:
    """One MCP session; returns (start-up s, CPU ms per call of client + server process).

    `server` is StdioServerParameters (a child `ark mcp`) or an in-process low-level Server.
    """
    mode = "auto" if path.endswith("auto") else "legacy"
    started = time.perf_counter()
    async with Client(server, mode=mode, read_timeout_seconds=120) as client:
        await client.list_tools()
        startup = time.perf_counter() - started
        children = psutil.Process().children()
        for _ in range(3):  # warm the server's caches like the direct path's warm-up
            await client.call_tool(*calls[0])
        cpu_before = _cpu(children)
        for (tool, arguments), text in zip(calls, expected, strict=True):
            begin = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            timings.add(tool, path, time.perf_counter() - begin)
            got = result.content[0].text  # type: ignore[union-attr]
            if result.is_error or got != text:
                raise SystemExit(f"MCP result differs from Toolset.call for {tool} {arguments}")
        cpu_ms = (_cpu(children) - cpu_before) * 1000 / len(calls)
    return startup, cpu_ms


def _cpu(children: list[psutil.Process]) -> float:
    total = sum(psutil.Process().cpu_times()[:2])
    return total + sum(sum(child.cpu_times()[:2]) for child in children)


def direct_round(
    toolset: Toolset, calls: list[tuple[str, dict[str, Any]]], timings: Timings
) -> list[str]:
    texts = []
    for tool, arguments in calls:
        begin = time.perf_counter()
        observation = toolset.call(tool, arguments)
        timings.add(tool, "direct", time.perf_counter() - begin)
        texts.append(observation.text)
    return texts


def bench_domain(workdir: Path, domain: str, args: argparse.Namespace) -> dict[str, Any]:
    out = workdir / domain
    if not (out / "manifest.json").exists():
        generate(domain, 0, out)
    snapshot = Snapshot.open(out)
    toolset = Toolset(snapshot, ToolConfig(enable_node=True))
    rows = [json.loads(line) for line in (out / "qa" / "test.jsonl").open()]
    questions = [row["query"] for row in rows[: args.questions]]
    calls = calls_for(toolset, questions)
    direct_round(toolset, calls[:20], Timings())  # warm-up
    timings = Timings()
    stdio = StdioServerParameters(
        command=sys.executable,
        args=["-c", ARK, "mcp", str(out)],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
    )
    in_process = build_server(ArkMcpCatalog([ServedSnapshot(domain, toolset)]))
    startups: dict[str, list[float]] = {path: [] for path in PATHS[1:]}
    cpu: dict[str, list[float]] = {path: [] for path in PATHS[1:]}
    for _ in range(args.rounds):
        expected = direct_round(toolset, calls, timings)
        for path in PATHS[1:]:
            server = in_process if path.startswith("inproc") else stdio
            startup, cpu_ms = asyncio.run(mcp_round(server, path, calls, expected, timings))
            startups[path].append(startup)
            cpu[path].append(cpu_ms)
    words = statistics.median(len(q.split()) for q in questions)
    return {
        "domain": domain,
        "nodes": snapshot.num_nodes,
        "questions": len(questions),
        "words": words,
        "calls": len(calls),
        "timings": timings,
        "startup": {path: statistics.median(values) for path, values in startups.items()},
        "cpu": {path: statistics.median(values) for path, values in cpu.items()},
    }


def table_row(result: dict[str, Any], tool: str) -> str:
    """One markdown row: a domain's latencies for `tool` on every path."""
    timings: Timings = result["timings"]

    def q(path: str, quantile: float) -> float:
        return timings.quantile(tool, path, quantile)

    overhead = q("stdio-legacy", 0.5) - q("direct", 0.5)
    return (
        f"| {result['domain']} | {result['nodes']:,} | {result['questions']} "
        f"({result['words']:.0f}) | {tool} | {q('direct', 0.5):.2f} "
        f"| {q('inproc-legacy', 0.5):.2f} "
        f"| {q('stdio-legacy', 0.5):.2f} / {q('stdio-legacy', 0.9):.2f} "
        f"| {q('stdio-auto', 0.5):.2f} / {q('stdio-auto', 0.9):.2f} | +{overhead:.2f} |"
    )


def report(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
    command = (
        f".venv/bin/python -m benchmarks.speed.mcp --questions {args.questions} "
        f"--rounds {args.rounds}"
    )
    lines = [
        "# MCP server benchmark (`ark mcp` over stdio vs direct `Toolset.call`)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, the shared 2-core "
        "box with other jobs running (load average about 20 during the run): wall times over "
        "stdio are mostly waiting for a CPU; the CPU column is what a call costs.",
        "Workload per domain: its synthetic test questions sent whole as the search query "
        "(default k), then neighbors of the top hit ranked by the question. "
        f"{args.rounds} rounds, each timing every call directly (`Toolset.call`), then through "
        "the SDK's `Client` in process (no pipes: the SDK's own cost), then over stdio to a "
        "child `ark mcp` in each protocol era (legacy handshake, what clients use today; "
        "2026-07-28). Every MCP text was checked equal to the direct text.",
        "",
        "| domain | nodes | questions (median words) | tool | direct p50 ms "
        "| MCP in-process p50 ms | MCP stdio p50 / p90 ms (legacy) "
        "| MCP stdio p50 / p90 ms (2026-07-28) | stdio overhead at p50 ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        lines += [table_row(result, tool) for tool in ("search", "neighbors")]
    lines += [
        "",
        "CPU per call (client + server processes, median of rounds, search and neighbors "
        "together): "
        + "; ".join(
            f"{r['domain']} in-process {r['cpu']['inproc-legacy']:.2f} ms, stdio "
            f"{r['cpu']['stdio-legacy']:.2f} ms (legacy) / {r['cpu']['stdio-auto']:.2f} ms "
            "(2026-07-28)"
            for r in results
        )
        + ".",
        "",
        "Session start-up over stdio (spawn `ark mcp`, imports, open the snapshot, handshake, "
        "list tools), median: "
        + "; ".join(
            f"{r['domain']} {r['startup']['stdio-legacy']:.1f} s (legacy), "
            f"{r['startup']['stdio-auto']:.1f} s (2026-07-28)"
            for r in results
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.workdir or Path(scratch)
        results = [bench_domain(workdir, domain, args) for domain in DOMAINS]
    text = report(results, args)
    out = ROOT / "bench-out" / "mcp.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
