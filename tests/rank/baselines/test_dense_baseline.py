"""GME's strategies (schedules, exclusion, fusion, controls) and `ark baseline dense` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.app import build_app
from graphs.dense.cosine import CosineIndex, top_of
from graphs.dense.gme import normalised
from rank.baselines.dense_strategies import SCHEDULES, StrategyConfig, quotas, retrieve


def _indexes(n: int = 60, d: int = 8) -> tuple[CosineIndex, CosineIndex, np.ndarray]:
    rng = np.random.default_rng(3)
    x = normalised(rng.standard_normal((n, d)).astype(np.float32)).astype(np.float16)
    z = normalised(rng.standard_normal((n, d)).astype(np.float32)).astype(np.float16)
    types = np.zeros(n, dtype=np.int16)
    # float16-representable, so the by-hand float32 products equal the index's float16 ones
    query = normalised(rng.standard_normal((1, d)).astype(np.float32))[0]
    query = query.astype(np.float16).astype(np.float32)
    return CosineIndex(x, types), CosineIndex(z, types), query


def test_quotas_keep_the_paper_schedules_and_scale() -> None:
    assert quotas(SCHEDULES["chained-requery"], 40) == [
        ("original", 6), ("fused", 6), ("shifted", 14), ("shifted", 14)
    ]  # fmt: skip
    assert [size for _, size in quotas(SCHEDULES["requery"], 40)] == [16, 12, 12]
    assert sum(size for _, size in quotas(SCHEDULES["requery"], 20)) == 20


@pytest.mark.parametrize(
    "strategy", ["plain", "modified", "alternate", "two-stage", "requery", "chained-requery"]
)
def test_every_strategy_returns_the_budget_of_distinct_nodes(strategy: str) -> None:
    original, modified, query = _indexes()
    found = retrieve(query, original, modified, StrategyConfig(strategy=strategy))  # type: ignore[arg-type]
    assert len(found) == 40 and len(set(found)) == 40


def test_plain_modified_and_alternate_by_hand() -> None:
    original, modified, query = _indexes()
    x, z = original.matrix.astype(np.float32), modified.matrix.astype(np.float32)
    plain = retrieve(query, original, modified, StrategyConfig(strategy="plain", budget=5))
    assert plain == np.argsort(-(x @ query), kind="stable")[:5].tolist()
    alone = retrieve(query, original, modified, StrategyConfig(strategy="modified", budget=5))
    assert alone == np.argsort(-(z @ query), kind="stable")[:5].tolist()
    mixed = retrieve(query, original, modified, StrategyConfig(strategy="alternate", budget=6))
    x_rank, z_rank = np.argsort(-(x @ query))[:6], np.argsort(-(z @ query))[:6]
    expected: list[int] = []
    for pair in zip(x_rank.tolist(), z_rank.tolist(), strict=True):
        expected += [node for node in pair if node not in expected]
    assert mixed == expected[:6]


def test_two_stage_fuses_query_and_seed_mean_scores() -> None:
    original, modified, query = _indexes()
    x, z = original.matrix.astype(np.float32), modified.matrix.astype(np.float32)
    found = retrieve(query, original, modified, StrategyConfig(strategy="two-stage", budget=10))
    seeds = np.argsort(-(x @ query), kind="stable")[:5]
    assert found[:5] == seeds.tolist()
    m = z[seeds].mean(axis=0)
    m /= np.linalg.norm(m)
    fused = 0.5 * (x @ query) + 0.5 * (z @ m)
    fused[seeds] = -np.inf
    assert found[5:] == np.argsort(-fused, kind="stable")[:5].tolist()
    # the alpha=0 control reduces the fused stage to the next plain results
    control = retrieve(
        query, original, modified, StrategyConfig(strategy="two-stage", budget=10, control="alpha0")
    )
    assert control == np.argsort(-(x @ query), kind="stable")[:10].tolist()


def test_requery_shifts_the_query_toward_the_fused_stage() -> None:
    original, modified, query = _indexes()
    x = original.matrix.astype(np.float32)
    config = StrategyConfig(strategy="requery", budget=40)
    found = retrieve(query, original, modified, config)
    fused = found[16:28]
    shifted = 0.7 * query + 0.3 * x[fused].mean(axis=0)
    scores = x @ (shifted / np.linalg.norm(shifted))
    scores[found[:28]] = -np.inf
    assert found[28:] == np.argsort(-scores, kind="stable")[:12].tolist()


def test_original_space_control_needs_no_variant_and_controls_need_a_fused_stage() -> None:
    original, _, query = _indexes()
    config = StrategyConfig(strategy="chained-requery", control="original")
    assert not config.needs_variant and config.label == "dense-chained-requery-original"
    assert len(retrieve(query, original, None, config)) == 40
    with pytest.raises(ValueError, match="fused stage"):
        StrategyConfig(strategy="plain", control="alpha0")
    with pytest.raises(ValueError, match="choose from"):
        StrategyConfig(strategy="rerank")  # type: ignore[arg-type]


def test_cli_embed_then_baseline_dense_writes_a_scored_run(
    tiny: tuple[Path, Path], encoder_dir: Path, tmp_path: Path
) -> None:
    snapshot, qa = tiny
    runner = CliRunner()
    app = build_app()
    embedded = runner.invoke(
        app, ["graph", "embed", str(snapshot), "--encoder", str(encoder_dir), "--variants", "walk"]
    )
    assert embedded.exit_code == 0, embedded.output
    assert "walk" in embedded.output
    out = tmp_path / "run"
    args = ["baseline", "dense", str(snapshot), "--qa", str(qa), "--out", str(out)]
    result = runner.invoke(app, [*args, "--encoder", str(encoder_dir), "--json"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == len(qa.read_text().splitlines())
    first = records[0]["result"]
    assert (
        first["model"] == "dense-chained-requery-walk" and len(first["fused"]) == 23
    )  # every node: budget 40 > 23
    config = json.loads((out / "config.json").read_text())
    assert config["baseline"]["variant"] == "walk" and config["baseline"]["encoder_hash"]
    report = runner.invoke(app, ["eval", "report", str(out)])
    assert report.exit_code == 0 and "| dense-chained-requery-walk | 18 |" in report.output
    missing = runner.invoke(
        app, [*args[:-1], str(tmp_path / "r2"), "--encoder", str(encoder_dir), "--variant", "hop1"]
    )
    assert missing.exit_code == 2 and "--variants hop1" in missing.output


def _rescanning_reference(
    query: np.ndarray, original: CosineIndex, space: CosineIndex, config: StrategyConfig
) -> list[int]:
    """The staged schedule written naively: every stage scans the original space for q again."""
    alpha = 0.0 if config.control == "alpha0" else config.alpha
    taken: list[int] = []
    previous: list[int] = []
    seeds: list[int] = []
    for stage, size in quotas(SCHEDULES[config.strategy], config.budget):
        if stage == "original":
            found = seeds = original.top_k(query, size, exclude=taken)[0].tolist()
        elif stage == "fused":
            m = space.matrix[seeds].astype(np.float32).mean(axis=0)
            m /= np.linalg.norm(m)
            depth = config.pool_factor * config.budget
            pool = np.union1d(
                original.top_k(query, depth, exclude=taken)[0],
                space.top_k(m, depth, exclude=taken)[0],
            )
            mixed = (1 - alpha) * original.scores_of(query, pool) + alpha * space.scores_of(m, pool)
            found = top_of(mixed.astype(np.float32), pool, size)[0].tolist()
        else:
            mean = original.matrix[previous].astype(np.float32).mean(axis=0)
            shifted = (1 - config.query_shift) * query + config.query_shift * mean
            shifted /= np.linalg.norm(shifted)
            found = original.top_k(shifted, size, exclude=taken)[0].tolist()
        taken += found
        previous = found
    return taken


@pytest.mark.parametrize("strategy", ["two-stage", "requery", "chained-requery"])
@pytest.mark.parametrize("control", ["none", "alpha0", "original"])
def test_staged_strategies_scan_q_once_and_match_rescanning_every_stage(
    strategy: str, control: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    original, modified, query = _indexes(n=400, d=8)
    config = StrategyConfig(strategy=strategy, control=control, budget=40)  # type: ignore[arg-type]
    space = original if control == "original" else modified
    expected = _rescanning_reference(query, original, space, config)
    scanned: list[np.ndarray] = []
    real_scores = CosineIndex.scores

    def counting(self: CosineIndex, vector: np.ndarray) -> np.ndarray:
        if self is original:
            scanned.append(np.asarray(vector))
        return real_scores(self, vector)

    monkeypatch.setattr(CosineIndex, "scores", counting)
    found = retrieve(query, original, modified, config)
    assert found == expected and len(set(found)) == 40
    assert sum(np.array_equal(vector, query) for vector in scanned) == 1
