"""Damaged snapshot files (same size): a clean error or a harmless answer, never a crash."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from tiny_graph import drop_checksums
from typer.testing import CliRunner

from cli.app import build_app
from graphs.build.memory import build_snapshot
from graphs.errors import SnapshotError
from graphs.snapshot import Snapshot
from graphs.verify import verify_snapshot
from tests.graphs.damage_driver import damage

REPO = Path(__file__).resolve().parents[2]
ARK = "import sys; from cli.app import main; sys.argv[0] = 'ark'; main()"
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def _graph(out: Path) -> Path:
    rng = random.Random(3)
    ids = [f"n{i}" for i in range(60)]
    nodes = pa.table(
        {
            "id": ids,
            "type": [rng.choice("abc") for _ in ids],
            "name": [f"node {i}" for i in range(60)],
            "text": [" ".join(rng.choices(WORDS, k=12)) for _ in ids],
            "aliases": [[f"{rng.choice(WORDS)} {i}"] if i % 3 else [] for i in range(60)],
        }
    )
    edges = pa.table(
        {
            "src": [rng.choice(ids) for _ in range(200)],
            "dst": [rng.choice(ids) for _ in range(200)],
            "relation": [rng.choice(["r1", "r2"]) for _ in range(200)],
        }
    )
    return build_snapshot(nodes, edges, out, name="damaged")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _graph(tmp_path_factory.mktemp("damage") / "snap")


def _ark(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", ARK, *args], cwd=REPO, env=env, capture_output=True, text=True
    )


def _damaged(base: Path, tmp_path: Path, relative: str, how: str) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(base, copy)
    damage(copy / relative, how)
    return copy


def test_a_clean_snapshot_verifies(base: Path) -> None:
    checks = verify_snapshot(base)
    assert [check.problem for check in checks] == [None] * len(checks)
    assert any("content hash" in check.name for check in checks)
    result = CliRunner().invoke(build_app(), ["graph", "verify", str(base)])
    assert result.exit_code == 0
    assert result.stdout.rstrip().endswith("verified")


@pytest.mark.slow
def test_every_damaged_file_is_an_error_or_harmless_and_verify_finds_it(
    base: Path, tmp_path: Path
) -> None:
    driver = Path(__file__).with_name("damage_driver.py")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(driver), str(base), str(tmp_path)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, f"crashed (exit {done.returncode}) at {lines[-1:]}"
    outcomes = [line.split()[1:] for line in lines if line.startswith("done ")]
    files = {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()}
    assert {outcome[0] for outcome in outcomes} == files
    assert [row for row in outcomes if row[2] == "unchanged"] == []  # every damage changed bytes
    for relative, how, command, code in outcomes:
        if command == "verify":
            assert code == "2", f"verify missed damage '{how}' of {relative}"
        else:
            assert code in ("0", "2"), f"{command} on damage '{how}' of {relative}: exit {code}"


@pytest.mark.parametrize(
    "relative", ["csr/neighbors.npy", "csr/indptr.npy", "index/text.docs.npy", "ids/order.npy"]
)
def test_out_of_range_ids_fail_at_open_not_in_the_kernels(
    base: Path, tmp_path: Path, relative: str
) -> None:
    copy = _damaged(base, tmp_path, relative, "data")
    with pytest.raises(SnapshotError, match=rf"{relative} was changed after the build.*rebuild"):
        Snapshot.open(copy)  # the checksum the build recorded
    drop_checksums(copy)  # built before checksums, or the file's time restored: the structure
    with pytest.raises(SnapshotError, match=rf"{relative}: .*damaged.*rebuild"):
        Snapshot.open(copy)


@pytest.mark.slow
def test_the_cli_exits_2_on_a_damaged_file_in_a_fresh_process(base: Path, tmp_path: Path) -> None:
    copy = _damaged(base, tmp_path, "index/text.docs.npy", "data")
    for argv in (["search", str(copy), "alpha"], ["neighbors", str(copy), "n1", "-q", "beta"]):
        result = _ark(*argv)
        assert result.returncode == 2, result.stderr
        assert "index/text.docs.npy" in result.stderr and "rebuild" in result.stderr
        assert "Traceback" not in result.stderr


def test_verify_names_a_changed_table_and_a_changed_text(base: Path, tmp_path: Path) -> None:
    copy = _damaged(base, tmp_path, "nodes.parquet", "half")
    failed = {check.name: check.problem for check in verify_snapshot(copy) if check.problem}
    assert "content hash" in " ".join(failed)
    text = tmp_path / "text"
    shutil.copytree(base, text)
    store = text / "nodes.arrow"
    data = bytearray(store.read_bytes())
    where = data.index(b"alpha")
    data[where : where + 5] = b"omega"  # a valid but different text, same size
    store.write_bytes(bytes(data))
    with pytest.raises(SnapshotError, match=r"nodes\.arrow was changed after the build"):
        Snapshot.open(text)  # its stamp changed: the next open hashes it
    problems = [check.problem for check in verify_snapshot(text) if check.problem]
    assert problems and "nodes.arrow differs from the build's checksum" in problems[0]
    drop_checksums(text)  # without checksums the cheap checks cannot see it ...
    Snapshot.open(text)
    problems = [check.problem for check in verify_snapshot(text) if check.problem]
    assert problems and "nodes.arrow column" in problems[0]  # ... verify does
    result = CliRunner().invoke(build_app(), ["graph", "verify", str(text), "--json"])
    assert result.exit_code == 2
    assert '"ok": false' in result.stdout


@pytest.mark.parametrize(
    "relative", ["edges.parquet", "nodes.parquet", "csr/indptr.npy", "index/vocab.npy", "ids"]
)
def test_verify_reports_a_missing_part_without_a_traceback(
    base: Path, tmp_path: Path, relative: str
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(base, copy)
    victim = copy / relative
    if victim.is_dir():
        shutil.rmtree(victim)
    else:
        victim.unlink()
    failed = [check for check in verify_snapshot(copy) if check.problem]
    assert failed and "rebuild" in (failed[0].problem or "")
    result = CliRunner().invoke(build_app(), ["graph", "verify", str(copy)])
    assert result.exit_code == 2  # an exception would be exit 1
    assert "damaged" in result.stdout
